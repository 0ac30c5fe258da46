package codexrollout

import (
	"encoding/json"

	"github.com/evtool/evtool/internal/jsonenc"
	"github.com/evtool/evtool/internal/jsonobj"
	"github.com/tidwall/gjson"
)

// The residue, ext.codex-rollout, of an event read from a line holds what
// the canonical event does not:
//
//   - the line's keys beyond timestamp, type and payload (ordinal,
//     metadata, a newer key), under their own names, and its timestamp
//     when the canonical time cannot hold it;
//   - under "payload", the payload's keys the event does not hold exactly
//     (every key but its type and the consumed ones), as written;
//   - evtool's own notes, under keys starting with '@': why a line was
//     kept as an unknown event ("@kept"), the mid-2025 format ("@legacy").
//
// For a bare line of the mid-2025 format the line is its own payload.
// Values are copied out of the line, whose buffer the reader reuses.

// obj appends the members of one JSON object.
type obj struct{ b []byte }

// member appends a key, written as given, and a raw value.
func (o *obj) member(key []byte, raw string) {
	if len(o.b) == 0 {
		o.b = append(o.b, '{')
	} else {
		o.b = append(o.b, ',')
	}
	o.b = append(o.b, key...)
	o.b = append(o.b, ':')
	o.b = append(o.b, raw...)
}

// add appends a key and a raw value.
func (o *obj) add(key, raw string) {
	o.member(jsonenc.String(nil, key), raw)
}

// bytes returns the object, nil when it has no member.
func (o *obj) bytes() []byte {
	if len(o.b) == 0 {
		return nil
	}
	return append(o.b, '}')
}

// note is one of evtool's notes on a line, a key and a raw value.
type note struct{ key, raw string }

// residueOf returns the residue of an event read from v: consumed tells
// which payload keys the event holds exactly; timeExact whether the
// event's time holds the line's timestamp.
func residueOf(v *view, consumed func(k string) bool, timeExact bool, notes ...note) json.RawMessage {
	var out obj
	if v.form == formEnvelope {
		jsonobj.ForEachRaw(v.root, func(k, e gjson.Result) bool {
			switch jsonobj.Text(k) {
			case "type", "payload":
				return true
			case "timestamp":
				if timeExact {
					return true
				}
			}
			out.member([]byte(k.Raw), e.Raw)
			return true
		})
	}
	if v.payload.IsObject() {
		var p obj
		skipType := v.form == formBare || v.typ == "response_item" || v.typ == "event_msg"
		jsonobj.ForEachRaw(v.payload, func(k, e gjson.Result) bool {
			name := jsonobj.Text(k)
			if (skipType && name == "type") || (v.form == formState && name == "record_type") || (consumed != nil && consumed(name)) {
				return true
			}
			p.member([]byte(k.Raw), e.Raw)
			return true
		})
		if b := p.bytes(); b != nil {
			out.add("payload", string(b))
		}
	}
	for _, n := range notes {
		out.add(n.key, n.raw)
	}
	return out.bytes()
}

// keys returns a consumed-key test for a fixed list of keys.
func keys(list ...string) func(string) bool {
	return func(k string) bool {
		for _, l := range list {
			if l == k {
				return true
			}
		}
		return false
	}
}

// all consumes every payload key: for a second event of a line whose
// first holds the residue.
func all(string) bool { return true }
