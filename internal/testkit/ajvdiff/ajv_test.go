// Package ajvdiff holds the ajv differential test: ajv, the JSON Schema
// validator JavaScript consumers use (its draft 2020-12 build, pinned in
// testdata/package-lock.json), compiles every schema/*.schema.json and must
// reach the same valid/invalid verdict as evtool's schema check on every
// line of every test stream. `make test` installs ajv with npm ci.
package ajvdiff

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	_ "github.com/evtool/evtool/adapters"
	"github.com/evtool/evtool/convert"
	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/internal/testkit/teststreams"
	"github.com/evtool/evtool/report"
	"github.com/evtool/evtool/rules"
	"github.com/evtool/evtool/stream"
	"github.com/evtool/evtool/validate"
	"github.com/tidwall/gjson"
)

// judged is one line and evtool's verdict on it.
type judged struct {
	where string // file:line, for a message
	raw   []byte
	valid bool
}

// kase is a schema and the lines judged against it.
type kase struct {
	schema string // path of the schema file
	name   string
	lines  []judged
}

func TestAjvAgrees(t *testing.T) {
	root := teststreams.Root()
	modules := filepath.Join("testdata", "node_modules", "ajv")
	if _, err := os.Stat(modules); err != nil {
		t.Fatalf("ajv is not installed (make test runs npm ci --prefix internal/testkit/ajvdiff/testdata): %v", err)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("node is needed for the ajv differential: %v", err)
	}
	schemas, _ := filepath.Glob(filepath.Join(root, "schema", "*.schema.json"))
	if len(schemas) < 6 {
		t.Fatalf("only %d schemas in schema/", len(schemas))
	}
	var cases []*kase
	for _, s := range schemas {
		name := strings.TrimSuffix(filepath.Base(s), ".schema.json")
		var c *kase
		if d, err := dialect.Lookup(name); err == nil {
			c = dialectCase(t, s, d)
		} else if name == "report" {
			c = reportCase(t, s)
		} else {
			t.Errorf("%s: no test streams for this schema; teach ajv_test.go where they are", s)
			continue
		}
		cases = append(cases, c)
	}

	// The lines go to node one file per case.
	dir := t.TempDir()
	type entry struct {
		Schema string `json:"schema"`
		Lines  string `json:"lines"`
	}
	var manifest []entry
	for i, c := range cases {
		var b bytes.Buffer
		for _, l := range c.lines {
			b.Write(l.raw)
			b.WriteByte('\n')
		}
		p := filepath.Join(dir, fmt.Sprintf("%02d-%s.jsonl", i, c.name))
		if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		manifest = append(manifest, entry{c.schema, p})
	}
	mpath := filepath.Join(dir, "manifest.json")
	mb, _ := json.Marshal(manifest)
	if err := os.WriteFile(mpath, mb, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, "verdict.mjs", mpath)
	cmd.Dir = "testdata"
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node verdict.mjs: %v\n%s", err, stderr.Bytes())
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 64<<20)
	i := 0
	for sc.Scan() {
		var ans struct{ Verdicts []string }
		if err := json.Unmarshal(sc.Bytes(), &ans); err != nil {
			t.Fatal(err)
		}
		c := cases[i]
		i++
		if len(ans.Verdicts) != len(c.lines) {
			t.Fatalf("%s: ajv judged %d lines of %d", c.name, len(ans.Verdicts), len(c.lines))
		}
		valid, invalid, differ := 0, 0, 0
		for j, l := range c.lines {
			want := "invalid"
			if l.valid {
				want = "valid"
				valid++
			} else {
				invalid++
			}
			if ans.Verdicts[j] != want {
				differ++
				if differ <= 10 {
					t.Errorf("%s: %s: evtool says %s, ajv %s:\n%s", c.name, l.where, want, ans.Verdicts[j], l.raw)
				}
			}
		}
		if differ > 10 {
			t.Errorf("%s: %d lines differ in all", c.name, differ)
		}
		// Both verdicts must occur, or the comparison proves little.
		if valid == 0 || invalid == 0 {
			t.Errorf("%s: %d valid and %d invalid lines; both kinds are needed", c.name, valid, invalid)
		}
		t.Logf("%s: %d lines agree (%d valid, %d invalid)", filepath.Base(c.schema), len(c.lines)-differ, valid, invalid)
	}
	if i != len(cases) {
		t.Fatalf("ajv answered %d cases of %d", i, len(cases))
	}
}

