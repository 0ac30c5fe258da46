package codex

import (
	"strconv"
	"strings"

	"github.com/evtool/evtool/internal/jsonobj"
	"github.com/evtool/evtool/internal/openset"
	"github.com/tidwall/gjson"
)

// state is what a stream's lines so far tell about the lines to come: the
// thread, the process the lines belong to, the next item id Codex would
// assign, the items still open, the open to-do list. It is built from the
// lines alone (commit), so the decoder, which commits each line it reads,
// and the encoder, which commits each line it writes, hold the same state
// at the same point of a stream.
//
// A stream is one thread: the output of one `codex exec` process, or of
// several (`codex exec resume`) written one after the other. Each process
// writes its own thread.started and then one turn, and numbers its items
// from item_0 again; so thread.started begins a process and resets what
// belongs to one. A thread.started of another thread (two runs' output
// appended to one file, which codex/thread-changed reports) begins that
// thread's running usage from zero.
type state struct {
	header bool   // thread.started was seen
	thread string // the thread_id of the first thread.started
	cur    string // the thread_id of the current process's thread.started
	procs  int    // thread.started lines seen: the number of the current process
	turn   bool   // a turn is open
	ended  bool   // the current process's turn ended: a next line begins a new process
	next   uint64 // N of the item_N id of the next new item
	open   openItems
	todo   string // id of the open todo_list item, "" if none
	usage  counts // the thread's running usage, as the last turn.completed wrote it
	spent  counts // the running usage of the threads before the current one, summed
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

// openItems are the items still open, each packed into one string in an
// openset: a stream may leave millions of calls open, and a Go map of
// openItem values took about a kilobyte a call (120,000 open calls: 147
// MiB to convert a codex stream).
type openItems struct {
	set  openset.Set          // Name: the item, packed (packItem)
	big  map[string]*openItem // an item whose fields are long (a command of megabytes), kept whole
	adds int                  // items put so far: each entry's line
}

// maxPacked bounds a packed item: a larger one is kept whole, so that
// reading it, at each of its lines, does not copy it out of the set.
const maxPacked = 4 << 10

// get returns the open item id, or nil.
func (o *openItems) get(id string) *openItem {
	if it, ok := o.big[id]; ok {
		return it
	}
	e, ok := o.set.Get(id)
	if !ok {
		return nil
	}
	return unpackItem(e.Name)
}

// put sets the open item id.
func (o *openItems) put(id string, it *openItem) {
	o.del(id)
	if p := packItem(it); len(p) <= maxPacked {
		o.adds++
		o.set.Add(id, o.adds, p)
		return
	}
	if o.big == nil {
		o.big = map[string]*openItem{}
	}
	o.big[strings.Clone(id)] = it
}

func (o *openItems) del(id string) {
	o.set.Delete(id)
	delete(o.big, id)
}

func (o *openItems) clear() { *o = openItems{} }

// packItem writes an item as its type and its fields' keys and values.
func packItem(it *openItem) string {
	f := make([]string, 0, 1+2*len(it.fields))
	f = append(f, it.typ)
	for _, x := range it.fields {
		f = append(f, x.key, x.raw)
	}
	return openset.Pack(f...)
}

func unpackItem(s string) *openItem {
	f := openset.Fields(nil, s)
	it := &openItem{typ: f[0], fields: make([]field, 0, len(f)/2)}
	for i := 1; i+1 < len(f); i += 2 {
		it.fields = append(it.fields, field{f[i], f[i+1]})
	}
	return it
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
func (st *state) commit(line []byte) { st.commitRoot(gjson.ParseBytes(line)) }

// commitRoot is commit of a line already parsed.
func (st *state) commitRoot(r gjson.Result) {
	t := r.Get("type").Str
	// A line after the process's turn ended that is not a thread.started
	// stays in that process (a stream Codex does not write); the line
	// after it begins no new process either.
	st.ended = false
	switch t {
	case "thread.started":
		id := r.Get("thread_id").Str
		if !st.header {
			st.header = true
			st.thread = strings.Clone(id)
		}
		if id != "" && st.cur != "" && id != st.cur {
			// Another thread: its total starts from zero.
			st.spent, st.usage = st.spent.add(st.usage), counts{}
		}
		if id != "" && id != st.cur {
			st.cur = strings.Clone(id)
		}
		st.procs++
		st.turn, st.ended, st.next, st.todo = false, false, 0, ""
		st.open.clear()
	case "turn.started":
		st.turn = true
	case "turn.completed", "turn.failed":
		st.turn, st.ended = false, true
		if u := r.Get("usage"); t == "turn.completed" && u.IsObject() {
			if c, err := readCounts(u); err == nil {
				st.usage = c
			}
		}
	case "item.started", "item.updated", "item.completed":
		item := r.Get("item")
		if !item.IsObject() {
			return
		}
		id, id2, has2 := itemID(item)
		o := st.open.get(id)
		if o == nil {
			st.advance(id)
		}
		typ := item.Get("type").Str
		if t == "item.completed" {
			if o != nil {
				st.open.del(id)
			}
			if st.todo == id {
				st.todo = ""
			}
			return
		}
		if o == nil {
			o = &openItem{}
		}
		defer st.open.put(id, o) // packed once its fields are read
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

// callID returns the canonical call id of an item of the current
// process. Codex numbers the items of every process from item_0, while a
// canonical call id names one call in the whole session: from the second
// process on, the id is the item id followed by "#" and the process's
// number.
func (st *state) callID(item string) string {
	if st.procs < 2 {
		return item
	}
	return item + "#" + strconv.Itoa(st.procs)
}

// itemIDOf is callID's way back: the item id of a canonical call id of the
// current process.
func (st *state) itemIDOf(call string) string {
	if st.procs < 2 {
		return call
	}
	return strings.TrimSuffix(call, "#"+strconv.Itoa(st.procs))
}

// nextID returns the id Codex would give the next new item.
func (st *state) nextID() string { return "item_" + strconv.FormatUint(st.next, 10) }
