package validate

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"os"
	pathpkg "path"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/evtool/evtool/diag"
	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/event"
	"github.com/evtool/evtool/internal/schemaerr"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Schema is a user's JSON Schema for one line, compiled, for
// Options.Schema.
type Schema struct {
	name string // as the user named it
	dir  string // file URL of its directory, with a trailing slash
	sch  *jsonschema.Schema
}

// Name returns the schema's file name as it was given.
func (s *Schema) Name() string { return s.name }

// SchemaOptions are the choices of CompileSchemaWith.
type SchemaOptions struct {
	// AssertFormat makes "format" an assertion in every draft: a string
	// that is not a date-time, an email and so on fails. Without it,
	// draft-07 and older assert it (as their specifications say) while
	// 2019-09 and 2020-12 only annotate it, so that it never fails,
	// unless the schema's metaschema requires the format-assertion
	// vocabulary.
	AssertFormat bool
}

// CompileSchema reads and compiles a user's JSON Schema with the default
// SchemaOptions.
func CompileSchema(path string) (*Schema, error) {
	return CompileSchemaWith(path, SchemaOptions{})
}

// CompileSchemaWith reads and compiles a user's JSON Schema. Without
// "$schema" it is read as draft 2020-12; with one, as that draft, and so
// are the files it refers to that have no "$schema" of their own. A
// "$ref" is resolved against the schema's own files only, never the
// network: a relative reference names a file beside it (or below it);
// any other, such as an http(s) URL or a URN, names the .json file beside
// it whose "$id" it is, and failing that, for an http(s) URL, the file
// beside it (or below it) that its path ends with, whatever that file's
// own "$id".
func CompileSchemaWith(path string, opts SchemaOptions) (*Schema, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(abs); err != nil {
		return nil, err
	}
	root := fileURL(abs)
	c := jsonschema.NewCompiler()
	c.DefaultDraft(draftOf(abs))
	if opts.AssertFormat {
		c.AssertFormat()
	}
	c.UseLoader(&localLoader{dir: filepath.Dir(abs)})
	sch, err := c.Compile(root)
	if err != nil {
		return nil, fmt.Errorf("schema %s: %w", path, err)
	}
	s := &Schema{name: path, dir: fileURL(filepath.Dir(abs)) + "/", sch: sch}
	if cycle := refCycle(sch); cycle != nil {
		locs := make([]string, len(cycle))
		for i, c := range cycle {
			locs[i] = s.relative(c.Location)
		}
		return nil, fmt.Errorf("schema %s: not a usable schema: %w: %s", path, ErrSchemaCycle, strings.Join(locs, " -> "))
	}
	return s, nil
}

// draftOf returns the draft a schema file's "$schema" names, and draft
// 2020-12 when it names none (or a metaschema of its own). It is the
// default draft of the compiler, so that a file the schema refers to
// without a "$schema" of its own is read in the same draft: a draft-07
// schema's siblings are draft-07 schemas too.
func draftOf(path string) *jsonschema.Draft {
	doc, err := loadFile(path)
	if err != nil {
		return jsonschema.Draft2020 // the compiler reports it
	}
	m, _ := doc.(map[string]any)
	meta, _ := m["$schema"].(string)
	meta = strings.TrimSuffix(meta, "#")
	if rest, ok := strings.CutPrefix(meta, "http://"); ok {
		meta = "https://" + rest
	}
	for _, d := range []*jsonschema.Draft{jsonschema.Draft4, jsonschema.Draft6, jsonschema.Draft7, jsonschema.Draft2019, jsonschema.Draft2020} {
		if u := strings.Replace(d.String(), "http://", "https://", 1); u == meta {
			return d
		}
	}
	return jsonschema.Draft2020
}

// ErrSchemaCycle is a schema that applies itself to the same value
// without end: a chain of "$ref", "allOf", "not" and the like that comes
// back to where it began without descending into the value. JSON Schema
// leaves the result of such a schema undefined (2020-12 core, section
// 9.4.1), and the validator would report the loop on every line, so the
// schema is refused once, before any line is read.
var ErrSchemaCycle = errors.New("it applies itself to the same value without end (a reference cycle)")

