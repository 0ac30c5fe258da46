package streamgen_test

import (
	"bytes"
	"crypto/sha256"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/internal/testkit/streamgen"
	"github.com/evtool/evtool/internal/testkit/teststreams"
	"github.com/evtool/evtool/validate"
)

// TestValid checks that every dialect's generated stream passes validate
// with no errors, and that the same seed gives the same bytes.
func TestValid(t *testing.T) {
	for _, name := range streamgen.Dialects() {
		t.Run(name, func(t *testing.T) {
			d, err := dialect.Lookup(name)
			if err != nil {
				t.Fatal(err)
			}
			var a bytes.Buffer
			if err := streamgen.Write(&a, name, streamgen.Options{Seed: 7, Bytes: 2 << 20}); err != nil {
				t.Fatal(err)
			}
			if a.Len() < 2<<20 {
				t.Errorf("wrote %d bytes, want at least %d", a.Len(), 2<<20)
			}
			var shown int
			sum, err := validate.Stream(bytes.NewReader(a.Bytes()), name, validate.Options{Dialect: d}, func(dg validate.Diagnostic) {
				if dg.Severity == dialect.Error && shown < 10 {
					shown++
					t.Error(dg)
				}
			})
			if err != nil {
				t.Fatal(err)
			}
			if sum.Errors != 0 {
				t.Errorf("%d errors, %d warnings in %d lines", sum.Errors, sum.Warnings, sum.Lines)
			}
			t.Logf("%s: %d bytes, %d lines, %d warnings", name, a.Len(), sum.Lines, sum.Warnings)

			var b bytes.Buffer
			if err := streamgen.Write(&b, name, streamgen.Options{Seed: 7, Bytes: 2 << 20}); err != nil {
				t.Fatal(err)
			}
			if sha256.Sum256(a.Bytes()) != sha256.Sum256(b.Bytes()) {
				t.Error("the same seed gave different bytes")
			}
			var c bytes.Buffer
			if err := streamgen.Write(&c, name, streamgen.Options{Seed: 8, Bytes: 64 << 10}); err != nil {
				t.Fatal(err)
			}
			if bytes.HasPrefix(a.Bytes(), c.Bytes()) {
				t.Error("another seed gave the same bytes")
			}
		})
	}
}

// TestCalls checks that Calls alone bounds a stream.
func TestCalls(t *testing.T) {
	var a bytes.Buffer
	if err := streamgen.Write(&a, "basis", streamgen.Options{Seed: 1, Calls: 10}); err != nil {
		t.Fatal(err)
	}
	n := bytes.Count(a.Bytes(), []byte(`"type":"tool_queued"`))
	if n < 10 || n > 20 {
		t.Errorf("%d tool calls, want 10 and at most a turn's more", n)
	}
}

