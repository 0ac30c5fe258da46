package acp

import (
	"encoding/json"
	"strconv"
	"unsafe"

	"github.com/evtool/evtool/internal/jsonenc"
)

// obj is a JSON object under construction, its keys in the order added.
// Strings and nested objects are kept as they are and written once, into
// the message's own buffer: a tool's output is escaped and copied once
// per message, not once per level of nesting.
type obj []field

// field is one key and its value: raw JSON or a string (in s), or an
// object.
type field struct {
	k    string
	s    string
	o    obj
	kind fieldKind
}

type fieldKind uint8

const (
	rawField fieldKind = iota
	strField
	objField
)

// add appends raw JSON. raw is not copied: it must not change after.
func (o obj) add(k string, raw []byte) obj {
	return append(o, field{k: k, s: unsafe.String(unsafe.SliceData(raw), len(raw))})
}

func (o obj) str(k, v string) obj { return append(o, field{k: k, s: v, kind: strField}) }

func (o obj) num(k string, n int) obj { return o.add(k, strconv.AppendInt(nil, int64(n), 10)) }

func (o obj) sub(k string, v obj) obj { return append(o, field{k: k, o: v, kind: objField}) }

func (o obj) raw(k string, v json.RawMessage) obj {
	if len(v) == 0 {
		return o
	}
	return o.add(k, v)
}

// size is about the length of o written: a capacity, not a promise.
func (o obj) size() int {
	n := 2
	for _, f := range o {
		n += len(f.k) + 4
		switch f.kind {
		case rawField:
			n += len(f.s)
		case strField:
			n += len(f.s) + len(f.s)/16 + 2
		case objField:
			n += f.o.size()
		}
	}
	return n
}

// appendTo appends o written as JSON.
func (o obj) appendTo(b []byte) []byte {
	b = append(b, '{')
	first := true
	for _, f := range o {
		b = jsonenc.Key(b, &first, f.k)
		switch f.kind {
		case rawField:
			b = append(b, f.s...)
		case strField:
			b = jsonenc.String(b, f.s)
		case objField:
			b = f.o.appendTo(b)
		}
	}
	return append(b, '}')
}

func (o obj) bytes() []byte { return o.appendTo(make([]byte, 0, o.size())) }

func arr(items ...obj) []byte {
	n := 2
	for _, it := range items {
		n += it.size() + 1
	}
	b := make([]byte, 0, n)
	b = append(b, '[')
	for i, it := range items {
		if i > 0 {
			b = append(b, ',')
		}
		b = it.appendTo(b)
	}
	return append(b, ']')
}

// sf, of and rf are fields, for objects written as literals: a literal is
// one allocation (or none), where growing an object field by field is
// three. They are for the messages written most often.
func sf(k, v string) field     { return field{k: k, s: v, kind: strField} }
func of(k string, v obj) field { return field{k: k, o: v, kind: objField} }

// text is a text ContentBlock.
func text(s string) obj { return obj{sf("type", "text"), sf("text", s)} }

// textContent is a ToolCallContent holding text.
func textContent(s string) obj { return obj{sf("type", "content"), of("content", text(s))} }
