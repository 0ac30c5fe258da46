package event

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"
	"sync"

	"github.com/evtool/evtool/internal/jsonenc"
	"github.com/evtool/evtool/internal/jsonobj"
	"github.com/tidwall/gjson"
)

// Envelope keys in the order they are written. Body fields come between
// "synthetic" and "src".
var envelopeKeys = map[string]bool{
	"seq": true, "type": true, "time": true, "turn_id": true, "agent_id": true,
	"synthetic": true, "src": true, "ext": true,
}

// Append appends the canonical JSON line of e to dst, without a newline.
func Append(dst []byte, e *Event) ([]byte, error) {
	return appendEvent(dst, e, nil)
}

// Write writes the canonical JSON line of e to w, with its newline, as
// Append makes it. buf is room to make the line in, which Write returns
// (emptied) for the next line. A long value (a text, a raw input or
// output, of 256 KiB or more) is written straight to w, escaped a piece
// at a time, rather than into buf: a line with a 512 MiB text needs the
// text and 64 KiB more, not the text and the whole line again. w sees a
// line in several writes; a buffered writer joins them.
func Write(w io.Writer, buf []byte, e *Event) ([]byte, error) {
	sp := &spill{W: w}
	b, err := appendEvent(buf[:0], e, sp)
	if err != nil {
		return b[:0], err
	}
	b = sp.Flush(append(b, '\n'))
	return b, sp.Err
}

// spill writes the long values of a line straight to its writer (Write);
// a nil *spill appends every value (Append).
type spill = jsonenc.Spill

// spillRaw appends raw compacted (appendRaw), or writes it: the runs
// between white space are written from raw itself.
func spillRaw(sp *spill, dst []byte, raw json.RawMessage) []byte {
	if sp == nil || len(raw) < jsonenc.LongValue {
		return appendRaw(dst, raw)
	}
	dst = sp.Flush(dst)
	eachRun(sp, raw, func(sp *spill, run []byte) *spill {
		sp.Write(run)
		return sp
	})
	return dst
}

// appendEvent appends e's line to dst, with sp's long values written.
func appendEvent(dst []byte, e *Event, sp *spill) ([]byte, error) {
	if e.Body == nil {
		return dst, errors.New("event has no body")
	}
	first := true
	dst = append(dst, '{')
	dst = jsonenc.Key(dst, &first, "seq")
	dst = jsonenc.Uint(dst, e.Seq)
	dst = jsonenc.Key(dst, &first, "type")
	dst = jsonenc.String(dst, string(e.Body.Type()))
	if e.Time != "" {
		dst = jsonenc.Key(dst, &first, "time")
		dst = jsonenc.String(dst, e.Time)
	}
	if e.TurnID != "" {
		dst = jsonenc.Key(dst, &first, "turn_id")
		dst = jsonenc.String(dst, e.TurnID)
	}
	if e.AgentID != "" {
		dst = jsonenc.Key(dst, &first, "agent_id")
		dst = jsonenc.String(dst, e.AgentID)
	}
	if e.Synthetic {
		dst = jsonenc.Key(dst, &first, "synthetic")
		dst = append(dst, "true"...)
	}
	if out, ok := appendBody(dst, e.Body, &first, sp); ok {
		dst = out
	} else {
		// A Body type from outside the model: encoding/json's way.
		body, err := marshalBody(e.Body)
		if err != nil {
			return dst, fmt.Errorf("%s: %w", e.Body.Type(), err)
		}
		if len(body) > 2 { // not "{}"
			dst = append(dst, ',')
			dst = sp.Verbatim(dst, body[1:len(body)-1])
		}
	}
	if e.Src != nil {
		dst = jsonenc.Key(dst, &first, "src")
		f := true
		dst = append(dst, '{')
		dst = jsonenc.Key(dst, &f, "dialect")
		dst = jsonenc.String(dst, e.Src.Dialect)
		dst = jsonenc.Key(dst, &f, "line")
		dst = jsonenc.Int(dst, int64(e.Src.Line))
		if e.Src.Type != "" {
			dst = jsonenc.Key(dst, &f, "type")
			dst = jsonenc.String(dst, e.Src.Type)
		}
		dst = append(dst, '}')
	}
	if len(e.Ext) > 0 {
		dst = jsonenc.Key(dst, &first, "ext")
		dst = appendExt(dst, e.Ext, sp)
	}
	for _, f := range e.Extra {
		dst = jsonenc.Key(dst, &first, f.Key)
		dst = sp.Verbatim(dst, f.Value)
	}
	return append(dst, '}'), nil
}

// appendExt writes ext, which Set keeps sorted by dialect.
func appendExt(dst []byte, ext Ext, sp *spill) []byte {
	first := true
	dst = append(dst, '{')
	for _, e := range ext {
		dst = jsonenc.Key(dst, &first, e.Dialect)
		dst = sp.Verbatim(dst, e.Raw)
	}
	return append(dst, '}')
}

