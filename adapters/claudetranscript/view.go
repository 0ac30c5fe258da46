package claudetranscript

import (
	"strings"
	"sync"
	"unsafe"

	"github.com/evtool/evtool/internal/jsonobj"
	"github.com/evtool/evtool/ndjson"
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
// Here the line's members are where the reading's syntax check found them
// (else it is scanned once, jsonobj skipping strings eight bytes at a
// time), and a value is completed (unescaped) only when it is asked for.
// The message's members are indexed the same way once asked for, and the
// blocks of its content in the same pass.
type fields struct {
	keys []string
	vals []gjson.Result
	full []bool
	msg  *fields // message's members, once asked for
	msgd bool    // msg is loaded for this line
	use  *fields // usage's members (of a message), once asked for
	used bool    // use is loaded for this line

	// The blocks of a message's content, read in the same pass as the
	// message (see message): the content's Raw ("" when they are not
	// kept), and each block's members in bk, bv and bf.
	content string
	elems   []span
	bk      []string
	bv      []gjson.Result
	bf      []bool
}

// span is where one block's members are in fields.bk, bv and bf.
type span struct{ from, to int }

// The most blocks, and members of blocks, a message's fields keep: Claude
// Code writes one block a line, and a content of more is read again
// block by block, in memory that does not grow with it.
const (
	maxBlocks       = 64
	maxBlockMembers = 512
)

// reset loads the members of r; nothing when r is not an object.
func (o *fields) reset(r gjson.Result) {
	o.load()
	if !r.IsObject() {
		return
	}
	jsonobj.ForEachRaw(r, func(k, v gjson.Result) bool {
		o.add(k, v)
		return true
	})
}

// resetMembers loads the members of root, a line, from where the syntax
// check found them (ndjson.CheckMembers) rather than reading the line
// again; nil members read it as reset does.
func (o *fields) resetMembers(root gjson.Result, ms []ndjson.Member) {
	if ms == nil || !root.IsObject() {
		o.reset(root)
		return
	}
	o.load()
	jsonobj.ForEachRawMember(root, ms, func(k, v gjson.Result) bool {
		o.add(k, v)
		return true
	})
}

// raw returns the value of key k as ForEachRaw gives it: a string with
// an escape in it has an empty Str (jsonobj.Text reads it). It is for a
// text a summary leaves out, or reads the start of (hasPrefix).
func (o *fields) raw(k string) gjson.Result {
	if o == nil {
		return gjson.Result{}
	}
	for i, key := range o.keys {
		if key == k {
			return o.vals[i]
		}
	}
	return gjson.Result{}
}

// hasPrefix reports whether the text of the string v, from ForEachRaw,
// begins with p, unescaping no more of it than p can take: each byte of
// text is written in at most six (\u0000; a surrogate pair, twelve for
// four), so the first 6·len(p)+12 bytes written hold at least the first
// len(p) of the text whole, whatever escape the cut falls in.
func hasPrefix(v gjson.Result, p string) bool {
	if v.Type != gjson.String {
		return false
	}
	if v.Str != "" || len(v.Raw) <= 2 {
		return strings.HasPrefix(v.Str, p)
	}
	body := v.Raw[1 : len(v.Raw)-1]
	return strings.HasPrefix(jsonobj.Unescape(body[:min(len(body), 6*len(p)+12)]), p)
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
		o.msg.resetMessage(o.member("message"))
		o.msgd = true
	}
	return o.msg
}

// resetMessage loads the members of a message, and the blocks of its
// content (an array) in the same pass: its content is read once, not
// once for the message's members and again for its blocks.
func (o *fields) resetMessage(r gjson.Result) {
	o.load()
	clear(o.bk)
	clear(o.bv)
	o.content, o.elems, o.bk, o.bv, o.bf = "", o.elems[:0], o.bk[:0], o.bv[:0], o.bf[:0]
	if !r.IsObject() {
		return
	}
	keep, from := true, 0
	jsonobj.ForEachRawIn(r, "content", func(k, v gjson.Result) bool {
		o.add(k, v)
		if keep && k.Str == "content" && v.IsArray() && o.content == "" {
			o.content = v.Raw // the array read block by block
		}
		return true
	}, func(k, v gjson.Result) {
		if keep = keep && len(o.bk) < maxBlockMembers; keep {
			o.bk, o.bv, o.bf = append(o.bk, k.Str), append(o.bv, v), append(o.bf, false)
		}
	}, func(gjson.Result) bool {
		if keep = keep && len(o.elems) < maxBlocks; keep {
			o.elems = append(o.elems, span{from, len(o.bk)})
			from = len(o.bk)
		}
		return true
	})
	if !keep {
		clear(o.bk)
		clear(o.bv)
		o.content, o.elems, o.bk, o.bv, o.bf = "", o.elems[:0], o.bk[:0], o.bv[:0], o.bf[:0]
	}
}

// eachBlock is eachBlock for c, a value of the message o: from the
// blocks read with the message when c is its content.
func (o *fields) eachBlock(c gjson.Result, f func(b *fields) bool) {
	if o == nil || o.content == "" || len(c.Raw) != len(o.content) || unsafe.StringData(c.Raw) != unsafe.StringData(o.content) {
		eachBlock(c, f)
		return
	}
	b := blocks.Get().(*fields)
	keys, vals, full := b.keys, b.vals, b.full
	for _, e := range o.elems {
		// The block's members, completed in place when asked for.
		b.keys, b.vals, b.full = o.bk[e.from:e.to:e.to], o.bv[e.from:e.to:e.to], o.bf[e.from:e.to:e.to]
		b.msgd, b.used = false, false
		if !f(b) {
			break
		}
	}
	b.keys, b.vals, b.full = keys, vals, full
	b.release()
}

// usage returns the members of a message's usage, which the decoder asks
// for its token counts twice (checkNumbers, account), and whether it is
// an object.
func (o *fields) usage() (*fields, bool) {
	if o == nil {
		return nil, false
	}
	if o.use == nil {
		o.use = &fields{}
	}
	u := o.member("usage")
	if !o.used {
		o.use.reset(u)
		o.used = true
	}
	return o.use, u.IsObject()
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
	b := blocks.Get().(*fields)
	defer b.release()
	// An element's members are read as the element is found.
	b.load()
	jsonobj.ForEachRawObjects(c, b.add, func(e gjson.Result) bool {
		if !c.IsArray() {
			b.reset(e)
		}
		more := f(b)
		b.load()
		return more
	})
}

// blocks are the fields eachBlock reads content blocks into: a result's
// content is read inside the loop over a message's.
var blocks = sync.Pool{New: func() any { return new(fields) }}

// load empties o for the members of the next object. The members it had
// are cleared, not only cut off: a value left behind the slice's end
// would keep its line's copy alive until a line of as many members
// overwrote it.
func (o *fields) load() {
	clear(o.keys)
	clear(o.vals)
	o.keys, o.vals, o.full, o.msgd, o.used = o.keys[:0], o.vals[:0], o.full[:0], false, false
}

// add adds a member to o.
func (o *fields) add(k, v gjson.Result) {
	o.keys = append(o.keys, k.Str)
	o.vals = append(o.vals, v)
	o.full = append(o.full, false)
}

// release returns the fields of eachBlock to the pool, keeping nothing of
// the line.
func (o *fields) release() {
	if cap(o.keys) > 1024 {
		return // a freak block: let its memory go
	}
	clear(o.keys[:cap(o.keys)])
	clear(o.vals[:cap(o.vals)])
	o.load()
	blocks.Put(o)
}