// refCycle returns a cycle of schemas that apply to the same value, the
// first schema repeated at the end, or nil when there is none. Every
// schema reachable from root is looked at, also those that apply only to
// a part of the value (a property, an item), since a value with that part
// would loop as well.
func refCycle(root *jsonschema.Schema) []*jsonschema.Schema {
	const (
		unseen = iota
		onPath
		done
	)
	state := map[*jsonschema.Schema]int{}
	var path, cycle []*jsonschema.Schema
	var visit func(s *jsonschema.Schema) bool
	visit = func(s *jsonschema.Schema) bool {
		state[s] = onPath
		path = append(path, s)
		for _, t := range inPlace(s) {
			switch state[t] {
			case onPath:
				i := slices.Index(path, t)
				cycle = append(slices.Clone(path[i:]), t)
				return true
			case unseen:
				if visit(t) {
					return true
				}
			}
		}
		path = path[:len(path)-1]
		state[s] = done
		return false
	}
	seen := map[*jsonschema.Schema]bool{root: true}
	queue := []*jsonschema.Schema{root}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		if state[s] == unseen && visit(s) {
			return cycle
		}
		for _, t := range append(inPlace(s), parts(s)...) {
			if !seen[t] {
				seen[t] = true
				queue = append(queue, t)
			}
		}
	}
	return nil
}

// inPlace returns the subschemas that apply to the same value as s.
func inPlace(s *jsonschema.Schema) []*jsonschema.Schema {
	out := []*jsonschema.Schema{s.Ref, s.RecursiveRef, s.Not, s.If, s.Then, s.Else}
	if s.DynamicRef != nil {
		out = append(out, s.DynamicRef.Ref)
	}
	out = append(out, s.AllOf...)
	out = append(out, s.AnyOf...)
	out = append(out, s.OneOf...)
	for _, k := range slices.Sorted(maps.Keys(s.DependentSchemas)) {
		out = append(out, s.DependentSchemas[k])
	}
	for _, k := range slices.Sorted(maps.Keys(s.Dependencies)) {
		if d, ok := s.Dependencies[k].(*jsonschema.Schema); ok {
			out = append(out, d)
		}
	}
	return slices.DeleteFunc(out, func(t *jsonschema.Schema) bool { return t == nil })
}

// parts returns the subschemas that apply to a part of the value.
func parts(s *jsonschema.Schema) []*jsonschema.Schema {
	out := []*jsonschema.Schema{s.PropertyNames, s.UnevaluatedProperties, s.Contains, s.Items2020, s.UnevaluatedItems, s.ContentSchema}
	for _, k := range slices.Sorted(maps.Keys(s.Properties)) {
		out = append(out, s.Properties[k])
	}
	for _, p := range s.PatternProperties {
		out = append(out, p)
	}
	for _, v := range []any{s.AdditionalProperties, s.AdditionalItems, s.Items} {
		switch v := v.(type) {
		case *jsonschema.Schema:
			out = append(out, v)
		case []*jsonschema.Schema:
			out = append(out, v...)
		}
	}
	out = append(out, s.PrefixItems...)
	return slices.DeleteFunc(out, func(t *jsonschema.Schema) bool { return t == nil })
}

func fileURL(abs string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}).String()
}

// check returns the diagnostics of a line that is JSON.
func (s *Schema) check(line []byte, file string, n int) []diag.Diagnostic {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(line))
	var ds []diag.Diagnostic
	if err != nil {
		// The syntax check has passed, so this is the engine's own limit.
		ds = []diag.Diagnostic{{Severity: diag.Error, Col: 1, Message: "cannot be checked: " + err.Error()}}
	} else if err := s.sch.Validate(inst); err != nil {
		ds = schemaerr.Explain(err, line, s.relative)
	}
	for i := range ds {
		ds[i].File, ds[i].Line, ds[i].Rule = file, n, RuleUserSchema
	}
	return ds
}

// relative writes the location of a keyword in the user's files relative
// to the schema's directory, so that reports are the same bytes wherever
// the files are.
func (s *Schema) relative(loc string) string {
	if rest, ok := strings.CutPrefix(loc, s.dir); ok {
		if u, err := url.PathUnescape(rest); err == nil {
			return u
		}
		return rest
	}
	return loc
}

// localLoader loads the documents a schema refers to from local files
// only. A URL that is not a file's (http, https, urn and so on) is looked
// up among the "$id"s of the .json files in the schema's directory, which
// are read when first needed; an http(s) one then by its path, the file
// in the directory (or below it) at the longest end of that path: for
// http://h/a/b.json, a/b.json, else b.json. By path a file is found
// whatever its own "$id", as a server would serve it.
type localLoader struct {
	dir  string
	once sync.Once
	ids  map[string]string // $id without fragment → file
}

