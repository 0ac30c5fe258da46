package codexrollout_test

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/evtool/evtool/adapters/codexrollout"
	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/validate"
)

// invalidRule names the rule (or the schema or decoder's finding) each
// invalid stream is there to draw.
var invalidRule = map[string]string{
	"first_line":            "codex-rollout/first-line",
	"session_meta_repeated": "codex-rollout/session-meta",
	"format_mixed":          "codex-rollout/format-mixed",
	"timestamp_form":        "codex-rollout/timestamp",
	"timestamp_order":       "codex-rollout/timestamp-order",
	"ordinal_gap":           "codex-rollout/ordinal",
	"usage_nested":          "codex-rollout/usage-nested",
	"usage_decreasing":      "codex-rollout/usage-decreasing",
	"call_unknown":          "codex-rollout/call-unknown",
	"call_repeated":         "codex-rollout/call-repeated",
	"output_repeated":       "codex-rollout/output-repeated",
	"arguments_not_json":    "codex-rollout/arguments",
	"turn_open":             "codex-rollout/turn-open",
	"turn_not_started":      "codex-rollout/turn-not-started",
	"truncated":             "codex-rollout/truncated",
	"replay_unended":        "codex-rollout/replay-unended",
	"unknown_type":          "codex-rollout/unknown-type",
	"unknown_field":         "codex-rollout/unknown-field",
	"count_not_integer":     "codex-rollout/schema",
	"arguments_not_string":  "codex-rollout/schema",
	"payload_not_object":    "codex-rollout/schema",
	"type_missing":          "codex-rollout/schema",
	"message_not_string":    "codex-rollout/schema",
	"count_literal":         "codex-rollout/decode",
}

// TestInvalidStreams: each invalid stream draws the finding it is there
// for, and every rule of the catalogue has a stream that draws it.
func TestInvalidStreams(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "invalid", "*.jsonl"))
	drawn := map[string]bool{}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".jsonl")
		want, ok := invalidRule[name]
		if !ok {
			t.Errorf("%s: no rule expected of it", name)
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		if _, err := validate.Stream(bytes.NewReader(data), f, validate.Options{Dialect: codexrollout.Dialect{}}, func(d validate.Diagnostic) {
			got = append(got, d.Rule)
		}); err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(got, want) {
			t.Errorf("%s: findings %v, want %s", name, got, want)
		}
		drawn[want] = true
	}
	for _, r := range (codexrollout.Dialect{}).Rules() {
		if !drawn[r.ID] {
			t.Errorf("rule %s: no invalid stream draws it", r.ID)
		}
	}
}

// TestValidStreamsWarnings: the valid streams draw no error, and only the
// warnings they are there for (the context-window refill in compaction.jsonl
// draws none).
func TestValidStreamsWarnings(t *testing.T) {
	want := map[string][]string{
		"fork_unended.jsonl":    {"codex-rollout/replay-unended"},
		"fork_midturn.jsonl":    {"codex-rollout/replay-unended", "codex-rollout/turn-not-started"},
		"legacy_resumed.jsonl":  {"codex-rollout/format-mixed"},
		"legacy_cli_0.34.jsonl": {"codex-rollout/arguments"},
		"unknown_types.jsonl":   {"codex-rollout/unknown-type", "codex-rollout/unknown-field"},
	}
	files, _ := filepath.Glob(filepath.Join("testdata", "*.jsonl"))
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		if _, err := validate.Stream(bytes.NewReader(data), f, validate.Options{Dialect: codexrollout.Dialect{}}, func(d validate.Diagnostic) {
			if d.Severity == dialect.Error {
				t.Errorf("%s line %d: %s: %s", filepath.Base(f), d.Line, d.Rule, d.Message)
			}
			if !slices.Contains(got, d.Rule) {
				got = append(got, d.Rule)
			}
		}); err != nil {
			t.Fatal(err)
		}
		if w := want[filepath.Base(f)]; !slices.Equal(got, w) {
			t.Errorf("%s: findings %v, want %v", filepath.Base(f), got, w)
		}
	}
}