// dialectCase judges the test streams of a dialect, and lines made from
// them by mutation, with evtool's reading (package stream).
func dialectCase(t *testing.T, schema string, d dialect.Dialect) *kase {
	t.Helper()
	c := &kase{schema: schema, name: d.Name()}
	files := streamsOf(t, d)
	if len(files) == 0 {
		t.Fatalf("%s: no test streams", d.Name())
	}
	var header []byte
	var sources [][]byte
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		sources = append(sources, data)
	}
	// A known-good first line, so that every line after it is judged on
	// its own and none is taken for the first line of another dialect.
	for _, data := range sources {
		rd := stream.NewReader(bytes.NewReader(data), "h", stream.Options{Dialect: d})
		if l, err := rd.ReadLine(); err == nil && l.OK() {
			header = slices.Clone(l.Raw)
			break
		}
	}
	if header == nil {
		t.Fatalf("%s: no stream starts with a clean line", d.Name())
	}
	var mutants bytes.Buffer
	for i, f := range files {
		lines := judge(t, f, sources[i], header, d)
		c.lines = append(c.lines, lines...)
		for j, l := range lines {
			for _, m := range mutate(l.raw, len(c.lines)+j) {
				mutants.Write(m)
				mutants.WriteByte('\n')
			}
		}
	}
	c.lines = append(c.lines, judge(t, d.Name()+"-mutants", mutants.Bytes(), header, d)...)
	return c
}

// judge reads a stream after the header and returns evtool's schema
// verdict on each of its lines that both sides can judge alike.
func judge(t *testing.T, file string, data, header []byte, d dialect.Dialect) []judged {
	t.Helper()
	data = bytes.TrimPrefix(data, []byte("\xEF\xBB\xBF"))
	in := append(append(slices.Clip(header), '\n'), data...)
	rd := stream.NewReader(bytes.NewReader(in), file, stream.Options{Dialect: d})
	rule := stream.SchemaRule(d)
	var out []judged
	for {
		l, err := rd.ReadLine()
		if err != nil {
			break // io.EOF; the header makes any other error impossible
		}
		if l.N == 1 || !comparable(l.JSON, l.Raw) {
			continue
		}
		valid := !slices.ContainsFunc(l.Diags, func(dg validate.Diagnostic) bool { return dg.Rule == rule })
		out = append(out, judged{where: fmt.Sprintf("%s:%d", filepath.Base(file), l.N-1), raw: slices.Clone(l.Raw), valid: valid})
	}
	return out
}

// comparable reports whether ajv can judge a line as evtool does: it is
// one JSON value to evtool (JSON.parse would accept duplicate keys and
// lone surrogates that evtool refuses), and each of its numbers is a
// float64 that keeps its magnitude (JavaScript has no other number, and
// 18446744073709551616 would read as 18446744073709551615's neighbour).
func comparable(isJSON bool, raw []byte) bool {
	if !isJSON {
		return false
	}
	ok := true
	var walk func(v gjson.Result)
	walk = func(v gjson.Result) {
		switch {
		case v.Type == gjson.Number:
			f, err := strconv.ParseFloat(v.Raw, 64)
			if err != nil || math.IsInf(f, 0) || math.Abs(f) >= 1<<53 {
				ok = false
			}
		case v.IsObject() || v.IsArray():
			v.ForEach(func(_, x gjson.Result) bool {
				walk(x)
				return ok
			})
		}
	}
	walk(gjson.ParseBytes(raw))
	return ok
}

// streamsOf returns every test stream of a dialect: bundled, hand-made,
// the adapter's own, real captures, the probes (valid, invalid and
// ambiguous), and, for the dialects without captures of their own, what
// evtool writes in them from every other dialect's streams.
func streamsOf(t *testing.T, d dialect.Dialect) []string {
	t.Helper()
	root := teststreams.Root()
	name := d.Name()
	files := append(teststreams.Valid(name), teststreams.Invalid(name)...)
	amb, _ := filepath.Glob(filepath.Join(root, "testdata", "probe", name, "ambiguous", "*.jsonl"))
	files = append(files, amb...)
	if name == "acp" {
		m, _ := filepath.Glob(filepath.Join(root, "testdata", "acp", "*.acp.jsonl"))
		tr, _ := filepath.Glob(filepath.Join(root, "testdata", "acp", "*.transcript.jsonl"))
		files = append(append(files, m...), tr...)
	}
	// What evtool writes must pass too: every other dialect's streams
	// converted into this one.
	dir := t.TempDir()
	for _, src := range dialect.All() {
		if src.Name() == name || src.Name() == "acp" || src.Name() == "canonical" {
			continue
		}
		for _, f := range teststreams.Valid(src.Name()) {
			in, err := os.Open(f)
			if err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			_, err = convert.Run(in, &b, f, convert.Options{To: d}, func(*convert.LineError) {})
			in.Close()
			if err != nil || b.Len() == 0 {
				continue
			}
			p := filepath.Join(dir, src.Name()+"-"+filepath.Base(f))
			if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			files = append(files, p)
		}
	}
	sort.Strings(files)
	return files
}

