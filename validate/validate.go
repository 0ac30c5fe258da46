// Package validate checks streams against a dialect's published JSON Schema
// and its stream rules, and reports every problem with its position.
package validate

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/internal/jsonptr"
	"github.com/evtool/evtool/ndjson"
	"github.com/evtool/evtool/schema"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// Rule ids that belong to no dialect.
const (
	RuleSyntax = "json/syntax"
	RuleUTF8   = "json/utf8"
)

// Options configure a validation.
type Options struct {
	// Dialect is the stream's dialect; nil detects it from the first line.
	Dialect dialect.Dialect
	// Strict makes findings about unknown types and fields errors.
	Strict bool
}

// Diagnostic is one problem found in a stream.
type Diagnostic struct {
	File     string
	Line     int // 1-based; 0 for the stream as a whole
	Col      int // 1-based, in characters; 0 when not known
	Severity dialect.Severity
	Pointer  string // JSON pointer of the offending value
	Message  string
	Rule     string
}

// String renders the diagnostic GNU style:
// FILE:LINE[:COL]: error|warning: MESSAGE [RULE].
func (d Diagnostic) String() string {
	var b strings.Builder
	b.WriteString(d.File)
	if d.Line > 0 {
		fmt.Fprintf(&b, ":%d", d.Line)
		if d.Col > 0 {
			fmt.Fprintf(&b, ":%d", d.Col)
		}
	}
	fmt.Fprintf(&b, ": %s: ", d.Severity)
	if d.Pointer != "" {
		b.WriteString(d.Pointer)
		b.WriteString(": ")
	}
	b.WriteString(d.Message)
	fmt.Fprintf(&b, " [%s]", d.Rule)
	return b.String()
}

// Summary counts what a validation found.
type Summary struct {
	Dialect  string
	Lines    int
	Errors   int
	Warnings int
}

// ErrUndetected means the dialect could not be told from the first line.
var ErrUndetected = errors.New("cannot tell the dialect from the first line; name it with --dialect")

// Stream validates one stream and calls report for every diagnostic, in
// line order. The error is non-nil only when the stream could not be read
// (or its dialect not detected); problems in the stream are diagnostics.
func Stream(r io.Reader, file string, opts Options, report func(Diagnostic)) (Summary, error) {
	var sum Summary
	rd := ndjson.NewReader(r)
	d := opts.Dialect
	var sch *lineSchema
	var chk dialect.Checker
	emit := func(diag Diagnostic) {
		diag.File = file
		if diag.Severity == dialect.Error {
			sum.Errors++
		} else {
			sum.Warnings++
		}
		report(diag)
	}
	setup := func() error {
		s, err := compiled(schema.FileName(d.Name()))
		if err != nil {
			return err
		}
		sch, chk = s, d.NewChecker(dialect.CheckOptions{})
		sum.Dialect = d.Name()
		return nil
	}
	if d != nil {
		if err := setup(); err != nil {
			return sum, err
		}
	}
	last := 0
	for {
		line, n, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return sum, fmt.Errorf("%s: %w", file, err)
		}
		sum.Lines++
		last = n
		// The decoder would replace invalid UTF-8 silently, so that is
		// checked first; the line is then parsed once, and located only
		// when it is broken.
		valid := utf8.Valid(line)
		var inst any
		if valid {
			inst, err = jsonschema.UnmarshalJSON(bytes.NewReader(line))
		}
		if !valid || err != nil {
			rule := RuleSyntax
			if !valid {
				rule = RuleUTF8
			}
			d := Diagnostic{Line: n, Col: 1, Severity: dialect.Error, Rule: rule, Message: "invalid JSON"}
			if se := ndjson.Check(line); se != nil {
				d.Col, d.Message = se.Col, se.Msg
			} else if err != nil {
				d.Message = "invalid JSON: " + err.Error()
			}
			emit(d)
			continue
		}
		if d == nil {
			var ok bool
			if d, ok = dialect.Detect(line); !ok {
				return sum, fmt.Errorf("%s:%d: %w", file, n, ErrUndetected)
			}
			if err := setup(); err != nil {
				return sum, err
			}
		}
		if err := sch.validate(inst); err != nil {
			var ve *jsonschema.ValidationError
			if !errors.As(err, &ve) {
				return sum, err
			}
			for _, leaf := range leaves(ve, nil) {
				ptr := pointer(leaf.InstanceLocation)
				emit(Diagnostic{Line: n, Col: jsonptr.Column(line, ptr), Severity: dialect.Error, Pointer: ptr,
					Rule: d.Name() + "/schema", Message: leaf.ErrorKind.LocalizedString(printer)})
			}
		}
		chk.Line(line, n, func(f dialect.Finding) { emit(finding(f, line, opts.Strict)) })
	}
	if d == nil {
		// Nothing valid to detect from: the stream is empty or all broken.
		if sum.Lines == 0 {
			return sum, fmt.Errorf("%s: %w", file, errEmpty)
		}
		return sum, nil
	}
	chk.End(last, func(f dialect.Finding) { emit(finding(f, nil, opts.Strict)) })
	return sum, nil
}

