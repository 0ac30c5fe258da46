package muse

import (
	"bytes"
	"encoding/json"
	"slices"
	"sort"

	"github.com/evtool/evtool/internal/jsonenc"
	"github.com/tidwall/gjson"
)

// envelopeKeys are the eleven envelope keys in the order Muse writes them.
var envelopeKeys = []string{"schema_version", "id", "stream", "sequence", "recorded_at", "record_type", "durability", "causation_id", "payload_type", "payload_schema_version", "payload"}

// kv is one key of a JSON object with its raw value.
type kv struct {
	k string
	v string
}

type kvs []kv

func (l kvs) get(k string) (string, bool) {
	for _, e := range l {
		if e.k == k {
			return e.v, true
		}
	}
	return "", false
}

func (l *kvs) set(k, v string) {
	for i := range *l {
		if (*l)[i].k == k {
			(*l)[i].v = v
			return
		}
	}
	*l = append(*l, kv{k, v})
}

func (l *kvs) del(k string) {
	*l = slices.DeleteFunc(*l, func(e kv) bool { return e.k == k })
}

func (l kvs) keys() []string {
	out := make([]string, len(l))
	for i, e := range l {
		out[i] = e.k
	}
	return out
}

func objectKVs(raw string) kvs {
	var out kvs
	gjson.Parse(raw).ForEach(func(k, v gjson.Result) bool {
		out = append(out, kv{k.Str, v.Raw})
		return true
	})
	return out
}

func appendObject(b []byte, l kvs) []byte {
	first := true
	b = append(b, '{')
	for _, e := range l {
		b = jsonenc.Key(b, &first, e.k)
		b = append(b, e.v...)
	}
	return append(b, '}')
}

// record is a journal record as key/value lists: the envelope without its
// payload, and the payload in the order it is to be written.
type record struct {
	env     kvs
	payload kvs
}

func (r *record) render(b []byte) []byte {
	first := true
	b = append(b, '{')
	for _, e := range r.env {
		b = jsonenc.Key(b, &first, e.k)
		b = append(b, e.v...)
	}
	b = jsonenc.Key(b, &first, "payload")
	return append(appendObject(b, r.payload), '}')
}

func str(s string) string { return string(jsonenc.String(nil, s)) }

// Residue of one record, as kept in ext.muse. Only what the derived record
// gets wrong is stored:
//
//	env      envelope values that differ from the derived ones
//	p        payload values that differ or that the derivation lacks
//	@absent  derived payload keys the record does not have
//	@order   "sorted" when the payload (and its nested objects) is sorted
//	@keys    the payload key order, when it is neither declared nor sorted
//	line     the whole line, when it cannot be rebuilt any other way
type residue struct {
	Env    map[string]json.RawMessage `json:"env,omitempty"`
	P      map[string]json.RawMessage `json:"p,omitempty"`
	Absent []string                   `json:"@absent,omitempty"`
	Order  string                     `json:"@order,omitempty"`
	Keys   []string                   `json:"@keys,omitempty"`
	Line   json.RawMessage            `json:"line,omitempty"`
	// Task and Turn carry the ids of a record kept as residue of another
	// event (in ext.muse.before), which has no canonical event of its own.
	Task string `json:"@task,omitempty"`
}

func (r *residue) empty() bool {
	return len(r.Env) == 0 && len(r.P) == 0 && len(r.Absent) == 0 && r.Order == "" && len(r.Keys) == 0 && len(r.Line) == 0 && r.Task == ""
}

// diff computes the residue that turns the derived record into the actual
// one. sorted says whether nested objects of the derivation were rendered
// sorted (it must match the payload's order mode).
func diff(actual, derived record) residue {
	var res residue
	for _, e := range actual.env {
		if v, ok := derived.env.get(e.k); !ok || v != e.v {
			if res.Env == nil {
				res.Env = map[string]json.RawMessage{}
			}
			res.Env[e.k] = json.RawMessage(e.v)
		}
	}
	for _, e := range actual.payload {
		if v, ok := derived.payload.get(e.k); !ok || v != e.v {
			if res.P == nil {
				res.P = map[string]json.RawMessage{}
			}
			res.P[e.k] = json.RawMessage(e.v)
		}
	}
	for _, k := range derived.payload.keys() {
		if _, ok := actual.payload.get(k); !ok {
			res.Absent = append(res.Absent, k)
		}
	}
	keys := actual.payload.keys()
	switch {
	case isSorted(keys) && len(keys) > 1:
		res.Order = "sorted"
	case !slices.Equal(keys, declaredOrder(derived.payload.keys(), keys)):
		res.Keys = keys
	}
	return res
}

func isSorted(keys []string) bool { return sort.StringsAreSorted(keys) }

// declaredOrder orders the actual keys as the derivation declares them,
// with keys the derivation does not know at the end in their own order.
func declaredOrder(declared, actual []string) []string {
	var out []string
	for _, k := range declared {
		if slices.Contains(actual, k) {
			out = append(out, k)
		}
	}
	for _, k := range actual {
		if !slices.Contains(declared, k) {
			out = append(out, k)
		}
	}
	return out
}

// apply turns a derived record into the one the residue describes.
func (res *residue) apply(r record) record {
	out := record{env: slices.Clone(r.env), payload: slices.Clone(r.payload)}
	for k, v := range res.Env {
		out.env.set(k, string(v))
	}
	for _, k := range res.Absent {
		out.payload.del(k)
	}
	for k, v := range res.P {
		out.payload.set(k, string(v))
	}
	// Env keys in the fixed envelope order.
	sort.SliceStable(out.env, func(i, j int) bool {
		return slices.Index(envelopeKeys, out.env[i].k) < slices.Index(envelopeKeys, out.env[j].k)
	})
	var order []string
	switch {
	case len(res.Keys) > 0:
		order = res.Keys
	case res.Order == "sorted":
		order = out.payload.keys()
		sort.Strings(order)
	default:
		order = declaredOrder(r.payload.keys(), out.payload.keys())
	}
	sorted := make(kvs, 0, len(out.payload))
	for _, k := range order {
		if v, ok := out.payload.get(k); ok {
			sorted = append(sorted, kv{k, v})
		}
	}
	out.payload = sorted
	return out
}

// parseRecord splits a line into envelope and payload lists. ok is false
// when the envelope keys are not Muse's eleven in Muse's order, or the
// payload is not an object.
func parseRecord(line []byte) (record, bool) {
	var r record
	var payload string
	i := 0
	ok := true
	gjson.ParseBytes(line).ForEach(func(k, v gjson.Result) bool {
		if i >= len(envelopeKeys) || k.Str != envelopeKeys[i] {
			ok = false
			return false
		}
		i++
		if k.Str == "payload" {
			payload = v.Raw
			if !v.IsObject() {
				ok = false
			}
			return true
		}
		r.env = append(r.env, kv{k.Str, v.Raw})
		return true
	})
	if !ok || i != len(envelopeKeys) {
		return r, false
	}
	r.payload = objectKVs(payload)
	return r, true
}

func sameBytes(a, b []byte) bool { return bytes.Equal(a, b) }