// mutants of a line: one with a value removed, one with a value replaced,
// chosen by seed among all the line's values, so that every schema meets
// lines that break it in many places.
func mutate(raw []byte, seed int) [][]byte {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil
	}
	var paths [][]any
	var walk func(x any, path []any)
	walk = func(x any, path []any) {
		if len(path) > 0 {
			paths = append(paths, slices.Clone(path))
		}
		switch x := x.(type) {
		case map[string]any:
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				walk(x[k], append(path, k))
			}
		case []any:
			for i, e := range x {
				walk(e, append(path, i))
			}
		}
	}
	walk(v, nil)
	if len(paths) == 0 {
		return nil
	}
	replacements := []any{"x", json.Number("-1"), json.Number("1.5"), nil, true, map[string]any{}, []any{}, "", json.Number("0"), json.Number("4294967296")}
	var out [][]byte
	for k, p := range [][]any{paths[(seed*7919)%len(paths)], paths[(seed*104729+3)%len(paths)]} {
		cp := clone(v)
		parent := at(cp, p[:len(p)-1])
		last := p[len(p)-1]
		switch par := parent.(type) {
		case map[string]any:
			if k == 0 {
				delete(par, last.(string))
			} else {
				par[last.(string)] = replacements[seed%len(replacements)]
			}
		case []any:
			par[last.(int)] = replacements[(seed+k)%len(replacements)]
		}
		if b, err := json.Marshal(cp); err == nil {
			out = append(out, b)
		}
	}
	return out
}

func clone(v any) any {
	switch v := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(v))
		for k, x := range v {
			m[k] = clone(x)
		}
		return m
	case []any:
		s := make([]any, len(v))
		for i, x := range v {
			s[i] = clone(x)
		}
		return s
	}
	return v
}

func at(v any, path []any) any {
	for _, p := range path {
		switch x := v.(type) {
		case map[string]any:
			v = x[p.(string)]
		case []any:
			v = x[p.(int)]
		}
	}
	return v
}

// reportCase judges json reports of `evtool validate` (of the test
// streams of every dialect, one report a line) and their mutants, with
// evtool's check of a user's schema, which `--schema` runs.
func reportCase(t *testing.T, schema string) *kase {
	t.Helper()
	var docs bytes.Buffer
	n := 0
	for _, d := range dialect.All() {
		var ins []validate.Input
		for _, f := range streamsOf(t, d) {
			ins = append(ins, validate.Input{Name: f, Path: f})
		}
		// A report per stream, and one of them all.
		groups := [][]validate.Input{ins}
		for _, in := range ins {
			groups = append(groups, []validate.Input{in})
		}
		for _, g := range groups {
			var rs []*validate.Result
			if _, err := validate.Run(g, validate.RunOptions{}, func(r *validate.Result) { rs = append(rs, r) }); err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			if err := report.Write(&b, "json", report.Tool{Name: "evtool", Version: "dev"}, rs); err != nil {
				t.Fatal(err)
			}
			var line bytes.Buffer
			if err := json.Compact(&line, b.Bytes()); err != nil {
				t.Fatal(err)
			}
			docs.Write(line.Bytes())
			docs.WriteByte('\n')
			for _, m := range mutate(line.Bytes(), n) {
				docs.Write(m)
				docs.WriteByte('\n')
			}
			n++
		}
	}
	sch, err := validate.CompileSchema(schema)
	if err != nil {
		t.Fatal(err)
	}
	bad := map[int]bool{}
	data := docs.Bytes()
	if _, err := validate.Stream(bytes.NewReader(data), "reports", validate.Options{Schema: sch}, func(dg validate.Diagnostic) {
		if dg.Rule == rules.UserSchema {
			bad[dg.Line] = true
		}
	}); err != nil {
		t.Fatal(err)
	}
	c := &kase{schema: schema, name: "report"}
	for i, l := range bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n")) {
		if !comparable(true, l) {
			continue
		}
		c.lines = append(c.lines, judged{where: fmt.Sprintf("report %d", i+1), raw: l, valid: !bad[i+1]})
	}
	return c
}