//go:generate go run ./internal/gencodec

// The readers the generated parse functions use. Each reads one value e at
// pointer ptr, or reports why it cannot.

func readString(p *string, e gjson.Result, ptr string) error {
	if e.Type != gjson.String {
		return &FieldError{Pointer: ptr, Msg: "got " + jsonobj.TypeName(e) + ", want a string"}
	}
	*p = e.Str
	return nil
}

func readUint(p *uint64, e gjson.Result, ptr string) error {
	n, msg := jsonobj.ParseUint(e, jsonobj.U64)
	if msg != "" {
		return &FieldError{Pointer: ptr, Msg: msg}
	}
	*p = n
	return nil
}

func readInt(p *int64, e gjson.Result, ptr string) error {
	n, msg := jsonobj.ParseInt(e, jsonobj.I64)
	if msg != "" {
		return &FieldError{Pointer: ptr, Msg: msg}
	}
	*p = n
	return nil
}

func readBool(p *bool, e gjson.Result, ptr string) error {
	if !e.IsBool() {
		return &FieldError{Pointer: ptr, Msg: "got " + jsonobj.TypeName(e) + ", want a boolean"}
	}
	*p = e.Bool()
	return nil
}

func readRaw(p *json.RawMessage, e gjson.Result) error {
	*p = json.RawMessage(e.Raw)
	return nil
}

func readNumber(p *json.Number, e gjson.Result, ptr string) error {
	if e.Type != gjson.Number {
		return &FieldError{Pointer: ptr, Msg: "got " + jsonobj.TypeName(e) + ", want a number"}
	}
	*p = json.Number(e.Raw)
	return nil
}

func readObject(e gjson.Result, ptr string, read func() error) error {
	if !e.IsObject() {
		return &FieldError{Pointer: ptr, Msg: "got " + jsonobj.TypeName(e) + ", want an object"}
	}
	return read()
}

func readArray(e gjson.Result, ptr string, make func(n int), read func(i int, a gjson.Result, ptr string) error) error {
	if !e.IsArray() {
		return &FieldError{Pointer: ptr, Msg: "got " + jsonobj.TypeName(e) + ", want an array"}
	}
	n := 0
	jsonobj.ForEach(e, func(_, _ gjson.Result) bool { n++; return true })
	make(n)
	i := 0
	var err error
	jsonobj.ForEach(e, func(_, a gjson.Result) bool {
		err = read(i, a, ptr+"/"+strconv.Itoa(i))
		i++
		return err == nil
	})
	return err
}

// appendRaw appends a raw JSON value without the white space between its
// tokens, as encoding/json writes a json.RawMessage. The value is trusted to
// be JSON: it comes from a line the syntax check passed, or from an
// encoder of evtool's.
func appendRaw(dst []byte, raw json.RawMessage) []byte {
	return eachRun(dst, raw, appendRun)
}

func appendRun(dst, run []byte) []byte { return append(dst, run...) }

// eachRun passes each run of raw between white space outside its
// strings, in order, to f with acc, and returns the last acc f returned:
// f sees raw without that white space.
func eachRun[T any](acc T, raw []byte, f func(acc T, run []byte) T) T {
	start := 0
	for i := 0; i < len(raw); {
		switch c := raw[i]; c {
		case '"':
			i = jsonenc.SkipString(raw, i)
		case ' ', '\t', '\n', '\r':
			if i > start {
				acc = f(acc, raw[start:i])
			}
			for i < len(raw) && (raw[i] == ' ' || raw[i] == '\t' || raw[i] == '\n' || raw[i] == '\r') {
				i++
			}
			start = i
		default:
			i++
		}
	}
	if start < len(raw) {
		acc = f(acc, raw[start:])
	}
	return acc
}

// appendNumber appends a number as its text.
func appendNumber(dst []byte, n json.Number) []byte { return append(dst, n...) }

var bufPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// marshalBody encodes a body without HTML escaping, so text survives as
// written.
func marshalBody(b Body) ([]byte, error) {
	buf := bufPool.Get().(*bytes.Buffer)
	defer bufPool.Put(buf)
	buf.Reset()
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(b); err != nil {
		return nil, err
	}
	out := bytes.TrimRight(buf.Bytes(), "\n")
	if out[0] != '{' {
		return nil, fmt.Errorf("body encodes as %s, not an object", out)
	}
	return out, nil
}

// A FieldError is a value of a canonical line that does not fit the model.
type FieldError struct {
	Pointer string // JSON pointer of the offending value
	Msg     string
}

func (e *FieldError) Error() string { return e.Pointer + ": " + e.Msg }

