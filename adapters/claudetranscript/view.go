package claudetranscript

import (
	"strings"

	"github.com/evtool/evtool/internal/jsonobj"
	"github.com/tidwall/gjson"
)

// getter is what the decoder reads a line or its message with: a
// gjson.Result, or fields.
type getter interface {
	Get(path string) gjson.Result
}

// fields is an object's members, found in one pass over it. The decoder
// asks a line for twenty-odd of its top-level fields, and Claude Code
// writes type, uuid and timestamp after the message, which carries the
// text, thinking and tool output: asked of a gjson.Result, each field is
// a scan of the line from its start, over that content, again and again.
// Here the line is scanned once (jsonobj skips strings eight bytes at a
// time), and a value is completed (unescaped) only when it is asked for.
// The message's members are indexed the same way, once asked for.
type fields struct {
	keys []string
	vals []gjson.Result
	full []bool
	msg  *fields // message's members, once asked for
	msgd bool    // msg is loaded for this line
}

// reset loads the members of r; nothing when r is not an object.
func (o *fields) reset(r gjson.Result) {
	o.keys, o.vals, o.full, o.msgd = o.keys[:0], o.vals[:0], o.full[:0], false
	if !r.IsObject() {
		return
	}
	jsonobj.ForEachRaw(r, func(k, v gjson.Result) bool {
		o.keys = append(o.keys, k.Str)
		o.vals = append(o.vals, v)
		o.full = append(o.full, false)
		return true
	})
}

// member returns the value of key k, the first if it is repeated (as
// gjson's Get does), completed.
func (o *fields) member(k string) gjson.Result {
	if o == nil {
		return gjson.Result{} // a line of none (End's)
	}
	for i, key := range o.keys {
		if key == k {
			if !o.full[i] {
				o.vals[i], o.full[i] = jsonobj.Full(o.vals[i]), true
			}
			return o.vals[i]
		}
	}
	return gjson.Result{}
}

// message returns the members of the line's message.
func (o *fields) message() *fields {
	if o == nil {
		return nil
	}
	if o.msg == nil {
		o.msg = &fields{}
	}
	if !o.msgd {
		o.msg.reset(o.member("message"))
		o.msgd = true
	}
	return o.msg
}

// Get implements getter for paths of plain keys: "type",
// "message.content", "toolUseResult.agentId".
func (o *fields) Get(path string) gjson.Result {
	head, rest, dotted := strings.Cut(path, ".")
	switch {
	case !dotted:
		return o.member(path)
	case head == "message":
		return o.message().Get(rest)
	}
	return o.member(head).Get(rest)
}

// eachBlock calls f with the members of each element of a message's
// content, until f returns false (for a content that is no array, once
// with its members, or none, as gjson's ForEach would give them). The
// fields f gets are valid until f returns.
func eachBlock(c gjson.Result, f func(b *fields) bool) {
	var b fields
	jsonobj.ForEachRaw(c, func(_, e gjson.Result) bool {
		b.reset(e)
		return f(&b)
	})
}
