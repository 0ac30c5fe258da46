package muse

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/event"
	"github.com/evtool/evtool/internal/jsonenc"
)

// TestAnswerKeepsTheText: an answer gathered in blocks, the first ones
// in a file once it is long, is its text; little of it is in memory, and
// nothing is left of the file after Reset.
func TestAnswerKeepsTheText(t *testing.T) {
	var a answer
	var want strings.Builder
	for i := 0; want.Len() < answerSpill+3*answerBlock; i++ {
		s := strings.Repeat("delta é ", 1+i%50)
		if i == 2500 {
			s = strings.Repeat("x", answerBlock+1) // a block of its own
		}
		if err := a.WriteString(s); err != nil {
			t.Fatal(err)
		}
		want.WriteString(s)
		if inMemory := len(a.blocks) * answerBlock; inMemory > answerSpill+answerBlock {
			t.Fatalf("%d bytes of the answer in memory", inMemory)
		}
	}
	if a.inFile == 0 {
		t.Errorf("none of an answer of %d bytes is in a file", a.Len())
	}
	got, err := a.String()
	if err != nil {
		t.Fatal(err)
	}
	if a.Len() != want.Len() || got != want.String() {
		t.Fatalf("answer of %d bytes is not its text (%d bytes)", a.Len(), want.Len())
	}
	var joined strings.Builder
	for p := range a.pieces(&err) {
		joined.WriteString(p)
	}
	if err != nil || joined.String() != want.String() {
		t.Fatalf("the pieces of the answer are not its text (%v)", err)
	}
	name := a.name
	if err := a.Reset(); err != nil {
		t.Fatal(err)
	}
	if name != "" {
		if _, err := os.Stat(name); !os.IsNotExist(err) {
			t.Errorf("the answer's file %s is left after Reset (%v)", name, err)
		}
	}
	if got, _ := a.String(); a.Len() != 0 || got != "" {
		t.Errorf("Reset left %q", got)
	}
}

// TestLongAnswerWrittenInPlace: a turn's long answer, gathered from its
// deltas, is written in its run.terminal straight to the output, the
// same as a record made whole; a reason that holds the mark itself makes
// the record whole.
func TestLongAnswerWrittenInPlace(t *testing.T) {
	for _, reason := range []string{"", "odd " + textMark + " reason"} {
		var out bytes.Buffer
		w := bufio.NewWriter(&out)
		e := newEncoder(w, dialect.EncodeOptions{Losses: &dialect.Losses{}})
		var text strings.Builder
		enc := func(b event.Body) {
			t.Helper()
			if err := e.Encode(&event.Event{TurnID: "turn-1", Body: b}); err != nil {
				t.Fatal(err)
			}
		}
		enc(&event.SessionStarted{Source: event.SourceInfo{Dialect: "mermaid"}, SessionID: "s"})
		for i := 0; text.Len() < 2*jsonenc.LongValue; i++ {
			d := fmt.Sprintf("delta %d: \"é€😀\"\n", i)
			text.WriteString(d)
			enc(&event.MessageDelta{Text: d})
		}
		enc(&event.SessionFinished{Status: event.StatusError, Message: reason})
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		lines := bytes.Split(bytes.TrimSuffix(out.Bytes(), []byte("\n")), []byte("\n"))
		last := lines[len(lines)-1]
		reasonJSON := []byte("null") // no reason
		if reason != "" {
			reasonJSON = jsonenc.String(nil, reason)
		}
		want := fmt.Sprintf(`"payload_type":"run.terminal.failed","payload_schema_version":1,"payload":{"kind":"run_terminal","command_id":"turn-1","run_stream":{"kind":"run","id":"turn-1"},"terminal":"failed","text":%s,"reason":%s}}`,
			jsonenc.String(nil, text.String()), reasonJSON)
		if !bytes.HasSuffix(last, []byte(want)) {
			t.Errorf("reason %q: the run.terminal ends\n%.300s\nwant\n%.300s", reason, last[max(0, len(last)-len(want)):], want)
		}
	}
}

// TestAnswerWithoutTempDir keeps a long answer in memory when no
// temporary file can be made, rather than failing the conversion.
func TestAnswerWithoutTempDir(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir()+"/missing")
	var a answer
	var want strings.Builder
	for i := range 3 * answerSpill / 1000 {
		s := fmt.Sprintf("%0999d\n", i)
		want.WriteString(s)
		if err := a.WriteString(s); err != nil {
			t.Fatal(err)
		}
	}
	got, err := a.String()
	if err != nil || got != want.String() || a.file != nil {
		t.Errorf("an answer of %d bytes without a temporary directory: error %v, same text %v, file %v", want.Len(), err, got == want.String(), a.file != nil)
	}
	if err := a.Reset(); err != nil {
		t.Error(err)
	}
}