// validStream fails t on every error validate reports on data (ten shown)
// and returns the summary.
func validStream(t *testing.T, name string, data []byte) validate.Summary {
	t.Helper()
	d, err := dialect.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	var shown int
	sum, err := validate.Stream(bytes.NewReader(data), name, validate.Options{Dialect: d}, func(dg validate.Diagnostic) {
		if dg.Severity == dialect.Error && shown < 10 {
			shown++
			t.Error(dg)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Errors != 0 {
		t.Errorf("%d errors, %d warnings in %d lines", sum.Errors, sum.Warnings, sum.Lines)
	}
	return sum
}

// TestSmall checks the small shape in every dialect evtool writes: valid,
// lines of the intended length on average (about 130 bytes in basis, the
// shape's measure; the other dialects wrap the same events in envelopes
// of their own, from mermaid's few bytes to claude's and muse's hundreds),
// the same bytes for the same seed, and every event type of the model.
func TestSmall(t *testing.T) {
	const size = 512 << 10
	for _, d := range dialect.Targets() {
		name := d.Name()
		t.Run(name, func(t *testing.T) {
			opts := streamgen.Options{Seed: 7, Bytes: size, Shape: streamgen.ShapeSmall}
			var a bytes.Buffer
			if err := streamgen.Write(&a, name, opts); err != nil {
				t.Fatal(err)
			}
			sum := validStream(t, name, a.Bytes())
			lines := bytes.Count(a.Bytes(), []byte{'\n'})
			avg := a.Len() / max(lines, 1)
			lo, hi := 80, 600
			if name == "basis" {
				lo, hi = 115, 155
			}
			if avg < lo || avg > hi {
				t.Errorf("%d lines of %d bytes on average, want %d to %d", lines, avg, lo, hi)
			}
			t.Logf("%s: %d bytes, %d lines of %d bytes on average, %d warnings", name, a.Len(), lines, avg, sum.Warnings)
			var b bytes.Buffer
			if err := streamgen.Write(&b, name, opts); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(a.Bytes(), b.Bytes()) {
				t.Error("the same seed gave different bytes")
			}
		})
	}
	t.Run("every type", func(t *testing.T) {
		var a bytes.Buffer
		if err := streamgen.Write(&a, "canonical", streamgen.Options{Seed: 7, Bytes: 64 << 10, Shape: streamgen.ShapeSmall}); err != nil {
			t.Fatal(err)
		}
		for _, ty := range []string{"session_started", "session_finished", "turn_started", "turn_finished", "round_finished",
			"model_configured", "user_message", "message_delta", "message", "reasoning_delta", "reasoning", "tool_call",
			"tool_started", "tool_progress", "tool_output", "tool_finished", "permission_requested", "permission_resolved",
			"plan_updated", "task_updated", "usage", "compaction_started", "compaction_finished", "context_elided",
			"memory_updated", "branched", "notice", "retry", "error"} {
			if !bytes.Contains(a.Bytes(), []byte(`"type":"`+ty+`"`)) {
				t.Errorf("no %s line in %d bytes", ty, a.Len())
			}
		}
	})
}

// TestLargeIsDefault checks that the large shape is the default one.
func TestLargeIsDefault(t *testing.T) {
	var a, b bytes.Buffer
	if err := streamgen.Write(&a, "basis", streamgen.Options{Seed: 3, Bytes: 256 << 10}); err != nil {
		t.Fatal(err)
	}
	if err := streamgen.Write(&b, "basis", streamgen.Options{Seed: 3, Bytes: 256 << 10, Shape: streamgen.ShapeLarge}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Error(`Shape "" and ShapeLarge gave different bytes`)
	}
	if err := streamgen.Write(&a, "basis", streamgen.Options{Shape: "huge"}); err == nil {
		t.Error("an unknown shape was accepted")
	}
}

// TestCaptures checks the captures shape of every dialect with real
// captures beside the repository: the captures replicated to three times
// their size and more make a stream validate finds no error in, and the
// copies are not the same bytes (their ids are fresh).
func TestCaptures(t *testing.T) {
	root := teststreams.Root()
	var any bool
	for _, d := range dialect.All() {
		name := d.Name()
		files := streamgen.SharedCaptures(root, name)
		if len(files) == 0 {
			continue
		}
		any = true
		t.Run(name, func(t *testing.T) {
			cs, err := streamgen.LoadCaptures(name, files)
			if err != nil {
				t.Fatal(err)
			}
			for f, why := range cs.Skipped {
				t.Logf("left out %s: %s", filepath.Base(f), why)
			}
			var b bytes.Buffer
			if err := cs.ReplicateCaptures(&b, 3*cs.Size()+1); err != nil {
				t.Fatal(err)
			}
			if int64(b.Len()) < 3*cs.Size() {
				t.Errorf("wrote %d bytes, want at least %d", b.Len(), 3*cs.Size())
			}
			sum := validStream(t, name, b.Bytes())
			t.Logf("%s: %d captures, %d bytes, %d lines, %d warnings", name, len(cs.Files), b.Len(), sum.Lines, sum.Warnings)
			one := b.Bytes()[:cs.Size()]
			if bytes.Equal(one, b.Bytes()[cs.Size():2*cs.Size()]) {
				t.Error("the second copy is the first's bytes")
			}
		})
	}
	if !any {
		t.Skip("no captures beside the repository (../shared)")
	}
}

func TestFreshID(t *testing.T) {
	for _, c := range []struct{ id, form string }{
		{"018f0000-0000-7000-8000-00000000c350", `^018f0000-0000-7000-8000-[0-9a-f]{12}$`},
		{"toolu_01RmLUJdhjTMn56TnF9cMamW", `^toolu_01RmLUJdhjTM[A-Za-z0-9]{12}$`},
		{"item_0", `^item_0r2$`},
	} {
		got := streamgen.FreshID(c.id, 2)
		if !regexp.MustCompile(c.form).MatchString(got) || got == c.id {
			t.Errorf("FreshID(%q, 2) = %q, want the form %s", c.id, got, c.form)
		}
		if again := streamgen.FreshID(c.id, 2); again != got {
			t.Errorf("FreshID(%q, 2) gave %q, then %q", c.id, got, again)
		}
		if other := streamgen.FreshID(c.id, 3); other == got {
			t.Errorf("FreshID(%q) gave %q in copies 2 and 3", c.id, got)
		}
	}
}
