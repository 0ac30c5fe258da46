package claudetranscript

import (
	"strings"

	"github.com/evtool/evtool/adapters/internal/claudecode"
	"github.com/evtool/evtool/event"
	"github.com/evtool/evtool/internal/idset"
	"github.com/evtool/evtool/internal/jsonobj"
	"github.com/tidwall/gjson"
)

// The conversation's lines: user and assistant messages and their content
// blocks (text, images, thinking, tool use and results).

// userText is the text of a message's content: a string, or its text
// blocks joined by newlines; and how many images it holds.
func userText(c gjson.Result) (string, uint64) {
	if c.Type == gjson.String {
		return c.Str, 0
	}
	var parts []string
	var images uint64
	eachBlock(c, func(b *fields) bool {
		switch b.Get("type").Str {
		case "text":
			parts = append(parts, b.Get("text").Str)
		case "image":
			images++
		}
		return true
	})
	return strings.Join(parts, "\n"), images
}

// prompt reports whether a main-thread user line begins a turn, and its
// text and images: a line the user wrote, not one Claude Code composed
// (isMeta: command expansions, caveats, reminders), not a compaction
// summary, not tool results, not the interruption marker, not a local
// command's output.
func prompt(r getter) (string, uint64, bool) {
	if r.Get("isMeta").Type == gjson.True || r.Get("isCompactSummary").Type == gjson.True {
		return "", 0, false
	}
	c := r.Get("message.content")
	switch {
	case c.Type == gjson.String:
	case c.IsArray():
		if strings.Contains(c.Raw, `"tool_result"`) {
			isResult := false
			eachBlockOf(r, c, func(b *fields) bool {
				isResult = isResult || b.Get("type").Str == "tool_result"
				return !isResult
			})
			if isResult {
				return "", 0, false
			}
		}
	default:
		return "", 0, false
	}
	text, images := userText(c)
	if (text == "" && images == 0) || strings.HasPrefix(text, claudecode.InterruptMarker) || commandOutput(text) {
		return "", 0, false
	}
	return text, images, true
}

// eachBlockOf is eachBlock for c, a value of the line r: from the blocks
// read with r's message when c is its content.
func eachBlockOf(r getter, c gjson.Result, f func(b *fields) bool) {
	if o, ok := r.(*fields); ok {
		o.message().eachBlock(c, f)
		return
	}
	eachBlock(c, f)
}

func (l *line) user() {
	d := l.d
	t := l.th
	c := l.r.Get("message.content")
	if t == d.main {
		if l.r.Get("isCompactSummary").Type == gjson.True {
			if d.summary {
				l.own(&event.CompactionFinished{})
				return
			}
			text, _ := userText(c)
			l.own(&event.CompactionFinished{SummaryPreview: &text})
			return
		}
		if text, images, ok := prompt(l.r); ok {
			// A summary reads the first prompt's text alone: it is the
			// session's title (stats.Run.Prompt).
			if d.summary && d.prompted {
				l.beginTurn(nil)
				l.own(userMessage("", images))
				return
			}
			d.prompted = true
			p := text
			l.beginTurn(&p)
			l.own(userMessage(text, images))
			return
		}
	}
	if c.Type == gjson.String {
		if d.summary {
			l.userTextOf(c)
		} else {
			l.userText(c.Str)
		}
	}
	results := 0
	l.r.message().eachBlock(c, func(b *fields) bool {
		switch b.Get("type").Str {
		case "text":
			if d.summary {
				l.userTextOf(b.raw("text"))
			} else {
				l.userText(b.Get("text").Str)
			}
		case "image":
			l.own(userMessage("", 1))
		case "tool_result":
			results++
			l.toolResult(b, results)
		}
		return true
	})
	if l.first < 0 {
		l.keep() // nothing the vocabulary says: kept whole
	}
}

func userMessage(text string, images uint64) *event.UserMessage {
	m := &event.UserMessage{Text: text}
	if images > 0 {
		m.ImageCount = &images
	}
	return m
}

