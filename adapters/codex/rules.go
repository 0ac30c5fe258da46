package codex

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/evtool/evtool/adapters/internal/check"
	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/internal/idset"
	"github.com/evtool/evtool/internal/jsonobj"
	"github.com/evtool/evtool/internal/jsonptr"
	"github.com/evtool/evtool/internal/openset"
	"github.com/tidwall/gjson"
)

// rules is the catalogue of codex's stream rules (see dialect.RuleSet);
// docs/dialects/codex.md describes each rule.
var rules dialect.RuleSet

// The rules, in the order `evtool rules` and docs/rules.md list them.
var (
	ruleFirstLine = rules.Error("codex/first-line",
		"the first line is thread.started")
	ruleThreadChanged = rules.Error("codex/thread-changed",
		"every thread.started of a stream names the same thread (a stream is one thread: its processes one after the other)")
	ruleOneTurn = rules.Error("codex/one-turn-per-process",
		"a process runs one turn: a later turn begins with its own thread.started (codex exec resume)")
	ruleTurnStarted = rules.Error("codex/turn-started-twice",
		"turn.started comes only when no turn is open")
	ruleTurnNotStarted = rules.Error("codex/turn-not-started",
		"turn.completed and turn.failed end a turn that turn.started opened")
	ruleTruncated = rules.Error("codex/truncated",
		"every process's turn ends with turn.completed or turn.failed; without it (an interrupted or killed run) the process is incomplete")
	ruleOutsideTurn = rules.Warning("codex/outside-turn",
		"item events come inside a turn")
	ruleItemStarted = rules.Error("codex/item-started-twice",
		"an item starts once")
	ruleItemClosed = rules.Error("codex/item-closed",
		"nothing follows an item's item.completed (item ids are unique within a process)")
	ruleItemType = rules.Error("codex/item-type-changed",
		"an item keeps its type from start to end")
	ruleItemUnfinished = rules.Warning("codex/item-unfinished",
		"an item started in a turn completes before the turn ends")
	ruleItemStatus = rules.Warning("codex/item-status",
		"an item is in_progress until item.completed gives its final status")
	ruleUsageNested = rules.Warning("codex/usage-nested",
		"usage counts are not negative, cached and cache-write input lie within input_tokens, reasoning within output_tokens")
	ruleUsageDecreasing = rules.Warning("codex/usage-decreasing",
		"usage is the thread's running total: no count falls from one turn.completed to the next")
	ruleUnknownType = rules.Unknown("codex/unknown-type",
		"the type is one Codex is known to write (error under --strict)")
	ruleUnknownItemType = rules.Unknown("codex/unknown-item-type",
		"the item type is one Codex is known to write (error under --strict)")
	ruleUnknownField = rules.Unknown("codex/unknown-field",
		"every field is known for its type (error under --strict)")
	ruleUnknownValue = rules.Unknown("codex/unknown-value",
		"a status, kind, tool or action word is one Codex is known to write (error under --strict)")
)

// item is an open item: started or updated, not completed.
type item struct {
	typ   string
	first int // line of its first event
	turn  int // the turn it began in, 0 outside any
}

// checker keeps state for open items only; a completed item leaves its id
// in done, with the line of its item.completed and its type's index.
type checker struct {
	check.Frame
	thread   string // the first thread.started's thread_id
	cur      string // the current process's thread_id
	procLine int    // line of the current process's thread.started
	procTurn int    // line of the turn.started of the current process's turn, 0 before it
	turn     int    // the open turn's number, 0 when none is open
	turns    int
	turnLine int  // line of the open turn's turn.started
	ended    bool // the current process's turn ended
	open     openItemSet
	done     idset.Set
	usage    [5]int64
	hasUsage [5]bool
}

func newChecker() *checker {
	return &checker{
		Frame: check.Frame{
			Start: "thread.started", FirstLine: ruleFirstLine,
			UnknownType: ruleUnknownType, Types: func(typ string) bool { _, ok := fields[typ]; return ok },
		},
	}
}

// itemTypes numbers the item types for done's values.
var itemTypes = []string{"agent_message", "reasoning", "plan", "command_execution", "file_change", "mcp_tool_call",
	"web_search", "todo_list", "error", "collab_tool_call"}

func pack(line int, typ string) uint64 {
	return idset.Line(line)<<8 | uint64(slices.Index(itemTypes, typ)+1)
}