var errEmpty = errors.New("the stream is empty and no --dialect was given")

func finding(f dialect.Finding, line []byte, strict bool) Diagnostic {
	sev := f.Severity
	if f.Unknown && strict {
		sev = dialect.Error
	}
	col := 0
	if line != nil && f.Line > 0 {
		col = jsonptr.Column(line, f.Pointer)
	}
	return Diagnostic{Line: f.Line, Col: col, Severity: sev, Pointer: f.Pointer, Message: f.Message, Rule: f.Rule}
}

var printer = message.NewPrinter(language.English)

// leaves returns the innermost errors, which say what is actually wrong.
func leaves(ve *jsonschema.ValidationError, out []*jsonschema.ValidationError) []*jsonschema.ValidationError {
	if len(ve.Causes) == 0 {
		return append(out, ve)
	}
	for _, c := range ve.Causes {
		out = leaves(c, out)
	}
	return out
}

func pointer(tokens []string) string { return jsonptr.Join(tokens...) }

var (
	cacheMu sync.Mutex
	cache   = map[string]*lineSchema{}
)

// lineSchema is a dialect schema split for speed. evtool's schemas choose
// the branch for a line with allOf entries of the form
// {"if": {"properties": {"type": {"const": T}}}, "then": {"$ref": R}}.
// Evaluating every "if" for every line dominates the cost, so the envelope
// (the schema without allOf) and each branch are compiled on their own and
// a line is checked against the envelope and its own type's branch: the
// same verdict, and the same errors, as the whole schema.
type lineSchema struct {
	whole    *jsonschema.Schema // for schemas not of that form
	envelope *jsonschema.Schema
	branches map[string]*jsonschema.Schema
}

func (ls *lineSchema) validate(inst any) error {
	if ls.whole != nil {
		return ls.whole.Validate(inst)
	}
	if err := ls.envelope.Validate(inst); err != nil {
		return err
	}
	obj, _ := inst.(map[string]any)
	t, _ := obj["type"].(string)
	if b := ls.branches[t]; b != nil {
		return b.Validate(inst)
	}
	return nil
}

// compiled returns the compiled schema of that file name.
func compiled(name string) (*lineSchema, error) {
	cacheMu.Lock()
	defer cacheMu.Unlock()
	if s, ok := cache[name]; ok {
		return s, nil
	}
	c := jsonschema.NewCompiler()
	var root map[string]any
	for _, d := range dialect.All() {
		n, data := schema.FileName(d.Name()), d.Schema()
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
		if err != nil {
			return nil, fmt.Errorf("schema %s: %w", n, err)
		}
		if err := c.AddResource(schema.BaseURL+n, doc); err != nil {
			return nil, fmt.Errorf("schema %s: %w", n, err)
		}
		if n == name {
			root, _ = doc.(map[string]any)
		}
	}
	url := schema.BaseURL + name
	ls := &lineSchema{branches: map[string]*jsonschema.Schema{}}
	branches, ok := typeBranches(root)
	if !ok {
		s, err := c.Compile(url)
		if err != nil {
			return nil, fmt.Errorf("schema %s: %w", name, err)
		}
		ls.whole = s
		cache[name] = ls
		return ls, nil
	}
	env := map[string]any{}
	for k, v := range root {
		if k != "allOf" {
			env[k] = v
		}
	}
	envURL := schema.BaseURL + "envelope/" + name
	env["$id"] = envURL
	if err := c.AddResource(envURL, env); err != nil {
		return nil, fmt.Errorf("schema %s: %w", name, err)
	}
	var err error
	if ls.envelope, err = c.Compile(envURL); err != nil {
		return nil, fmt.Errorf("schema %s: %w", name, err)
	}
	for t, ref := range branches {
		if ls.branches[t], err = c.Compile(url + ref); err != nil {
			return nil, fmt.Errorf("schema %s: %w", name, err)
		}
	}
	cache[name] = ls
	return ls, nil
}

// typeBranches reads the type → $ref table from a schema's allOf, and
// reports false if any entry is not of the form lineSchema relies on.
func typeBranches(root map[string]any) (map[string]string, bool) {
	all, ok := root["allOf"].([]any)
	if !ok {
		return nil, false
	}
	out := map[string]string{}
	for _, e := range all {
		m, _ := e.(map[string]any)
		if len(m) != 2 {
			return nil, false
		}
		cond, _ := m["if"].(map[string]any)
		props, _ := cond["properties"].(map[string]any)
		typ, _ := props["type"].(map[string]any)
		t, isStr := typ["const"].(string)
		then, _ := m["then"].(map[string]any)
		ref, isRef := then["$ref"].(string)
		if len(cond) != 1 || len(props) != 1 || len(typ) != 1 || !isStr || len(then) != 1 || !isRef || !strings.HasPrefix(ref, "#") {
			return nil, false
		}
		out[t] = ref
	}
	return out, true
}
