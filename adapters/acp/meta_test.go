package acp_test

import (
	"strings"
	"testing"

	"github.com/evtool/evtool/adapters/acp"
	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/event"
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

// TestPermissionByKind: a permission answer is read by the kind of the
// option the client selected, as ACP means it, not by the spelling of its
// id: another agent's "always" (kind allow_always) was read as denied
// (hunt-acp2 #3).
func TestPermissionByKind(t *testing.T) {
	d, _ := dialect.Lookup(acp.Name)
	for _, c := range []struct{ option, want string }{
		{"always", `"outcome":"allowed","scope":"session"`},
		{"ok", `"outcome":"allowed"`},
		{"never", `"outcome":"denied","scope":"session"`},
		{"no", `"outcome":"denied"`},
		{"allow-always", `"outcome":"allowed","scope":"session"`}, // evtool's own, not offered here
	} {
		dec := d.NewDecoder(dialect.DecodeOptions{})
		req := `{"jsonrpc":"2.0","id":7,"method":"session/request_permission","params":{"sessionId":"s","toolCall":{"toolCallId":"t1"},"options":[` +
			`{"optionId":"ok","name":"Allow","kind":"allow_once"},{"optionId":"always","name":"Always","kind":"allow_always"},` +
			`{"optionId":"no","name":"Reject","kind":"reject_once"},{"optionId":"never","name":"Never","kind":"reject_always"}]}}`
		if _, err := dec.Decode(nil, []byte(req), 1); err != nil {
			t.Fatal(err)
		}
		evs, err := dec.Decode(nil, []byte(`{"jsonrpc":"2.0","id":7,"result":{"outcome":{"outcome":"selected","optionId":"`+c.option+`"}}}`), 2)
		if err != nil || len(evs) != 1 {
			t.Fatalf("%s: %v, %d events", c.option, err, len(evs))
		}
		b, err := event.Append(nil, evs[0])
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), c.want) {
			t.Errorf("%s: %s, want %s", c.option, b, c.want)
		}
	}
}
