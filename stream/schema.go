package stream

import (
	"bytes"
	"fmt"
	"strings"
	"sync"

	"github.com/evtool/evtool/diag"
	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/internal/schemacheck"
	"github.com/evtool/evtool/internal/schemaerr"
	"github.com/evtool/evtool/schema"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

var (
	cacheMu sync.Mutex
	cache   = map[string]*lineSchema{}
)

// lineSchema is a dialect's schema, compiled once per process and split
// for speed. evtool's schemas choose the branch for a line with allOf
// entries of the form {"if": {"properties": {"type": {"const": T}}},
// "then": {"$ref": R}}. Evaluating every "if" for every line dominates the
// cost, so the envelope (the schema without allOf) and each branch are
// compiled on their own, and a line is checked against the envelope and
// its own type's branch: the same verdict, and the same errors, as the
// whole schema.
type lineSchema struct {
	// fast judges most lines without the engine; the engine runs only
	// when fast is not sure, or to explain a line fast rejects.
	fast     *schemacheck.Schema
	whole    *jsonschema.Schema // for schemas not of that form
	envelope *jsonschema.Schema
	branches map[string]*jsonschema.Schema
}

// check returns the schema errors of one line that is JSON, without file,
// line, column or rule.
func (ls *lineSchema) check(line []byte) []diag.Diagnostic {
	if ls == nil {
		return nil
	}
	if ls.fast != nil && ls.fast.Check(line) == schemacheck.Valid {
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
	root, _ := doc.(map[string]any)
	url := schema.URL(name)
	c := jsonschema.NewCompiler()
	if err := c.AddResource(url, doc); err != nil {
		return nil, fmt.Errorf("schema of %s: %w", name, err)
	}
	ls := &lineSchema{branches: map[string]*jsonschema.Schema{}}
	if fast, err := schemacheck.Compile(data); err == nil {
		ls.fast = fast
	}
	branches, ok := typeBranches(root)
	if !ok {
		if ls.whole, err = c.Compile(url); err != nil {
			return nil, fmt.Errorf("schema of %s: %w", name, err)
		}
		cache[name] = ls
		return ls, nil
	}
	env := map[string]any{}
	for k, v := range root {
		if k != "allOf" {
			env[k] = v
		}
	}
	envURL := schema.BaseURL + "envelope/" + schema.FileName(name)
	env["$id"] = envURL
	if err := c.AddResource(envURL, env); err != nil {
		return nil, fmt.Errorf("schema of %s: %w", name, err)
	}
	if ls.envelope, err = c.Compile(envURL); err != nil {
		return nil, fmt.Errorf("schema of %s: %w", name, err)
	}
	for t, ref := range branches {
		if ls.branches[t], err = c.Compile(url + ref); err != nil {
			return nil, fmt.Errorf("schema of %s: %w", name, err)
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
