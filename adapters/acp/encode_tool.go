package acp

import (
	"encoding/json"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/evtool/evtool/event"
	"github.com/evtool/evtool/internal/jsonobj"
	"github.com/tidwall/gjson"
)

// Tool calls: announced, updated with their progress and output, ended
// with their outcome; a finished one is remembered by its id's digest, its
// kind and its title.

// tool is an open tool call.
type tool struct {
	rank        int // by announcement
	title, name string
	kind        event.ToolKind
	placeholder bool // the title is a stand-in for an unknown name
	output      capped
	sent        int    // output bytes shown in the last update
	progress    string // the latest progress text, shown after the output
	diffs       []obj  // diff content from the call's input
	prompt      string // the prompt of the subagent the call runs, shown first
}

// toolStarted says a known call runs, announcing one the source showed
// only now.
func (e *Encoder) toolStarted(ev *event.Event, b *event.ToolStarted) error {
	if !e.tools.has(b.CallID) { // an open call stays as compact as it is
		t, fresh, err := e.known(ev, b.CallID, b.Name, "in_progress")
		if err != nil || t == nil || fresh {
			return err // a fresh announcement already says it runs
		}
	}
	return e.notify(obj{}.str("sessionUpdate", "tool_call_update").str("toolCallId", b.CallID).str("status", "in_progress"), ev)
}

// toolProgress shows a call's progress.
func (e *Encoder) toolProgress(ev *event.Event, b *event.ToolProgress) error {
	t, _, err := e.known(ev, b.CallID, b.Name, "")
	if err != nil || t == nil {
		return err
	}
	if e.basis() {
		// basis's mapping: progress becomes the title.
		return e.notify(obj{}.str("sessionUpdate", "tool_call_update").str("toolCallId", b.CallID).str("title", clip(b.Message, maxTitle)), ev)
	}
	// Progress is shown in the call's content, after its output, until
	// the call ends; the title stays the call's own.
	t.progress = strings.Clone(clip(b.Message, maxTitle))
	return e.notify(obj{}.str("sessionUpdate", "tool_call_update").str("toolCallId", b.CallID).add("content", arr(t.content(true)...)), ev)
}

// toolOutput adds a chunk to a call's output, and shows the output so far
// when it is due.
func (e *Encoder) toolOutput(ev *event.Event, b *event.ToolOutput) error {
	t, _, err := e.known(ev, b.CallID, b.Name, "")
	if err != nil || t == nil {
		return err
	}
	t.output.add(b.Chunk)
	// content replaces the stored collection, so each update carries
	// the whole output so far: every chunk while it is short, then each
	// time it has doubled, and nothing more once it reaches its cap.
	if !t.due() {
		return nil
	}
	t.sent = t.output.n
	return e.notify(obj{}.str("sessionUpdate", "tool_call_update").str("toolCallId", b.CallID).
		add("content", arr(t.content(true)...)), ev)
}

func (e *Encoder) toolCall(ev *event.Event, b *event.ToolCall) error {
	if e.tools.has(b.CallID) || e.done.Has(b.CallID) {
		e.loss.Add(lossRepeatedToolCall)
		return nil
	}
	return e.announce(ev, b.CallID, b.Name, b.Title, b.Kind, b.Input, "pending", nil)
}

// announce writes the tool_call that makes a call known, with its status.
func (e *Encoder) announce(ev *event.Event, id, name, title string, kind event.ToolKind, input json.RawMessage, status string, extra func(*tool, obj) obj) error {
	if err := e.inTurn(); err != nil {
		return err
	}
	e.announced++
	// Clone: a decoder's strings may share the memory of a whole line.
	t := &tool{rank: e.announced, name: strings.Clone(name)}
	t.title = strings.Clone(clip(title, maxTitle))
	if strings.TrimSpace(title) == "" {
		t.title = clip(t.name, maxTitle)
	}
	if t.title == "" {
		t.title, t.placeholder = placeholderTitle, true
	}
	// Each decoder gives a call its kind by its producer's own rule.
	t.kind = event.KindOther
	if kind.Valid() {
		t.kind = kind
	}
	u := obj{}.str("sessionUpdate", "tool_call").str("toolCallId", id).str("title", t.title).str("kind", string(t.kind)).str("status", status)
	if e.profile == Unstable && name != "" {
		u = u.str("name", name)
	}
	if len(input) > maxRaw {
		e.loss.Add(lossLargeToolInput)
		input = nil
	}
	if len(input) > 0 && (string(input) != "null" || e.basis()) {
		u = u.raw("rawInput", e.finite(input))
	}
	if !e.basis() {
		var loc []byte
		t.diffs, loc = e.edits(input)
		if len(t.diffs) > 0 && extra == nil {
			u = u.add("content", arr(t.diffs...))
		}
		if loc == nil {
			loc = e.locations(input)
		}
		if loc != nil {
			u = u.add("locations", loc)
		}
	}
	if extra != nil {
		u = extra(t, u)
	}
	e.tools.add(id, t)
	return e.notify(u, ev)
}

