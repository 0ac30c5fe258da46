package claudetranscript_test

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/evtool/evtool/adapters/claudetranscript"
	"github.com/evtool/evtool/convert"
	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/validate"
)

// findings validates a stream and returns its findings as "LINE RULE".
func findings(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	if _, err := validate.Stream(bytes.NewReader(data), path, validate.Options{Dialect: claudetranscript.Dialect{}}, func(d validate.Diagnostic) {
		out = append(out, strings.TrimPrefix(d.Rule, claudetranscript.Name+"/")+" "+strconv.Itoa(d.Line))
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestRules: each invalid stream draws the one finding it was written
// for, and every rule of the catalogue is drawn by one.
func TestRules(t *testing.T) {
	want := map[string]string{
		"parent_unknown.jsonl":          "parent-unknown 2",
		"usage_fell.jsonl":              "usage-fell 3",
		"compact_without_summary.jsonl": "compact-summary 4",
		"session_changed.jsonl":         "session-changed 3",
		"tool_result_unknown.jsonl":     "tool-result-unknown 2",
		"tool_result_repeated.jsonl":    "tool-result-repeated 4",
		"tool_use_repeated.jsonl":       "tool-use-repeated 4",
		"uuid_repeated.jsonl":           "uuid-repeated 3",
		"unknown_type.jsonl":            "unknown-type 2",
		"output_tokens_fraction.jsonl":  "schema 2",
		"output_tokens_decimal.jsonl":   "decode 2",
		"timestamp_not_a_time.jsonl":    "schema 1",
		"session_id_missing.jsonl":      "schema 1",
		"cost_negative.jsonl":           "schema 2",
	}
	files, _ := filepath.Glob(filepath.Join("testdata", "invalid", "*.jsonl"))
	if len(files) != len(want) {
		t.Errorf("%d invalid streams, %d expected findings", len(files), len(want))
	}
	drawn := map[string]bool{}
	for _, f := range files {
		got := findings(t, f)
		if w := want[filepath.Base(f)]; !slices.Equal(got, []string{w}) {
			t.Errorf("%s: findings %q, want %q", filepath.Base(f), got, w)
		}
		for _, g := range got {
			drawn[claudetranscript.Name+"/"+strings.Fields(g)[0]] = true
		}
	}
	for _, r := range (claudetranscript.Dialect{}).Rules() {
		if !drawn[r.ID] {
			t.Errorf("rule %s is drawn by no invalid stream", r.ID)
		}
	}
}

// TestValidStreams: the valid streams draw no finding, but for the
// newer producer's types, which are kept and reported as unknown; and
// each stream's canonical reading breaks none of the canonical rules.
func TestValidStreams(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.jsonl"))
	files = append(files, capture("claude-code-viewer_1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl"),
		capture("claude-code-viewer_5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl"))
	canonical, err := dialect.Lookup("canonical")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		got := findings(t, f)
		var want []string
		if filepath.Base(f) == "future_types.jsonl" {
			want = []string{"unknown-type 4", "unknown-type 5"}
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: findings %q, want %q", filepath.Base(f), got, want)
		}
		in, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		_, err = convert.Run(in, &out, f, convert.Options{From: claudetranscript.Dialect{}, To: canonical}, func(le *convert.LineError) { t.Error(le) })
		in.Close()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := validate.Stream(&out, f, validate.Options{Dialect: canonical, Strict: true}, func(d validate.Diagnostic) {
			t.Errorf("%s: canonical reading: %s", filepath.Base(f), d)
		}); err != nil {
			t.Fatal(err)
		}
	}
}