// Parse decodes one canonical JSON line. The line must be valid JSON; Parse
// reports a FieldError when a known field has the wrong type. Top-level keys
// the model does not know are kept in Extra.
func Parse(line []byte) (*Event, error) { return ParseOwn(line, false) }

// ParseOwn is Parse of a line whose bytes are a buffer of their own that
// nothing writes again (own; see jsonobj.ParseLine): the line is read in
// place, not copied first, and the event's strings keep it alive as they
// would keep the copy. A long line then stands once in memory, not twice.
func ParseOwn(line []byte, own bool) (*Event, error) {
	root := jsonobj.ParseLine(line, own)
	if !root.IsObject() {
		return nil, &FieldError{Pointer: "", Msg: "a canonical line must be a JSON object"}
	}
	tv := root.Get("type")
	if !tv.Exists() {
		return nil, &FieldError{Pointer: "/type", Msg: "missing"}
	}
	if tv.Type != gjson.String {
		return nil, &FieldError{Pointer: "/type", Msg: "must be a string"}
	}
	t := Type(tv.Str)
	body := newBody(t)
	if body == nil {
		return nil, &FieldError{Pointer: "/type", Msg: fmt.Sprintf("unknown canonical event type %q", tv.Str)}
	}
	known := bodyKeys(t)
	e := &Event{Body: body}
	var ferr error
	jsonobj.ForEach(root, func(k, v gjson.Result) bool {
		key := k.Str
		switch key {
		case "seq":
			n, msg := jsonobj.ParseUint(v, jsonobj.U64)
			if msg != "" {
				ferr = &FieldError{Pointer: "/seq", Msg: msg}
				return false
			}
			e.Seq = n
		case "type":
		case "time", "turn_id", "agent_id":
			if v.Type != gjson.String {
				ferr = &FieldError{Pointer: "/" + key, Msg: "must be a string"}
				return false
			}
			switch key {
			case "time":
				e.Time = v.Str
			case "turn_id":
				e.TurnID = v.Str
			default:
				e.AgentID = v.Str
			}
		case "synthetic":
			if !v.IsBool() {
				ferr = &FieldError{Pointer: "/synthetic", Msg: "must be a boolean"}
				return false
			}
			e.Synthetic = v.Bool()
		case "src":
			var s Source
			if err := json.Unmarshal([]byte(v.Raw), &s); err != nil {
				ferr = &FieldError{Pointer: "/src", Msg: err.Error()}
				return false
			}
			e.Src = &s
		case "ext":
			if !v.IsObject() {
				ferr = &FieldError{Pointer: "/ext", Msg: "must be an object"}
				return false
			}
			e.Ext = Ext{}
			jsonobj.ForEach(v, func(dk, dv gjson.Result) bool {
				e.Ext.Set(dk.Str, json.RawMessage(dv.Raw))
				return true
			})
		default:
			if !known[key] {
				e.Extra = append(e.Extra, RawField{Key: key, Value: json.RawMessage(v.Raw)})
			}
		}
		return true
	})
	if ferr != nil {
		return nil, ferr
	}
	if err, ok := parseBody(body, root); ok {
		if err != nil {
			return nil, err
		}
		return e, nil
	}
	if err := json.Unmarshal(line, body); err != nil { // a body from outside the model
		return nil, bodyError(err)
	}
	return e, nil
}

func bodyError(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		ptr := "/" + strings.ReplaceAll(te.Field, ".", "/")
		return &FieldError{Pointer: ptr, Msg: fmt.Sprintf("cannot hold a JSON %s (want %s)", te.Value, te.Type)}
	}
	return &FieldError{Msg: err.Error()}
}

var keyCache sync.Map // Type → map[string]bool

// bodyKeys returns the JSON keys of a type's body fields.
func bodyKeys(t Type) map[string]bool {
	if m, ok := keyCache.Load(t); ok {
		return m.(map[string]bool)
	}
	m := map[string]bool{}
	rt := reflect.TypeOf(newBody(t)).Elem()
	for i := 0; i < rt.NumField(); i++ {
		tag := rt.Field(i).Tag.Get("json")
		name, _, _ := strings.Cut(tag, ",")
		if name != "" && name != "-" {
			m[name] = true
		}
	}
	keyCache.Store(t, m)
	return m
}

// Fields returns the JSON keys a canonical line of type t may carry: the
// envelope and the body fields. It reports false for a type not in the model.
func Fields(t Type) (map[string]bool, bool) {
	if newBody(t) == nil {
		return nil, false
	}
	out := map[string]bool{}
	for k := range envelopeKeys {
		out[k] = true
	}
	for k := range bodyKeys(t) {
		out[k] = true
	}
	return out, true
}

// Position returns the JSON pointer of the offending value.
func (e *FieldError) Position() string { return e.Pointer }