// userText reads a text of a user line that is not a prompt: the
// interruption marker, or text Claude Code composed (isMeta), or a
// subagent's prompt.
func (l *line) userText(text string) {
	if strings.HasPrefix(text, claudecode.InterruptMarker) {
		if l.th == l.d.main {
			l.d.interrupted = true
		}
		l.own(&event.Notice{Severity: event.SeverityWarning, Message: text})
		return
	}
	l.own(&event.UserMessage{Text: text})
}

// userTextOf is userText for a summary (Decoder.Summarize): the text, a
// string from ForEachRaw, is read whole only when it is the interruption
// marker's notice; a message is left without it.
func (l *line) userTextOf(v gjson.Result) {
	if hasPrefix(v, claudecode.InterruptMarker) {
		l.userText(jsonobj.Text(v))
		return
	}
	l.own(&event.UserMessage{})
}

// toolResult ends a call. A result for a call the transcript never showed
// (its tool_use is in a file not read, or before a compaction of an older
// build) is announced by a synthetic tool_call first; a second result for
// a call is a notice.
func (l *line) toolResult(b *fields, i int) {
	d := l.d
	id := b.Get("tool_use_id").Str
	isError := b.Get("is_error").Type == gjson.True
	var out string
	if !d.summary || isError {
		// A summary reads the output only for the status of a call
		// that failed.
		out, _ = userText(b.Get("content"))
	}
	status := toolStatus(isError, out)
	v, seen := d.calls.Get(id)
	switch {
	case seen && v == callDone:
		l.own(&event.Notice{Severity: event.SeverityWarning, Message: "a second tool_result for " + id})
		return
	case !seen:
		l.synth(&event.Event{Time: l.time, TurnID: l.turnID(), AgentID: l.th.agent, Body: &event.ToolCall{CallID: id}})
	}
	name, _ := d.names.Get(id)
	d.names.Delete(id)
	d.calls.Add(id, callDone)
	f := &event.ToolFinished{CallID: id, Name: name, Status: status}
	if !d.summary {
		f.Output = &out
	}
	l.own(f)
	if status == event.ToolCancelled && l.th == d.main {
		d.interrupted = true
	}
	if spawnsAgent(name) {
		// 2.x names the subagent a Task call ran in its result.
		if a := l.r.Get("toolUseResult.agentId"); a.Type == gjson.String && i == 1 {
			d.agentCalls.Put(a.Str, strings.Clone(id))
		}
		l.callEnded(id, status)
	}
}

func (l *line) assistant() {
	d := l.d
	t := l.th
	m := l.r.message()
	model := m.Get("model").Str
	apiError := l.r.Get("isApiErrorMessage").Type == gjson.True
	if t == d.main {
		if d.turn == "" {
			l.beginTurn(nil) // the agent speaks: a turn is under way
		}
		if apiError {
			d.apiError = true
		} else if model != syntheticModel {
			d.apiError = false
		}
		if s := m.Get("stop_reason"); s.Type == gjson.String {
			d.stop = claudecode.StopReason(s.Str)
		}
	}
	if model != syntheticModel {
		l.account(t, m) // first: it may end the thread's previous response
		if model != "" {
			l.model(t, model)
		}
	}
	id := m.Get("id").Str
	c := m.Get("content")
	if c.Type == gjson.String {
		l.answer(c.Str, id, apiError)
	}
	m.eachBlock(c, func(b *fields) bool {
		switch typ := b.Get("type").Str; typ {
		case "text":
			if d.summary && !apiError {
				l.own(&event.Message{MessageID: id})
			} else {
				l.answer(b.Get("text").Str, id, apiError)
			}
		case "thinking":
			if d.summary {
				l.own(&event.Reasoning{})
			} else {
				l.own(&event.Reasoning{Text: b.Get("thinking").Str})
			}
		case "redacted_thinking":
			l.own(&event.Reasoning{Text: ""})
		case "tool_use", "server_tool_use", "mcp_tool_use":
			l.toolUse(b)
		default:
			if strings.HasSuffix(typ, "_tool_result") {
				l.serverResult(b)
			}
		}
		return true
	})
	if e := l.r.Get("error"); l.first < 0 && e.Type == gjson.String {
		l.own(&event.Error{Message: e.Str})
	}
	if l.first < 0 {
		l.keep()
	}
}

