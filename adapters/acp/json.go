package acp

import (
	"encoding/json"
	"strconv"

	"github.com/evtool/evtool/internal/jsonenc"
)

// obj is a JSON object under construction, its keys in the order added.
type obj []field

type field struct {
	k string
	v []byte // raw JSON
}

func (o obj) add(k string, raw []byte) obj { return append(o, field{k, raw}) }

func (o obj) str(k, v string) obj { return o.add(k, jsonenc.String(nil, v)) }

func (o obj) num(k string, n int) obj { return o.add(k, []byte(strconv.Itoa(n))) }

func (o obj) sub(k string, v obj) obj { return o.add(k, v.bytes()) }

func (o obj) raw(k string, v json.RawMessage) obj {
	if len(v) == 0 {
		return o
	}
	return o.add(k, v)
}

func (o obj) bytes() []byte {
	b := []byte{'{'}
	first := true
	for _, f := range o {
		b = jsonenc.Key(b, &first, f.k)
		b = append(b, f.v...)
	}
	return append(b, '}')
}

func arr(items ...obj) []byte {
	b := []byte{'['}
	for i, it := range items {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, it.bytes()...)
	}
	return append(b, ']')
}

// text is a text ContentBlock.
func text(s string) obj { return obj{}.str("type", "text").str("text", s) }

// textContent is a ToolCallContent holding text.
func textContent(s string) obj { return obj{}.str("type", "content").sub("content", text(s)) }
