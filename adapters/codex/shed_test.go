package codex

import (
	"bufio"
	"bytes"
	"strings"
	"testing"

	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/event"
)

// TestLongLineBuffersLetGo: the encoder, and the mirror the decoder derives
// each line with, keep no buffer of a long line once it is written or
// compared: held, each long line's buffers (three of its size) stayed
// beside the next long line's.
func TestLongLineBuffersLetGo(t *testing.T) {
	big := strings.Repeat("x", 3<<20)
	lines := []string{
		`{"type":"thread.started","thread_id":"t1"}`,
		`{"type":"turn.started"}`,
		`{"type":"item.started","item":{"id":"item_0","type":"command_execution","command":"` + big + `","aggregated_output":"","exit_code":null,"status":"in_progress"}}`,
		`{"type":"item.completed","item":{"id":"item_0","type":"command_execution","command":"echo","aggregated_output":"` + big + `","exit_code":0,"status":"completed"}}`,
	}
	dec := Dialect{}.NewDecoder(dialect.DecodeOptions{}).(*Decoder)
	var out bytes.Buffer
	w := bufio.NewWriter(&out)
	enc := Dialect{}.NewEncoder(w, dialect.EncodeOptions{Losses: &dialect.Losses{}}).(*Encoder)
	var evs []*event.Event
	for i, l := range lines {
		var err error
		if evs, err = dec.Decode(evs[:0], []byte(l), i+1); err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		for _, ev := range evs {
			if err := enc.Encode(ev); err != nil {
				t.Fatalf("line %d: %v", i+1, err)
			}
		}
		for who, e := range map[string]*Encoder{"the decoder's mirror": dec.enc, "the encoder": enc} {
			if n := max(cap(e.got), cap(e.l.B), cap(e.li.B)); n > 1<<20 {
				t.Errorf("after line %d, %s holds a buffer of %d bytes", i+1, who, n)
			}
		}
	}
}
