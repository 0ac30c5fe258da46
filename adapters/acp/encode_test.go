package acp_test

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/evtool/evtool/adapters/acp"
	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/event"
	"github.com/evtool/evtool/internal/testkit/ruletest"
)

// permissionStream encodes, to w, a session of calls tool calls, each with
// a permission request: a recorded answer for even calls, none for odd ones
// (their tool_finished answers them), and output and a result for all.
// every > 1 asks only for one call in every.
func permissionStream(t testing.TB, w io.Writer, calls, every int, transcript bool, between func(i int)) {
	bw := bufio.NewWriter(w)
	cfg := &acp.Config{Profile: acp.Stable, Transcript: transcript}
	enc := acp.Dialect{}.NewEncoder(bw, dialect.EncodeOptions{Losses: &dialect.Losses{}, Config: cfg})
	encode := func(b event.Body) {
		if err := enc.Encode(&event.Event{Body: b}); err != nil {
			t.Fatal(err)
		}
	}
	encode(&event.SessionStarted{SessionID: "s", Workspace: "/w"})
	prompt := "go"
	encode(&event.TurnStarted{Prompt: &prompt})
	out, summary := strings.Repeat("o", 100), "done"
	for i := range calls {
		id := fmt.Sprintf("call_%07d", i)
		encode(&event.ToolCall{CallID: id, Name: "read_file", Title: "Read src/" + id + ".go", Kind: event.KindRead})
		if i%every == 0 {
			req := fmt.Sprintf("perm_%07d", i)
			encode(&event.PermissionRequested{RequestID: req, CallID: id, Tool: "read_file", Description: "Allow reading?"})
			if i%2 == 0 {
				encode(&event.PermissionResolved{RequestID: req, CallID: id, Outcome: "allowed"})
			}
		}
		encode(&event.ToolStarted{CallID: id})
		encode(&event.ToolOutput{CallID: id, Chunk: out})
		encode(&event.ToolFinished{CallID: id, Status: "success", Summary: &summary})
		if between != nil {
			between(i)
		}
	}
	encode(&event.TurnFinished{Status: event.StatusOK})
	encode(&event.SessionFinished{Status: event.StatusOK})
	if err := enc.Close(); err != nil {
		t.Fatal(err)
	}
	if err := bw.Flush(); err != nil {
		t.Fatal(err)
	}
}

// BenchmarkEncodePermissions projects sessions of 10,000 and 100,000 tool
// calls, each with a permission request, as a transcript. The time per
// request (ns/request) stays flat as the session grows tenfold: no request
// is looked up by a scan of the earlier ones.
func BenchmarkEncodePermissions(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("requests=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			start := time.Now()
			for range b.N {
				permissionStream(b, io.Discard, n, 1, true, nil)
			}
			b.ReportMetric(float64(time.Since(start).Nanoseconds())/float64(b.N*n), "ns/request")
		})
	}
}

// TestEncoderMemory projects 50,000 tool calls, half with a permission
// request, and checks that what the encoder keeps once they all
// finished is a few bytes per call: not their output (100 bytes a call),
// nor their ids; only a digest, the kind and the title a later request for
// the call would show.
func TestEncoderMemory(t *testing.T) {
	const calls = 50_000
	var before, kept uint64
	permissionStream(t, io.Discard, calls, 2, true, func(i int) {
		switch i {
		case 0:
			before = ruletest.LiveHeap()
		case calls - 1:
			kept = ruletest.LiveHeap() - min(before, ruletest.LiveHeap())
		}
	})
	t.Logf("kept %.1f MiB for %d finished calls: %.0f bytes a call", float64(kept)/(1<<20), calls, float64(kept)/calls)
	if kept > 8<<20 {
		t.Errorf("the encoder keeps %d bytes after %d finished calls, want < 8 MiB", kept, calls)
	}
}