func unpack(v uint64) (line int, typ string) {
	t := int(v&0xff) - 1
	if t >= 0 && t < len(itemTypes) {
		typ = itemTypes[t]
	}
	return int(v >> 8), typ
}

func (c *checker) Line(line []byte, n int, report func(dialect.Finding)) {
	r, rep, typ, ok := c.Next(line, n, report)
	if !ok {
		return
	}
	if typ == "thread.started" {
		c.process(rep, r, report)
	}
	unknownFields(rep, r, "", func(k string) bool { return knownField(typ, k) })
	switch typ {
	case "turn.started":
		if c.turn > 0 {
			rep.Reportf(ruleTurnStarted, "/type", "turn.started while the turn started on line %d is open", c.turnLine)
			c.endTurn(n, report)
		} else if c.procTurn > 0 {
			rep.Reportf(ruleOneTurn, "/type", "a second turn in the process begun on line %d (its turn started on line %d): each `codex exec` process runs one turn, and a resumed one writes its own thread.started", c.procLine, c.procTurn)
		}
		c.procTurn = n
		c.turns++
		c.turn, c.turnLine, c.ended = c.turns, n, false
	case "turn.completed", "turn.failed":
		if c.turn == 0 {
			rep.Reportf(ruleTurnNotStarted, "/type", "%s without an open turn", typ)
		}
		c.endTurn(n, report)
		c.ended = true
		if typ == "turn.completed" {
			c.checkUsage(rep, r.Get("usage"))
		}
	case "item.started", "item.updated", "item.completed":
		c.item(rep, typ, r.Get("item"))
	case "request_user_input":
		jsonobj.ForEach(r.Get("questions"), func(i, q gjson.Result) bool {
			ptr := "/questions/" + strconv.Itoa(int(i.Int()))
			unknownFields(rep, q, ptr, func(k string) bool { return slices.Contains(nestedFields["question"], k) })
			jsonobj.ForEach(q.Get("options"), func(j, o gjson.Result) bool {
				unknownFields(rep, o, ptr+"/options/"+strconv.Itoa(int(j.Int())), func(k string) bool { return slices.Contains(nestedFields["option"], k) })
				return true
			})
			return true
		})
	}
	if typ == "turn.failed" {
		unknownFields(rep, r.Get("error"), "/error", func(k string) bool { return k == "message" })
	}
}

// process checks a thread.started: the first begins the stream, a later
// one another process of the same thread (codex exec resume), after the
// one before it ended its turn. What belongs to a process (its item ids,
// its turn) starts again; the thread's running usage goes on, and that of
// another thread (codex/thread-changed) starts from zero, as the decoder
// counts it.
func (c *checker) process(rep dialect.Reporter, r gjson.Result, report func(dialect.Finding)) {
	id := r.Get("thread_id")
	if c.Lines == 1 {
		c.thread, c.procLine = strings.Clone(id.Str), rep.Line
		c.cur = c.thread
		return
	}
	if id.Type == gjson.String && c.procLine > 0 && id.Str != c.thread {
		rep.Reportf(ruleThreadChanged, "/thread_id", "thread %q, and %q on line 1: a stream holds the processes of one thread", id.Str, c.thread)
	}
	if id.Type == gjson.String && id.Str != "" && id.Str != c.cur {
		if c.cur != "" {
			c.hasUsage = [5]bool{}
		}
		c.cur = strings.Clone(id.Str)
	}
	switch {
	case c.turn > 0:
		rep.Reportf(ruleTruncated, "/type", "a new process begins while the turn started on line %d is open: that process ended without turn.completed or turn.failed (an interrupted or killed run)", c.turnLine)
		c.endTurn(rep.Line, report)
	case !c.ended:
		rep.Reportf(ruleTruncated, "/type", "a new process begins before the one begun on line %d ended a turn: that process is incomplete", max(c.procLine, 1))
	}
	if c.procLine == 0 {
		c.thread = strings.Clone(id.Str) // the stream lacked its first thread.started
	}
	c.reportOpen(func(*item) bool { return true }, report)
	c.done = idset.Set{}
	c.procLine, c.procTurn, c.ended = rep.Line, 0, false
}

