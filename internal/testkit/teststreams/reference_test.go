package teststreams

import (
	"slices"
	"testing"
)

func TestExampleLines(t *testing.T) {
	text := "# title\n{\"type\":\"a\"}\n  {\"type\":\"indented\"}\n{\"type\":\"b\"}"
	if got, want := ExampleLines(text, `{"type":`), []string{`{"type":"a"}`, `{"type":"b"}`}; !slices.Equal(got, want) {
		t.Errorf("ExampleLines = %q, want %q", got, want)
	}
}
