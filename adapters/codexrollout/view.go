package codexrollout

import (
	"time"

	"github.com/evtool/evtool/internal/jsonobj"
	"github.com/tidwall/gjson"
)

// form is the shape of a rollout line, told by its keys alone: the
// decoder, the checker and the store read lines the same way.
type form uint8

const (
	formOther    form = iota // not an object, or an object of none of the shapes below
	formEnvelope             // {timestamp, [ordinal], type, payload, [metadata]}: Codex 0.3x and later
	formHeader               // the mid-2025 format's first line: {id, timestamp, instructions, git, …}
	formState                // the mid-2025 format's {"record_type":"state"} marker
	formBare                 // the mid-2025 format's bare history item: a ResponseItem, no timestamp
)

// view is one line, read once.
type view struct {
	root    gjson.Result
	form    form
	typ     string       // the envelope's type, a bare item's type, a marker's record_type
	ptype   string       // the payload's type (response_item, event_msg), a bare item's type
	payload gjson.Result // the envelope's payload; the line itself for the other forms
	ts      gjson.Result // the envelope's timestamp, if any
	ordinal gjson.Result // the envelope's ordinal, if any
}

// read reads a line's shape. A line with a payload is a rollout line,
// whatever else it lacks (its decoder reports what); a line without one
// is of the mid-2025 format: a marker by its record_type, a history item
// by its type, else a header.
func read(root gjson.Result) view {
	v := view{root: root, payload: root}
	if !root.IsObject() {
		return v
	}
	var typ, rec, payload gjson.Result
	// One pass that skips the values it does not keep (gjson's ForEach
	// would read each through), the last of a repeated key as gjson's
	// ForEach leaves it; the kept ones completed as it completes them.
	jsonobj.ForEachRaw(root, func(k, e gjson.Result) bool {
		switch k.Str {
		case "type":
			typ = e
		case "payload":
			payload = e
		case "record_type":
			rec = e
		case "timestamp":
			v.ts = e
		case "ordinal":
			v.ordinal = e
		}
		return true
	})
	typ, rec, payload = jsonobj.Full(typ), jsonobj.Full(rec), jsonobj.Full(payload)
	v.ts, v.ordinal = jsonobj.Full(v.ts), jsonobj.Full(v.ordinal)
	switch {
	case payload.Exists():
		v.form, v.payload = formEnvelope, payload
		if typ.Type == gjson.String {
			v.typ = typ.Str
		}
		if (v.typ == "response_item" || v.typ == "event_msg") && payload.IsObject() {
			if t := jsonobj.Lookup(payload, "type"); t.Type == gjson.String {
				v.ptype = t.Str
			}
		}
	case rec.Exists():
		v.form = formState
		if rec.Type == gjson.String {
			v.typ = rec.Str
		}
	case typ.Exists():
		v.form = formBare
		if typ.Type == gjson.String {
			v.typ, v.ptype = typ.Str, typ.Str
		}
	case isLegacyHeader(root):
		v.form = formHeader
	}
	return v
}

// sourceType names the line's type for unknown events and provenance:
// the envelope's type and its payload's ("event_msg/token_count"), a bare
// item's type, "state" for a marker and "header" for the bare header.
func (v *view) sourceType() string {
	switch v.form {
	case formEnvelope:
		if v.ptype != "" {
			return v.typ + "/" + v.ptype
		}
		return v.typ
	case formBare:
		return v.typ
	case formState:
		return "state"
	case formHeader:
		return "header"
	}
	return ""
}

// legacy reports whether the line is of the mid-2025 format.
func (v *view) legacy() bool {
	return v.form == formHeader || v.form == formState || v.form == formBare
}

// isSessionMeta reports whether the line is a session header, of either
// format.
func (v *view) isSessionMeta() bool {
	return v.form == formHeader || (v.form == formEnvelope && v.typ == "session_meta" && v.payload.IsObject())
}

// timeOf reads a line's timestamp. Codex writes UTC with milliseconds
// ("2025-09-19T09:02:12.457Z"); any RFC 3339 time is read.
func timeOf(ts gjson.Result) (time.Time, bool) {
	if ts.Type != gjson.String {
		return time.Time{}, false
	}
	t, err := time.Parse(time.RFC3339Nano, ts.Str)
	return t, err == nil
}

// canonLayout is the canonical model's time form: UTC, microseconds.
const canonLayout = "2006-01-02T15:04:05.000000Z"

// canonicalTime renders a timestamp in the canonical form; exact is false
// when the canonical form cannot hold it (a text that is no RFC 3339
// time, or finer than a microsecond), and the line's residue keeps it.
func canonicalTime(ts gjson.Result) (canon string, exact bool) {
	t, ok := timeOf(ts)
	if !ok {
		return "", false
	}
	return t.UTC().Format(canonLayout), t.Nanosecond()%1000 == 0
}