func (l *localLoader) Load(u string) (any, error) {
	pu, err := url.Parse(u)
	if err != nil {
		return nil, err
	}
	if pu.Scheme == "file" {
		// A reference resolves against the schema's own URL: a relative
		// one names a file beside it or below it, and nothing else is read
		// ("../x.json" and absolute paths would reach anywhere).
		f, err := jsonschema.FileLoader{}.ToFile(u)
		if err != nil {
			return nil, err
		}
		if rel, err := filepath.Rel(l.dir, f); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return nil, fmt.Errorf("%s is outside the schema's directory %s: a reference names a file beside the schema or below it", f, l.dir)
		}
		return loadFile(f)
	}
	l.once.Do(l.index)
	pu.Fragment = ""
	if f, ok := l.ids[pu.String()]; ok {
		return loadFile(f)
	}
	if pu.Scheme == "http" || pu.Scheme == "https" {
		if f := l.byPath(pu.Path); f != "" {
			return loadFile(f)
		}
		return nil, fmt.Errorf("%s is not the $id of a .json file beside the schema, and evtool never fetches schemas from the network", u)
	}
	return nil, fmt.Errorf("%s is not the $id of a .json file beside the schema, and only local files are read", u)
}

// byPath returns the regular file at the longest end of an URL's path
// that is in the directory or below it, or "".
func (l *localLoader) byPath(p string) string {
	segs := strings.Split(strings.Trim(pathpkg.Clean("/"+p), "/"), "/")
	for i := range segs {
		rel := segs[i:]
		if slices.Contains(rel, "") || slices.Contains(rel, "..") {
			continue
		}
		f := filepath.Join(append([]string{l.dir}, rel...)...)
		if fi, err := os.Stat(f); err == nil && fi.Mode().IsRegular() {
			return f
		}
	}
	return ""
}

// index reads the $id of every .json file in the directory. A file that
// is not a JSON object with an absolute $id is skipped: it may not be a
// schema, and it is still found by its name.
func (l *localLoader) index() {
	l.ids = map[string]string{}
	entries, err := os.ReadDir(l.dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if !e.Type().IsRegular() || !strings.HasSuffix(e.Name(), ".json") {
			continue // a folder, a link, or a named pipe, which would block
		}
		f := filepath.Join(l.dir, e.Name())
		doc, err := loadFile(f)
		if err != nil {
			continue
		}
		m, _ := doc.(map[string]any)
		id, _ := m["$id"].(string)
		if pu, err := url.Parse(id); err == nil && pu.IsAbs() {
			pu.Fragment = ""
			if _, dup := l.ids[pu.String()]; !dup {
				l.ids[pu.String()] = f
			}
		}
	}
}

// loadFile reads a schema document from a regular file: a named pipe or a
// device named in a reference would block the reading or never end.
func loadFile(path string) (any, error) {
	if fi, err := os.Stat(path); err != nil {
		return nil, err
	} else if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return jsonschema.UnmarshalJSON(bufio.NewReader(f))
}

// anyJSON is the dialect a stream checked against a user's schema is read
// as: package stream frames each line and judges its syntax, and nothing
// is decoded. It is not registered: no stream is ever detected as it.
type anyJSON struct{}

var errNoEncoder = errors.New("a user's schema has no encoder")

func (anyJSON) Name() string                                     { return "ndjson" }
func (anyJSON) Description() string                              { return "any NDJSON, checked against a user's schema" }
func (anyJSON) Sniff([]byte) bool                                { return true }
func (anyJSON) NewDecoder(dialect.DecodeOptions) dialect.Decoder { return noDecoder{} }
func (anyJSON) NewEncoder(*bufio.Writer, dialect.EncodeOptions) dialect.Encoder {
	return noEncoder{}
}
func (anyJSON) Schema() []byte                                  { return nil }
func (anyJSON) NewChecker(dialect.CheckOptions) dialect.Checker { return noChecker{} }

type noDecoder struct{}

func (noDecoder) Decode(out []*event.Event, _ []byte, _ int) ([]*event.Event, error) { return out, nil }
func (noDecoder) End(out []*event.Event) []*event.Event                              { return out }

type noEncoder struct{}

func (noEncoder) Encode(*event.Event) error { return errNoEncoder }
func (noEncoder) Close() error              { return nil }

type noChecker struct{}

func (noChecker) Line([]byte, int, func(dialect.Finding)) {}
func (noChecker) End(int, func(dialect.Finding))          {}
