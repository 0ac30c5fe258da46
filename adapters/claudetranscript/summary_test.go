package claudetranscript_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/evtool/evtool/adapters/claudetranscript"
	"github.com/evtool/evtool/event"
	"github.com/evtool/evtool/stream"
)

// TestSummary holds the summary reading (stream.Options.Summary) to the
// whole one on every test transcript and real capture, read with and
// without workers: every line gets the same diagnostics, and the events
// are the same but for the texts a summary leaves out.
func TestSummary(t *testing.T) {
	files, err := filepath.Glob("testdata/*.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{"testdata/invalid", "testdata/store", "../../../shared/ondisk/captures/claude-code"} {
		err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(path, ".jsonl") {
				files = append(files, path)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(files) < 20 {
		t.Fatalf("only %d transcripts found", len(files))
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, workers := range []int{1, 2} {
			if workers > 1 {
				// Past the input the simple path reads before the workers
				// start: the transcript again and again (each repeat read
				// as a resumed session's replay).
				data = bytes.Repeat(data, 1+(1<<20)/max(len(data), 1))
			}
			opts := stream.Options{Dialect: claudetranscript.Dialect{}, Workers: workers}
			whole := readLines(t, data, f, opts)
			opts.Summary = true
			sum := readLines(t, data, f, opts)
			if len(whole) != len(sum) {
				t.Fatalf("%s: %d lines read, %d in a summary", f, len(whole), len(sum))
			}
			var sm summarizer
			for i := range whole {
				w, s := whole[i], sum[i]
				if !reflect.DeepEqual(w.diags, s.diags) || w.err != s.err {
					t.Errorf("%s: line %d: diagnostics %v (%s), in a summary %v (%s)", f, w.n, w.diags, w.err, s.diags, s.err)
				}
				for _, ev := range w.events {
					sm.summarized(ev)
				}
				if !reflect.DeepEqual(w.events, s.events) {
					t.Errorf("%s: line %d: events\n%s\nin a summary\n%s", f, w.n, dump(w.events), dump(s.events))
				}
			}
		}
	}
}

// read is one line as a Reader gives it, or the events of the end (n 0).
type read struct {
	n      int
	diags  []string
	err    string
	events []*event.Event
}

func readLines(t *testing.T, data []byte, file string, opts stream.Options) []read {
	t.Helper()
	rd := stream.NewReader(bytes.NewReader(data), file, opts)
	defer rd.Close()
	var out []read
	for {
		l, err := rd.ReadLine()
		if err == io.EOF {
			return append(out, read{events: rd.End()})
		}
		if err != nil {
			var se *stream.StreamError
			if !errors.As(err, &se) {
				t.Fatalf("%s: %v", file, err)
			}
			return append(out, read{err: err.Error()})
		}
		r := read{n: l.N, events: append([]*event.Event(nil), l.Events...)}
		for _, d := range l.Diags {
			r.diags = append(r.diags, d.String())
		}
		out = append(out, r)
	}
}

// summarized leaves out of an event what Decoder.Summarize says a summary
// leaves out.
// summarizer blanks what a summary leaves out of a whole reading's
// events. It keeps the text of the main thread's first prompt, which a
// summary reads as the session's title.
type summarizer struct {
	prompted bool // the first prompt was seen
	keepUser bool // the user message of the first prompt comes next
}

func (sm *summarizer) summarized(ev *event.Event) {
	if _, ok := ev.Body.(*event.RoundFinished); !ok {
		if _, ok := ev.Body.(*event.TaskUpdated); !ok {
			ev.Ext = nil // a line's residue; a round's usage and a task's link stay
		}
	}
	switch b := ev.Body.(type) {
	case *event.Message:
		b.Text = ""
	case *event.Reasoning:
		b.Text = ""
	case *event.UserMessage:
		if sm.keepUser {
			sm.keepUser = false
		} else if !strings.HasPrefix(b.Text, "[Request interrupted by user") {
			b.Text = ""
		}
	case *event.ToolCall:
		b.Input, b.Title = nil, ""
	case *event.ToolFinished:
		b.Output, b.Web = nil, nil
	case *event.Unknown:
		b.Raw = nil
	case *event.TurnStarted:
		if b.Prompt != nil && !sm.prompted {
			sm.prompted, sm.keepUser = true, true
		} else {
			b.Prompt = nil
		}
	case *event.CompactionFinished:
		b.SummaryPreview = nil
	}
}

func dump(evs []*event.Event) string {
	var b strings.Builder
	for _, ev := range evs {
		fmt.Fprintf(&b, "%T %+v %+v\n", ev.Body, *ev, ev.Body)
	}
	return b.String()
}
