package muse

import (
	"bytes"
	"encoding/json"
	"slices"
	"sort"
	"unsafe"

	"github.com/evtool/evtool/ndjson"

	"github.com/evtool/evtool/internal/jsonenc"
	"github.com/evtool/evtool/internal/jsonobj"
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
	jsonobj.ForEach(gjson.Parse(raw), func(k, v gjson.Result) bool {
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

// record is a journal record as key/value lists: the envelope keys in
// their order (the payload's entry has an empty value; it is rendered from
// payload), and the payload in the order it is to be written.
type record struct {
	env     kvs
	payload kvs
}

func (r *record) render(b []byte) []byte {
	first := true
	b = append(b, '{')
	for _, e := range r.env {
		b = jsonenc.Key(b, &first, e.k)
		if e.k == "payload" {
			b = appendObject(b, r.payload)
			continue
		}
		b = append(b, e.v...)
	}
	return append(b, '}')
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
//	@eorder  "sorted" when the envelope keys (and the stream ref) are sorted
//	@ekeys   the envelope key order, when it is neither Muse's nor sorted
//	@ws      white space between the line's tokens, as [token, text] pairs
//	line     the whole line (compacted), when it cannot be rebuilt any other way
//	task_kind  the task_kind of a proposed task, when the canonical kind does not give it
type residue struct {
	Env    map[string]json.RawMessage `json:"env,omitempty"`
	P      map[string]json.RawMessage `json:"p,omitempty"`
	Absent []string                   `json:"@absent,omitempty"`
	Order  string                     `json:"@order,omitempty"`
	Keys   []string                   `json:"@keys,omitempty"`
	Line   json.RawMessage            `json:"line,omitempty"`
	// EOrder is "sorted" when the envelope keys (and the stream ref) are
	// sorted; EKeys is the envelope key order when it is neither Muse's
	// nor sorted.
	EOrder string   `json:"@eorder,omitempty"`
	EKeys  []string `json:"@ekeys,omitempty"`
	// WS is the white space between the tokens of the line, when it has
	// any: pairs of a token index and the white space before that token.
	WS []gap `json:"@ws,omitempty"`
	// Task and Turn carry the ids of a record kept as residue of another
	// event (in ext.muse.before), which has no canonical event of its own.
	Task string `json:"@task,omitempty"`
	// TaskKind is the source's task_kind of a proposed task that is not a
	// tool call, when it is not the word derived from the canonical kind.
	TaskKind string `json:"task_kind,omitempty"`
}

func (r *residue) empty() bool {
	return len(r.Env) == 0 && len(r.P) == 0 && len(r.Absent) == 0 && r.Order == "" && len(r.Keys) == 0 && len(r.Line) == 0 && r.Task == "" && r.TaskKind == "" &&
		r.EOrder == "" && len(r.EKeys) == 0 && len(r.WS) == 0
}

// diff computes the residue that turns the derived record into the actual
// one. sorted says whether nested objects of the derivation were rendered
// sorted (it must match the payload's order mode).
func diff(actual, derived record) residue {
	var res residue
	for _, e := range actual.env {
		if e.k == "payload" {
			continue
		}
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
	res.EOrder, res.EKeys = keyOrder(actual.env.keys(), envelopeKeys)
	res.Order, res.Keys = keyOrder(actual.payload.keys(), derived.payload.keys())
	return res
}

// keyOrder says how an object's keys are ordered, for the residue: "sorted"
// (as jq -S writes them), or the keys themselves when they are in neither
// sorted nor declared order, or neither when declared order is theirs.
func keyOrder(keys, declared []string) (how string, explicit []string) {
	switch {
	case jqSorted(keys):
		return "sorted", nil
	case !slices.Equal(keys, declaredOrder(declared, keys)):
		return "", keys
	}
	return "", nil
}

// jqSorted says whether an object's keys (two or more) are in sorted order,
// as jq -S writes them; Muse's own order is not sorted.
func jqSorted(keys []string) bool { return len(keys) > 1 && sort.StringsAreSorted(keys) }

// declaredOrder orders the actual keys as the derivation declares them,
// with keys the derivation does not know at the end, sorted (residue
// values come from maps, so their own order is not kept there).
func declaredOrder(declared, actual []string) []string {
	out := make([]string, 0, len(actual))
	var extra []string
	for _, k := range declared {
		if slices.Contains(actual, k) {
			out = append(out, k)
		}
	}
	for _, k := range actual {
		if !slices.Contains(declared, k) {
			extra = append(extra, k)
		}
	}
	sort.Strings(extra)
	return append(out, extra...)
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
	out.env = reorder(out.env, res.EKeys, res.EOrder, envelopeDeclared)
	out.payload = reorder(out.payload, res.Keys, res.Order, r.payload)
	return out
}

// reorder puts an object's members in the order the residue recorded (see
// keyOrder): the keys it lists, sorted, or as declared.
func reorder(have kvs, explicit []string, how string, declared kvs) kvs {
	order := explicit
	switch {
	case len(explicit) > 0:
	case how == "sorted":
		order = have.keys()
		sort.Strings(order)
	default:
		return reorderDeclared(have, declared)
	}
	out := make(kvs, 0, len(have))
	for _, k := range order {
		if v, ok := have.get(k); ok {
			out = append(out, kv{k, v})
		}
	}
	return out
}

// envelopeDeclared is envelopeKeys as members, for reorder.
var envelopeDeclared = func() kvs {
	l := make(kvs, len(envelopeKeys))
	for i, k := range envelopeKeys {
		l[i].k = k
	}
	return l
}()

// reorderDeclared is reorder by declaredOrder(declared's keys, have's
// keys), without making those lists: the declared keys have has, in the
// declared order, then the others, sorted; each with the first value have
// gives it.
func reorderDeclared(have kvs, declared kvs) kvs {
	out := make(kvs, 0, len(have))
	for _, d := range declared {
		if v, ok := have.get(d.k); ok {
			out = append(out, kv{d.k, v})
		}
	}
	var extra []string
	for _, e := range have {
		if _, ok := declared.get(e.k); !ok {
			extra = append(extra, e.k)
		}
	}
	if len(extra) == 0 {
		return out
	}
	sort.Strings(extra)
	for _, k := range extra {
		v, _ := have.get(k)
		out = append(out, kv{k, v})
	}
	return out
}

// parseRecord splits a compact line into envelope and payload lists, in
// any key order and with any extra keys. ok is false when the line is not
// an object; a payload that is not an object leaves payload empty and
// isObj false.
func parseRecord(line []byte) (r record, isObj bool, ok bool) {
	return parseRecordMS(line, nil, false)
}

// parseRecordMS is parseRecord with the line's top-level members as the
// syntax check found them (nil: read the line); own: read in place (see
// parseRecordMembers).
func parseRecordMS(line []byte, ms []ndjson.Member, own bool) (r record, isObj bool, ok bool) {
	root := jsonobj.ParseLine(line, own)
	if !root.IsObject() {
		return r, false, false
	}
	jsonobj.ForEachMember(root, ms, func(k, v gjson.Result) bool {
		if k.Str == "payload" {
			r.env = append(r.env, kv{k.Str, ""})
			if v.IsObject() {
				isObj = true
				r.payload = objectKVs(v.Raw)
			}
			return true
		}
		r.env = append(r.env, kv{k.Str, v.Raw})
		return true
	})
	return r, isObj, true
}

func sameBytes(a, b []byte) bool { return bytes.Equal(a, b) }

// gap is white space in a line: S stands before the token numbered At
// (0-based; the number of tokens means the end of the line). Tokens are
// the structural characters, strings and literals of the JSON text.
type gap struct {
	At int
	S  string
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// scanTokens walks a JSON text and calls at(i, tok, ws) for every byte i:
// tok is the number of the token that byte starts, or -1 when it starts
// none; ws says the byte is white space between tokens.
func scanTokens(b []byte, at func(i, tok int, ws bool)) int {
	tok, inStr, esc, inLit := 0, false, false, false
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case inStr:
			if esc {
				esc = false
			} else if c == '\\' {
				esc = true
			} else if c == '"' {
				inStr = false
			}
			at(i, -1, false)
		case isSpace(c):
			inLit = false
			at(i, -1, true)
		case c == '"':
			inStr, inLit = true, false
			at(i, tok, false)
			tok++
		case c == '{' || c == '}' || c == '[' || c == ']' || c == ':' || c == ',':
			inLit = false
			at(i, tok, false)
			tok++
		case inLit:
			at(i, -1, false)
		default:
			inLit = true
			at(i, tok, false)
			tok++
		}
	}
	return tok
}

// compactLine removes the white space between the tokens of a line and
// returns where it stood.
func compactLine(line []byte) ([]byte, []gap) {
	if compact(line) {
		return line, nil // what the scan below gives such a line, at once
	}
	var out []byte
	var gaps []gap
	var ws []byte
	n := scanTokens(line, func(i, tok int, isWS bool) {
		if isWS {
			if out == nil {
				out = append(make([]byte, 0, len(line)), line[:i]...)
			}
			ws = append(ws, line[i])
			return
		}
		if tok >= 0 && len(ws) > 0 {
			gaps = append(gaps, gap{tok, string(ws)})
			ws = ws[:0]
		}
		if out != nil {
			out = append(out, line[i])
		}
	})
	if out == nil {
		return line, nil
	}
	if len(ws) > 0 {
		gaps = append(gaps, gap{n, string(ws)})
	}
	if cap(out) > 2*len(out) {
		// Mostly white space: a buffer of the line's size would be kept
		// alive by what is read from the compact line in place.
		out = append([]byte(nil), out...)
	}
	return out, gaps
}

// compact reports whether line has no white space between its tokens:
// none outside its strings, which are read as scanTokens reads them (a
// backslash escapes the byte after it; an unclosed one runs to the end).
func compact(line []byte) bool {
	s := unsafe.String(unsafe.SliceData(line), len(line))
	for i := 0; i < len(s); {
		switch c := s[i]; {
		case c == '"':
			i, _ = jsonenc.SkipQuoted(s, i)
		case isSpace(c):
			return false
		default:
			i++
		}
	}
	return true
}

// applyLayout puts white space back between the tokens of a compact line.
func applyLayout(b []byte, gaps []gap) []byte {
	if len(gaps) == 0 {
		return b
	}
	out := make([]byte, 0, len(b)+16)
	j := 0
	scanTokens(b, func(i, tok int, _ bool) {
		if tok >= 0 && j < len(gaps) && gaps[j].At <= tok {
			for j < len(gaps) && gaps[j].At <= tok {
				out = append(out, gaps[j].S...)
				j++
			}
		}
		out = append(out, b[i])
	})
	for ; j < len(gaps); j++ {
		out = append(out, gaps[j].S...)
	}
	return out
}