// known returns the call, announcing it first (already with the given
// status) when the source showed it only now; fresh says it was just
// announced. It returns nil for a call that has finished.
func (e *Encoder) known(ev *event.Event, id, name, status string) (t *tool, fresh bool, err error) {
	if t, ok := e.tools.get(id); ok {
		return t, false, nil
	}
	if e.done.Has(id) {
		e.loss.Add(lossAfterToolFinished)
		return nil, false, nil
	}
	if status == "" {
		status = "in_progress"
	}
	e.loss.Add(lossSynthesizedToolCall)
	if err := e.announce(ev, id, name, "", "", nil, status, nil); err != nil {
		return nil, false, err
	}
	t, _ = e.tools.get(id)
	return t, true, nil
}

// toolFinished ends a call with its outcome: what it printed (or its
// summary) and its error, its diffs and where it worked; the permission
// requests the source never answered are answered from the outcome.
func (e *Encoder) toolFinished(ev *event.Event, b *event.ToolFinished) error {
	status := "completed"
	if b.Status != "success" {
		status = "failed" // ACP has no cancelled or rejected tool status
	}
	texts := e.resultTexts(b)
	if err := e.answerPermission(b.CallID, b.Status); err != nil {
		return err
	}
	rest := func(t *tool, u obj) obj { return e.finished(t, u, b, texts) }
	t, ok := e.tools.get(b.CallID)
	if !ok && e.done.Has(b.CallID) {
		e.loss.Add(lossRepeatedToolResult)
		return nil
	}
	if !ok {
		// A result for a call never announced: one tool_call, already finished.
		e.loss.Add(lossSynthesizedFinishedToolCall)
		err := e.announce(ev, b.CallID, b.Name, "", b.Kind, nil, status, rest)
		t, _ := e.tools.get(b.CallID)
		e.finish(b.CallID, t)
		return err
	}
	defer e.finish(b.CallID, t)
	u := obj{}.str("sessionUpdate", "tool_call_update").str("toolCallId", b.CallID).str("status", status)
	if t.placeholder && b.Name != "" && !e.basis() {
		// The name was unknown when the call was announced (mermaid on a
		// live pipe).
		t.title, t.placeholder = clip(b.Name, maxTitle), false
		u = u.str("title", t.title)
		if b.Kind.Valid() && b.Kind != t.kind {
			t.kind = b.Kind
			u = u.str("kind", string(b.Kind))
		}
	}
	return e.notify(rest(t, u), ev)
}

// resultTexts returns the texts a finished call shows: its output (or
// summary), then its error unless the output says it already.
func (e *Encoder) resultTexts(b *event.ToolFinished) []string {
	if e.basis() {
		s := ""
		if b.Summary != nil {
			s = *b.Summary
		}
		return []string{clip(s, maxText)}
	}
	var texts []string
	switch t, _ := e.tools.peek(b.CallID); {
	case t != nil && t.output.n > 0:
		texts = []string{t.output.text()}
	case b.Output != nil && *b.Output != "":
		var c capped
		c.add(*b.Output)
		texts = []string{c.text()}
	case b.Summary != nil && *b.Summary != "":
		texts = []string{clip(*b.Summary, maxText)}
	}
	// The error, unless the text shown already says it.
	if b.Error != "" && !slices.ContainsFunc(texts, func(s string) bool { return strings.Contains(s, b.Error) }) {
		texts = append(texts, clip(b.Error, maxText))
	}
	return texts
}

// finished adds to u, the update that ends call t (nil when it was never
// announced), what the call shows at its end: the subagent's prompt, the
// diffs, the texts, and the raw output.
func (e *Encoder) finished(t *tool, u obj, b *event.ToolFinished, texts []string) obj {
	var content []obj
	if t != nil {
		if t.prompt != "" {
			content = append(content, textContent(t.prompt))
		}
		content = append(content, t.diffs...)
	}
	if e.basis() {
		// basis's mapping: the summary only.
	} else if d, loc := e.edits(b.Edit); len(d) > 0 && (t == nil || len(t.diffs) == 0) {
		content = append(content, d...)
		u = u.add("locations", loc)
	} else if loc := e.editLocations(b.Edit); loc != nil {
		u = u.add("locations", loc)
	}
	for _, s := range texts {
		content = append(content, textContent(s))
	}
	if content != nil {
		u = u.add("content", arr(content...))
	}
	if raw := rawOutput(b); raw != nil && !e.basis() {
		u = u.add("rawOutput", raw)
	}
	return u
}

func rawOutput(b *event.ToolFinished) []byte {
	o := obj{}
	if b.Command != "" {
		o = o.str("command", clip(b.Command, maxTitle))
	}
	if b.ExitCode != nil {
		o = o.add("exit_code", []byte(strconv.FormatInt(*b.ExitCode, 10)))
	}
	if b.Output != nil && (b.Command != "" || b.ExitCode != nil) {
		var c capped
		c.add(*b.Output)
		o = o.str("output", c.text())
	}
	if len(o) == 0 {
		return nil
	}
	return o.bytes()
}