// item checks one item event.
func (c *checker) item(rep dialect.Reporter, ev string, it gjson.Result) {
	if !it.IsObject() {
		return
	}
	id, _, _ := itemID(it)
	typ := itemTypeField(it)
	if _, known := itemFields[typ]; !known {
		if typ != "" {
			rep.Reportf(ruleUnknownItemType, "/item/type", "unknown item type %q (kept as opaque data)", typ)
		}
	} else {
		c.itemFields(rep, typ, it)
	}
	if c.turn == 0 {
		rep.Reportf(ruleOutsideTurn, "/type", "%s of item %q outside a turn", ev, id)
	}
	if v, closed := c.done.Get(id); closed {
		line, _ := unpack(v)
		rep.Reportf(ruleItemClosed, "/item/id", "%s for item %q, which completed on line %d", ev, id, line)
		return
	}
	o := c.open.get(id)
	if o != nil && o.typ != typ {
		rep.Reportf(ruleItemType, "/item/type", "item %q is %s here and %s on line %d", id, typ, o.typ, o.first)
	}
	if st := it.Get("status"); st.Type == gjson.String && toolItems[typ] {
		switch {
		case ev != "item.completed" && st.Str != "in_progress":
			rep.Reportf(ruleItemStatus, "/item/status", "%s of item %q has status %q; an item is in_progress until it completes", ev, id, st.Str)
		case ev == "item.completed" && st.Str == "in_progress":
			rep.Reportf(ruleItemStatus, "/item/status", "item %q completes with status in_progress", id)
		}
	}
	switch ev {
	case "item.started":
		if o != nil {
			rep.Reportf(ruleItemStarted, "/item/id", "item %q already started on line %d", id, o.first)
			return
		}
		c.open.add(id, item{typ: typ, first: rep.Line, turn: c.turn})
	case "item.updated":
		if o == nil {
			c.open.add(id, item{typ: typ, first: rep.Line, turn: c.turn})
		}
	case "item.completed":
		c.open.set.Delete(id)
		c.done.Add(id, pack(rep.Line, typ))
	}
}

// itemFields reports the unknown fields of a known item type, and of its
// nested objects.
func (c *checker) itemFields(rep dialect.Reporter, typ string, it gjson.Result) {
	unknownFields(rep, it, "/item", func(k string) bool { return knownItemField(typ, k) || k == "item_type" })
	nested := func(k, shape string) {
		v := it.Get(k)
		each := func(ptr string, o gjson.Result) {
			unknownFields(rep, o, ptr, func(k string) bool { return slices.Contains(nestedFields[shape], k) })
		}
		switch {
		case v.IsArray():
			i := 0
			jsonobj.ForEach(v, func(_, o gjson.Result) bool {
				each("/item/"+k+"/"+strconv.Itoa(i), o)
				i++
				return true
			})
		case v.IsObject() && k == "agents_states":
			jsonobj.ForEach(v, func(t, o gjson.Result) bool {
				each("/item/agents_states/"+jsonptr.Escape(t.Str), o)
				return true
			})
		case v.IsObject():
			each("/item/"+k, v)
		}
	}
	switch typ {
	case "file_change":
		nested("changes", "change")
	case "todo_list":
		nested("items", "todo")
	case "mcp_tool_call":
		nested("result", "result")
		nested("error", "error")
	case "web_search":
		nested("action", "action")
	case "collab_tool_call":
		nested("agents_states", "agent_state")
	}
	c.itemWords(rep, typ, it)
}

// itemWords reports the words of an item's word sets that Codex is not
// known to write.
func (c *checker) itemWords(rep dialect.Reporter, typ string, it gjson.Result) {
	if words, ok := statusWords[typ]; ok {
		knownWord(rep, it.Get("status"), "/item/status", words, typ+" status")
	}
	switch typ {
	case "file_change":
		i := 0
		jsonobj.ForEach(it.Get("changes"), func(_, ch gjson.Result) bool {
			if ch.IsObject() {
				knownWord(rep, ch.Get("kind"), "/item/changes/"+strconv.Itoa(i)+"/kind", changeKinds, "change kind")
			}
			i++
			return true
		})
	case "collab_tool_call":
		knownWord(rep, it.Get("tool"), "/item/tool", collabTools, "collab tool")
		if st := it.Get("agents_states"); st.IsObject() {
			jsonobj.ForEach(st, func(k, a gjson.Result) bool {
				if a.IsObject() {
					knownWord(rep, a.Get("status"), "/item/agents_states/"+jsonptr.Escape(k.Str)+"/status", agentWordSet, "agent status")
				}
				return true
			})
		}
	case "web_search":
		if a := it.Get("action"); a.IsObject() {
			knownWord(rep, a.Get("type"), "/item/action/type", actionTypes, "web search action")
		}
	}
}