// answer reads an assistant text: the model's message, or the text of an
// API error Claude Code wrote in its place.
func (l *line) answer(text, id string, apiError bool) {
	if apiError {
		l.own(&event.Error{Message: text})
		return
	}
	l.own(&event.Message{Text: text, MessageID: id})
}

// model notes the model of a thread's answer: the session's model when it
// is the first; a model_configured when a thread's model is not the one
// it ran before, or, for a subagent's first answer, not the session's
// (an Explore subagent runs on a smaller model).
func (l *line) model(t *thread, model string) {
	d := l.d
	was := t.model
	if was == "" {
		was = d.ss.Model
	}
	if t.model != model {
		t.model = strings.Clone(model)
	}
	switch {
	case d.ss.Model == "" && !d.started:
		d.ss.Model = t.model
	case was != model:
		l.synth(&event.Event{Time: l.time, TurnID: l.turnID(), AgentID: t.agent, Body: &event.ModelConfigured{Model: model}})
	}
}

// toolUse announces a call. Claude Code runs a tool as soon as its block
// is complete, so the call is also started; a TodoWrite input is the
// plan; a Task call waits for its subagent's lines.
func (l *line) toolUse(b *fields) {
	d := l.d
	id, name := b.Get("id").Str, b.Get("name").Str
	if _, seen := d.calls.Get(id); seen {
		l.own(&event.Notice{Severity: event.SeverityWarning, Message: "tool_use " + id + " repeated"})
		return
	}
	d.calls.Add(id, callOpen)
	d.names.Put(id, strings.Clone(name))
	if l.th.round != nil {
		l.th.round.toolUse = true // a response that calls tools stops to run them
	}
	in := b.Get("input")
	c := &event.ToolCall{CallID: id, Name: name, Kind: claudecode.ToolKind(name)}
	if !d.summary {
		if in.Exists() {
			c.Input = claudecode.Compact(in.Raw)
		}
		for _, k := range claudecode.TitleKeys {
			if v := in.Get(k); v.Type == gjson.String && v.Str != "" {
				c.Title = claudecode.FirstLine(v.Str)
				break
			}
		}
	}
	l.own(c)
	l.own(&event.ToolStarted{CallID: id, Name: name})
	if name == "TodoWrite" {
		if p := claudecode.Plan(in); p != nil {
			l.synth(&event.Event{Time: l.time, TurnID: l.turnID(), AgentID: l.th.agent, Body: p})
		}
	}
	if spawnsAgent(name) {
		tc := &taskCall{call: strings.Clone(id), parent: l.th.agent, title: strings.Clone(in.Get("description").Str), turn: l.turnID()}
		if p := in.Get("prompt"); p.Type == gjson.String && p.Str != "" {
			tc.prompt = idset.Digest(p.Str)
		}
		d.addTask(tc)
	}
}

// serverResult ends a server tool's call (web search) whose result the
// API returns in the assistant's own content.
func (l *line) serverResult(b *fields) {
	d := l.d
	id := b.Get("tool_use_id").Str
	if v, seen := d.calls.Get(id); !seen || v == callDone {
		return
	}
	name, _ := d.names.Get(id)
	d.names.Delete(id)
	d.calls.Add(id, callDone)
	f := &event.ToolFinished{CallID: id, Name: name, Status: event.ToolSuccess}
	if c := b.Get("content"); c.Exists() {
		if !d.summary {
			f.Web = claudecode.Compact(c.Raw)
		}
		if c.Get("type").Str != "" && strings.HasSuffix(c.Get("type").Str, "_error") {
			f.Status = event.ToolError
		}
	}
	l.own(f)
}
