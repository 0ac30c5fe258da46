package geminichat

import (
	"fmt"
	"strconv"

	"github.com/evtool/evtool/adapters/internal/geminicli"
	"github.com/evtool/evtool/internal/jsonobj"
	"github.com/evtool/evtool/internal/jsonptr"
	"github.com/tidwall/gjson"
)

// DecodeError is a known Gemini CLI field with a value the producer's
// types do not allow: it names the value by its JSON pointer and says what
// it got and what it wants.
type DecodeError = jsonobj.FieldError

// faults keeps the first field error met while reading a line.
type faults struct{ err *DecodeError }

func (f *faults) fail(ptr, format string, args ...any) {
	if f.err == nil {
		f.err = &DecodeError{Pointer: ptr, Msg: fmt.Sprintf(format, args...)}
	}
}

func (f *faults) error() error {
	if f.err == nil {
		return nil
	}
	return f.err
}

// str reads an optional string.
func (f *faults) str(ptr string, v gjson.Result) string {
	if v.Exists() && v.Type != gjson.String {
		f.fail(ptr, "got %s, want a string", jsonobj.TypeName(v))
	}
	return v.Str
}

// record is one message record, read whole: what the decoder emits when
// the record is final. Its strings and values point into raw.
type record struct {
	raw  string // the record's JSON
	n    int    // its line
	id   string
	typ  string
	ts   stamp
	text content // content
	// shown is displayContent, what the CLI showed for the record, when
	// it has one.
	shown *content
	// gemini records
	model    string
	tokens   *tokens // nil: absent or null
	thoughts []thought
	calls    []call
}

// stamp is a timestamp: the canonical time, and whether the text is
// Gemini CLI's own form (else the residue keeps the text).
type stamp struct {
	time  string
	exact bool
	set   bool
}

func readStamp(f *faults, ptr string, v gjson.Result) stamp {
	s := f.str(ptr, v)
	if !v.Exists() || v.Type != gjson.String {
		return stamp{}
	}
	t, exact := geminicli.CanonTime(s)
	return stamp{time: t, exact: exact, set: true}
}

// thought is one of a gemini record's ThoughtSummaries.
type thought struct {
	subject, description string
	ts                   stamp
	raw                  string // the whole object, kept when it holds more than the event
	more                 bool
}

// call is one ToolCallRecord.
type call struct {
	raw           gjson.Result
	id, name      string
	args          string // raw JSON, "" when absent
	status        string
	ts            stamp
	agentID       string
	description   string
	result        gjson.Result
	resultDisplay gjson.Result
}

// readRecord reads a message record whole, or says which of its known
// fields has a value Gemini CLI's types do not allow. o is the decoder's
// list of members, reused from record to record.
func readRecord(o *jsonobj.Object, r gjson.Result, n int) (*record, error) {
	var f faults
	rec := &record{raw: r.Raw, n: n}
	var tokensV gjson.Result
	// The members are read once, in one pass over the record (its content
	// may be long): the type first, for it says which keys are the
	// record's own wherever it stands among them, then each member, its
	// value completed, as jsonobj.ForEach gives them.
	o.Reset(r)
	defer o.Reset(gjson.Result{}) // keep none of the record's values alive
	typ, _ := o.First("type")
	_, content := o.First("content")
	rec.typ = f.str("/type", typ)
	for i := range o.Len() {
		k, v := o.At(i)
		ptr := "/" + jsonptr.Escape(k)
		switch k {
		case "id":
			rec.id = v.Str // classify saw a string
		case "timestamp":
			rec.ts = readStamp(&f, ptr, v)
		case "content":
			rec.text = readContent(&f, ptr, v)
		case "displayContent":
			c := readContent(&f, ptr, v)
			rec.shown = &c
		case "model":
			if rec.typ == "gemini" {
				rec.model = f.str(ptr, v)
			}
		case "tokens":
			tokensV = v
		case "thoughts":
			rec.readThoughts(&f, v)
		case "toolCalls":
			rec.readCalls(&f, v)
		}
		if f.err != nil {
			break
		}
	}
	if !content {
		rec.text.plain = true
	}
	if tokensV.Exists() && rec.typ == "gemini" {
		switch {
		case tokensV.IsObject():
			t := readTokens(&f, "/tokens", tokensV)
			rec.tokens = &t
		case tokensV.Type != gjson.Null:
			f.fail("/tokens", "got %s, want an object or null", jsonobj.TypeName(tokensV))
		}
	}
	if err := f.error(); err != nil {
		return nil, err
	}
	return rec, nil
}

func (rec *record) readThoughts(f *faults, v gjson.Result) {
	if rec.typ != "gemini" {
		return // not a gemini record's field: kept as it is
	}
	if !v.IsArray() {
		f.fail("/thoughts", "got %s, want an array", jsonobj.TypeName(v))
		return
	}
	i := 0
	jsonobj.ForEach(v, func(_, e gjson.Result) bool {
		ptr := "/thoughts/" + strconv.Itoa(i)
		i++
		if !e.IsObject() {
			f.fail(ptr, "got %s, want an object", jsonobj.TypeName(e))
			return false
		}
		t := thought{raw: e.Raw}
		jsonobj.ForEach(e, func(k, x gjson.Result) bool {
			switch k.Str {
			case "subject":
				t.subject = f.str(ptr+"/subject", x)
			case "description":
				t.description = f.str(ptr+"/description", x)
			case "timestamp":
				t.ts = readStamp(f, ptr+"/timestamp", x)
				t.more = t.more || !t.ts.exact
			default:
				t.more = true
			}
			return f.err == nil
		})
		rec.thoughts = append(rec.thoughts, t)
		return f.err == nil
	})
}

func (rec *record) readCalls(f *faults, v gjson.Result) {
	if rec.typ != "gemini" {
		return
	}
	if !v.IsArray() {
		f.fail("/toolCalls", "got %s, want an array", jsonobj.TypeName(v))
		return
	}
	i := 0
	jsonobj.ForEach(v, func(_, e gjson.Result) bool {
		ptr := "/toolCalls/" + strconv.Itoa(i)
		i++
		if !e.IsObject() {
			f.fail(ptr, "got %s, want an object", jsonobj.TypeName(e))
			return false
		}
		c := call{raw: e}
		jsonobj.ForEach(e, func(k, x gjson.Result) bool {
			p := ptr + "/" + jsonptr.Escape(k.Str)
			switch k.Str {
			case "id":
				c.id = f.str(p, x)
			case "name":
				c.name = f.str(p, x)
			case "args":
				c.args = x.Raw
			case "status":
				c.status = f.str(p, x)
			case "timestamp":
				c.ts = readStamp(f, p, x)
			case "agentId":
				c.agentID = f.str(p, x)
			case "description":
				c.description = f.str(p, x)
			case "result":
				c.result = x
			case "resultDisplay":
				c.resultDisplay = x
			case "displayName":
				f.str(p, x)
			case "renderOutputAsMarkdown":
				if !x.IsBool() {
					f.fail(p, "got %s, want a boolean", jsonobj.TypeName(x))
				}
			}
			return f.err == nil
		})
		if f.err == nil && !jsonobj.Lookup(e, "id").Exists() {
			f.fail(ptr, "got a tool call without id, want one with a string id")
		}
		rec.calls = append(rec.calls, c)
		return f.err == nil
	})
}

// isModelCall reports whether a gemini record is a model's response: it
// names its model or states its tokens. A gemini record with neither is
// one Gemini CLI made up (a history entry it synthesised), not a model
// call.
func (rec *record) isModelCall() bool { return rec.model != "" || rec.tokens != nil }
