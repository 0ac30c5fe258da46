package codex

import (
	"strconv"
	"strings"

	"github.com/evtool/evtool/internal/jsonobj"
	"github.com/tidwall/gjson"
)

// state is what a stream's lines so far tell about the lines to come: the
// next item id Codex would assign, the items still open, the open
// to-do list. It is built from the lines alone (commit), so the decoder,
// which commits each line it reads, and the encoder, which commits each
// line it writes, hold the same state at the same point of a stream.
type state struct {
	header bool   // thread.started was seen
	turn   bool   // a turn is open
	next   uint64 // N of the item_N id of the next new item
	open   map[string]*openItem
	todo   string // id of the open todo_list item, "" if none
}

// openItem is an item that started (or was updated) and has not
// completed: its type and the fields a later line of it repeats, as the
// last line wrote them.
type openItem struct {
	typ    string
	fields []field
}

type field struct {
	key, raw string
}

// get returns the raw value of a field the item's last line wrote.
func (o *openItem) get(k string) (string, bool) {
	if o == nil {
		return "", false
	}
	for _, f := range o.fields {
		if f.key == k {
			return f.raw, true
		}
	}
	return "", false
}

// staticKeys lists, per item type, the fields that stay the same from an
// item's start to its end; "id2" is web_search's second "id".
var staticKeys = map[string][]string{
	"command_execution": {"command"},
	"file_change":       {"changes"},
	"mcp_tool_call":     {"server", "tool", "arguments"},
	"web_search":        {"id2", "query", "action"},
	"collab_tool_call":  {"tool", "sender_thread_id", "receiver_thread_ids", "prompt"},
	"todo_list":         {"items"},
}

// toolItems are the item types that are tool calls.
var toolItems = map[string]bool{
	"command_execution": true, "file_change": true, "mcp_tool_call": true, "web_search": true, "collab_tool_call": true,
}

// itemID returns an item's id (its first "id" key) and web_search's
// second one, if any.
func itemID(item gjson.Result) (id, id2 string, hasID2 bool) {
	n := 0
	jsonobj.ForEach(item, func(k, v gjson.Result) bool {
		if k.Str != "id" {
			return true
		}
		if n == 0 {
			id = v.Str
		} else {
			id2, hasID2 = v.Raw, true
		}
		n++
		return n < 2
	})
	return id, id2, hasID2
}

// commit updates the state with a line that was read or written.
func (st *state) commit(line []byte) {
	r := gjson.ParseBytes(line)
	t := r.Get("type").Str
	switch t {
	case "thread.started":
		st.header = true
	case "turn.started":
		st.turn = true
	case "turn.completed", "turn.failed":
		st.turn = false
	case "item.started", "item.updated", "item.completed":
		item := r.Get("item")
		if !item.IsObject() {
			return
		}
		id, id2, has2 := itemID(item)
		o := st.open[id]
		if o == nil {
			st.advance(id)
		}
		typ := item.Get("type").Str
		if t == "item.completed" {
			if o != nil {
				delete(st.open, id)
			}
			if st.todo == id {
				st.todo = ""
			}
			return
		}
		if o == nil {
			if st.open == nil {
				st.open = map[string]*openItem{}
			}
			o = &openItem{}
			st.open[strings.Clone(id)] = o
		}
		o.typ = strings.Clone(typ)
		o.fields = o.fields[:0]
		for _, k := range staticKeys[typ] {
			if k == "id2" {
				if has2 {
					o.fields = append(o.fields, field{k, strings.Clone(id2)})
				}
				continue
			}
			if v := jsonobj.Lookup(item, k); v.Exists() {
				o.fields = append(o.fields, field{k, strings.Clone(v.Raw)})
			}
		}
		if typ == "todo_list" {
			st.todo = strings.Clone(id)
		}
	}
}

// advance moves the item counter past a new item's id: Codex numbers its
// items item_0, item_1, … in each process, and may skip a number (an
// empty reasoning summary is not written).
func (st *state) advance(id string) {
	if n, ok := itemNumber(id); ok && n < 1<<63 {
		st.next = n + 1
		return
	}
	st.next++
}

// itemNumber reads the N of an item_N id.
func itemNumber(id string) (uint64, bool) {
	s, ok := strings.CutPrefix(id, "item_")
	if !ok || s == "" || (len(s) > 1 && s[0] == '0') {
		return 0, false
	}
	n, err := strconv.ParseUint(s, 10, 64)
	return n, err == nil
}

// nextID returns the id Codex would give the next new item.
func (st *state) nextID() string { return "item_" + strconv.FormatUint(st.next, 10) }
