package stream

import (
	"bytes"
	"fmt"
	"regexp"
	"sync"

	"github.com/evtool/evtool/diag"
	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/internal/schemacheck"
	"github.com/evtool/evtool/internal/schemaerr"
	"github.com/evtool/evtool/ndjson"
	"github.com/evtool/evtool/schema"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

var (
	cacheMu sync.Mutex
	cache   = map[string]*lineSchema{}
)

// lineSchema is a dialect's schema, compiled once per process and split
// for speed. evtool's schemas are tagged unions (schema.Union): a root
// oneOf with one branch per event type, told apart by a const on the tag
// ("type"). Asking the engine to evaluate every branch of the oneOf for a
// line dominates the cost of explaining it, so each branch is compiled on
// its own and a line is checked against its own tag's branch: the same
// verdict as the whole schema (schema.UnionOf says why, and a test holds
// it), and the errors of the branch the line means. A line without a
// string tag, and a schema of another shape, go to the whole schema.
type lineSchema struct {
	// fast judges most lines without the engine; the engine runs only
	// when fast is not sure, or to explain a line fast rejects.
	fast     *schemacheck.Schema
	whole    *jsonschema.Schema
	tag      string
	branches map[string]*jsonschema.Schema
	patterns []patternBranch
	other    *jsonschema.Schema // nil: a closed union
}

type patternBranch struct {
	re     *regexp.Regexp
	schema *jsonschema.Schema
}

// check returns the schema errors of one line that is JSON, without file,
// line, column or rule. x is its index as the syntax check made it, nil
// when it kept none.
func (ls *lineSchema) check(line []byte, x *ndjson.Index) []diag.Diagnostic {
	if ls == nil {
		return nil
	}
	if ls.fast != nil && ls.fast.CheckIndex(line, x) == schemacheck.Valid {
		return nil
	}
	return ls.explain(line)
}

// explain runs the engine over a line and returns its errors.
func (ls *lineSchema) explain(line []byte) []diag.Diagnostic {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(line))
	if err != nil {
		// The syntax check has passed, so this is the engine's own limit.
		return []diag.Diagnostic{{Severity: diag.Error, Message: "cannot be checked: " + err.Error()}}
	}
	if err := ls.validate(inst); err != nil {
		// Worded by evtool, bounds exactly, in a fixed order.
		return schemaerr.Explain(err, line, nil)
	}
	return nil
}

func (ls *lineSchema) validate(inst any) error {
	obj, _ := inst.(map[string]any)
	t, isStr := obj[ls.tag].(string)
	if ls.branches == nil || !isStr {
		return ls.whole.Validate(inst)
	}
	if b := ls.branches[t]; b != nil {
		return b.Validate(inst)
	}
	for _, p := range ls.patterns {
		if p.re.MatchString(t) {
			return p.schema.Validate(inst)
		}
	}
	if ls.other != nil {
		return ls.other.Validate(inst)
	}
	return ls.whole.Validate(inst) // no branch: the whole schema says why
}

// compiled returns the compiled schema of a dialect, nil for a dialect
// that publishes none.
func compiled(d dialect.Dialect) (*lineSchema, error) {
	cacheMu.Lock()
	defer cacheMu.Unlock()
	name := d.Name()
	if s, ok := cache[name]; ok {
		return s, nil
	}
	data := d.Schema()
	if len(data) == 0 {
		cache[name] = nil
		return nil, nil
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("schema of %s: %w", name, err)
	}
	url := schema.URL(name)
	c := jsonschema.NewCompiler()
	if err := c.AddResource(url, doc); err != nil {
		return nil, fmt.Errorf("schema of %s: %w", name, err)
	}
	ls := &lineSchema{}
	if fast, err := schemacheck.Compile(data); err == nil {
		ls.fast = fast
	}
	if ls.whole, err = c.Compile(url); err != nil {
		return nil, fmt.Errorf("schema of %s: %w", name, err)
	}
	if u, ok := schema.UnionOf(data); ok {
		ls.tag, ls.branches = u.Tag, map[string]*jsonschema.Schema{}
		for t, ref := range u.Branches {
			if ls.branches[t], err = c.Compile(url + ref); err != nil {
				return nil, fmt.Errorf("schema of %s: %w", name, err)
			}
		}
		for pat, ref := range u.Patterns {
			re, err := regexp.Compile(pat)
			if err != nil {
				return nil, fmt.Errorf("schema of %s: pattern %q: %w", name, pat, err)
			}
			b, err := c.Compile(url + ref)
			if err != nil {
				return nil, fmt.Errorf("schema of %s: %w", name, err)
			}
			ls.patterns = append(ls.patterns, patternBranch{re, b})
		}
		if u.Other != "" {
			if ls.other, err = c.Compile(url + u.Other); err != nil {
				return nil, fmt.Errorf("schema of %s: %w", name, err)
			}
		}
	}
	cache[name] = ls
	return ls, nil
}
