package acp_test

import (
	"testing"

	"github.com/evtool/evtool/adapters/acp"
	"github.com/evtool/evtool/dialect"
)

// TestMetaErrorPointer: a canonical event under _meta that cannot be read
// is reported at its JSON Pointer: the key's "/" escaped, the event's
// index, then the field (the pointer was "…/evtool/source/events/: /text").
func TestMetaErrorPointer(t *testing.T) {
	d, _ := dialect.Lookup(acp.Name)
	dec := d.NewDecoder(dialect.DecodeOptions{})
	line := `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"}},` +
		`"_meta":{"evtool/source":{"events":[{"seq":0,"type":"user_message","text":"hi"},{"seq":1,"type":"user_message","text":5}]}}}}`
	_, err := dec.Decode(nil, []byte(line), 1)
	pe, ok := err.(interface{ Position() string })
	if !ok {
		t.Fatalf("error %v has no position", err)
	}
	if want := "/params/_meta/evtool~1source/events/1/text"; pe.Position() != want {
		t.Fatalf("position %q, want %q (error %v)", pe.Position(), want, err)
	}
}