// content is what a call shows while it runs: its output so far (capped,
// with a note), then its latest progress.
func (t *tool) content(progress bool) []obj {
	var c []obj
	if t.prompt != "" {
		c = append(c, textContent(t.prompt))
	}
	c = append(c, t.diffs...)
	if t.output.n > 0 {
		c = append(c, textContent(t.output.text()))
	}
	if progress && t.progress != "" {
		c = append(c, textContent(t.progress))
	}
	return c
}

// due reports whether the call's output has grown enough since the last
// update to send another.
func (t *tool) due() bool {
	n := t.output.n
	switch {
	case t.output.full && t.sent >= len(t.output.b):
		return false // capped: the end of the call shows the rest's size
	case n <= eagerOutput:
		return true
	}
	return n >= 2*t.sent || t.output.full
}

// locations finds the absolute path a tool input names.
func (e *Encoder) locations(input json.RawMessage) []byte {
	if len(input) == 0 {
		return nil
	}
	r := jsonobj.View(input) // nothing read from it outlives the call
	if p := pathOf(r); p != "" {
		if p := e.absolute(p); p != "" {
			return arr(obj{}.str("path", p))
		}
	}
	return nil
}

func (e *Encoder) editLocations(edit json.RawMessage) []byte {
	if len(edit) == 0 {
		return nil
	}
	if v := gjson.GetBytes(edit, "path"); v.Type == gjson.String {
		if p := e.absolute(v.Str); p != "" {
			return arr(obj{}.str("path", p))
		}
	}
	return nil
}

// absolute returns p as an absolute path, joined to the workspace when it
// is relative, or "" when that cannot be known.
func (e *Encoder) absolute(p string) string {
	if strings.HasPrefix(p, "/") {
		return path.Clean(p)
	}
	if strings.HasPrefix(e.workspace, "/") {
		return path.Join(e.workspace, p)
	}
	return ""
}

// finish closes an open tool call: what a later line can need of it is
// its kind and title, kept in done and titles.
func (e *Encoder) finish(id string, t *tool) {
	e.tools.del(id)
	e.done.Add(id, e.closedValue(t.kind, t.title))
}

const placeholderTitle = "Tool call"

// closedValue packs a finished call's kind (its index in event.ToolKinds,
// in the top 4 bits) and title (a titleStore reference) into one value.
func (e *Encoder) closedValue(kind event.ToolKind, title string) uint64 {
	return uint64(slices.Index(event.ToolKinds(), kind))<<60 | e.titles.put(title)
}

func (e *Encoder) closedTool(v uint64) (string, event.ToolKind) {
	return e.titles.get(v & (1<<60 - 1)), event.ToolKinds()[v>>60]
}

// titleStore keeps the titles of finished tool calls, which a permission
// request after a call finished still shows: the bytes of each title in
// 1 MiB chunks, frequent titles (tool names) once, and a reference to them
// in 60 bits (offset in 40, length in 20).
type titleStore struct {
	chunks [][]byte
	common map[string]uint64 // up to maxCommon short titles → reference
	long   []string          // titles of 1 MiB or more, by index
}

const (
	chunkSize = 1 << 20
	lenBits   = 20
	longLen   = 1<<lenBits - 1 // marks a reference to long
	maxCommon = 1024
)

func (s *titleStore) put(t string) uint64 {
	if ref, ok := s.common[t]; ok {
		return ref
	}
	if len(t) >= longLen {
		s.long = append(s.long, strings.Clone(t))
		return uint64(len(s.long)-1)<<lenBits | longLen
	}
	if n := len(s.chunks); n == 0 || len(s.chunks[n-1])+len(t) > chunkSize {
		s.chunks = append(s.chunks, nil) // grows by append up to chunkSize
	}
	n := len(s.chunks) - 1
	ref := uint64(n*chunkSize+len(s.chunks[n]))<<lenBits | uint64(len(t))
	s.chunks[n] = append(s.chunks[n], t...)
	if len(t) <= 64 && len(s.common) < maxCommon {
		if s.common == nil {
			s.common = map[string]uint64{}
		}
		s.common[strings.Clone(t)] = ref
	}
	return ref
}

func (s *titleStore) get(ref uint64) string {
	n := int(ref & (1<<lenBits - 1))
	if n == longLen {
		return s.long[ref>>lenBits]
	}
	off := int(ref >> lenBits)
	return string(s.chunks[off/chunkSize][off%chunkSize : off%chunkSize+n])
}

// subagentPrompt shows the prompt a subagent was given inside the tool
// call that runs it (the subagent's agent id is that call's id); a prompt
// whose call is not open is shown as a thought, never as the user's words.
func (e *Encoder) subagentPrompt(ev *event.Event, b *event.UserMessage) error {
	if t, ok := e.tools.get(ev.AgentID); ok && !e.basis() {
		if t.prompt != "" {
			t.prompt += "\n\n"
		}
		t.prompt += clip(b.Text, maxTitle)
		return e.notify(obj{}.str("sessionUpdate", "tool_call_update").str("toolCallId", ev.AgentID).add("content", arr(t.content(true)...)), ev)
	}
	if e.basis() {
		return nil
	}
	return e.thought(ev, "subagent "+ev.AgentID+" prompt: "+b.Text)
}
