package evbeam

import "testing"

func TestNames(t *testing.T) {
	for _, c := range []struct{ pattern, base string }{
		{"runs/*.jsonl", "runs/"},
		{"gs://b/runs/2026-*/x.jsonl.zst", "gs://b/runs/"},
		{"*.jsonl", ""},
		{"runs/a.jsonl", "runs/"},
	} {
		if got := base(c.pattern); got != c.base {
			t.Errorf("base(%q) = %q, want %q", c.pattern, got, c.base)
		}
	}
	for _, c := range []struct{ path, base, rel string }{
		{"gs://b/runs/2026-01/x.jsonl.zst", "gs://b/runs/", "2026-01/x.jsonl"},
		{"s3://b/x.ndjson.GZ", "", "b/x.ndjson"},
		{"a/../../x.jsonl", "", "x.jsonl"},
		{"/abs/x.jsonl.gz", "", "abs/x.jsonl"},
	} {
		if got := relName(c.path, c.base); got != c.rel {
			t.Errorf("relName(%q, %q) = %q, want %q", c.path, c.base, got, c.rel)
		}
	}
}