// knownWord reports a string that is not one of words.
func knownWord(rep dialect.Reporter, v gjson.Result, ptr string, words []string, what string) {
	if v.Type == gjson.String && !slices.Contains(words, v.Str) {
		rep.Reportf(ruleUnknownValue, ptr, "unknown %s %q (known: %s; kept as written)", what, v.Str, strings.Join(words, ", "))
	}
}

// unknownFields reports the keys of an object that known rejects.
func unknownFields(rep dialect.Reporter, o gjson.Result, ptr string, known func(string) bool) {
	if o.IsObject() {
		check.Keys(rep, ruleUnknownField, o, ptr, known, "unknown field %q")
	}
}

// checkUsage checks a turn.completed's usage: nested within itself, and
// not below the thread's total of an earlier turn in the stream.
func (c *checker) checkUsage(rep dialect.Reporter, u gjson.Result) {
	if !u.IsObject() {
		return
	}
	unknownFields(rep, u, "/usage", func(k string) bool { return slices.Contains(usageFields, k) })
	if msg := nested(u); msg != "" {
		rep.Reportf(ruleUsageNested, "/usage", "%s: Codex's counts are nested (cached and cache-write within input, reasoning within output)", msg)
	}
	for i, k := range usageFields {
		v := u.Get(k)
		n, msg := jsonobj.ParseInt(v, jsonobj.I64)
		if !v.Exists() || msg != "" {
			continue
		}
		if c.hasUsage[i] && n < c.usage[i] {
			rep.Reportf(ruleUsageDecreasing, "/usage/"+k, "%s fell from %d to %d: usage is the thread's running total", k, c.usage[i], n)
		}
		c.usage[i], c.hasUsage[i] = n, true
	}
}

// endTurn closes the open turn: the items it started and left open are
// reported and forgotten.
func (c *checker) endTurn(n int, report func(dialect.Finding)) {
	if c.turn == 0 {
		return
	}
	c.reportOpen(func(o *item) bool { return o.turn == c.turn }, report)
	c.turn = 0
}

func (c *checker) reportOpen(in func(*item) bool, report func(dialect.Finding)) {
	n := 0
	for id, e := range c.open.set.All {
		if o := unpackOpen(e); in(o) {
			report(ruleItemUnfinished.Finding(o.first, "/item/id", fmt.Sprintf("%s item %q never completed in its turn", o.typ, id)))
			n++
		}
	}
	if n == c.open.set.Len() { // all of them, as at a turn's end
		c.open = openItemSet{}
		return
	}
	var gone []string
	for id, e := range c.open.set.All {
		if in(unpackOpen(e)) {
			gone = append(gone, id)
		}
	}
	for _, id := range gone {
		c.open.set.Delete(id)
	}
}

// openItemSet holds the open items in an openset, in the order of their
// first line, with their turn and type as the entry's name: a stream may
// leave millions open.
type openItemSet struct{ set openset.Set }

func (s *openItemSet) add(id string, o item) {
	s.set.Add(id, o.first, openset.Pack(strconv.Itoa(o.turn), o.typ))
}

func (s *openItemSet) get(id string) *item {
	e, ok := s.set.Get(id)
	if !ok {
		return nil
	}
	return unpackOpen(e)
}

func unpackOpen(e openset.Entry) *item {
	f := openset.Fields(make([]string, 0, 2), e.Name) // turn, type
	turn, _ := strconv.Atoi(f[0])
	return &item{typ: f[1], first: e.Line, turn: turn}
}

func (c *checker) End(last int, report func(dialect.Finding)) {
	if c.Empty(report) {
		return
	}
	switch {
	case c.turn > 0:
		report(ruleTruncated.Finding(last, "", fmt.Sprintf("the stream ends inside the turn started on line %d, without turn.completed or turn.failed: it is incomplete (an interrupted or killed run)", c.turnLine)))
	case !c.ended:
		report(ruleTruncated.Finding(last, "", fmt.Sprintf("the stream ends before the turn of the process begun on line %d ended: it is incomplete", max(c.procLine, 1))))
	}
}
