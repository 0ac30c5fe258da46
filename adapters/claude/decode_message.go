package claude

import (
	"cmp"
	"encoding/json"
	"strings"

	"github.com/evtool/evtool/adapters/internal/claudecode"
	"github.com/evtool/evtool/event"
	"github.com/evtool/evtool/internal/jsonobj"
	"github.com/tidwall/gjson"
)

// The lines of the conversation: assistant and user messages, their
// content blocks (text, thinking, tool use and results), and streamed
// deltas.

// knownCall returns the call of an id, synthesising its tool_call when the
// id is new (a result or progress line for a call the stream never showed).
func (l *line) knownCall(id, name string) *call {
	c := l.d.call(id)
	if c == nil {
		// Cloned: the line's strings share its memory, which a kept
		// string would keep whole.
		c = &call{name: strings.Clone(name)}
		l.d.calls.Add(id, 0, name)
		l.pre = append(l.pre, &event.Event{Synthetic: true, AgentID: l.thread(), Body: &event.ToolCall{CallID: id, Name: name, Kind: kindIfNamed(name)}})
	}
	return c
}

// closedCall stands for every call that has its result: only its being
// closed is asked of it.
var closedCall = &call{closed: true}

// call returns the call of an id: open, closed (closedCall), or nil for
// an id not seen.
func (d *Decoder) call(id string) *call {
	if e, ok := d.calls.Get(id); ok {
		return &call{name: e.Name}
	}
	if d.done.Has(id) {
		return closedCall
	}
	return nil
}

// close moves a call that has its result out of the open calls: what is
// kept of it is its id's digest, so that the calls a long stream makes
// cost a few bytes each once they are over.
func (d *Decoder) close(id string) {
	d.calls.Delete(id)
	d.done.Add(id, 0)
}

func kindIfNamed(name string) event.ToolKind {
	if name == "" {
		return ""
	}
	return claudecode.ToolKind(name)
}

func (l *line) assistant() {
	d := l.d
	agent := l.thread()
	m := l.r.Get("message")
	id := m.Get("id").Str
	if r := d.rounds[agent]; r != nil && r.id != id {
		l.pre = append(l.pre, d.closeRound(agent))
	}
	l.model(agent, m.Get("model").Str)
	r := d.rounds[agent]
	if r == nil && d.closed[agent] != id {
		// Copies: the round outlives the line, whose copy the strings
		// cut from it would keep alive.
		r = &round{id: strings.Clone(id), agent: strings.Clone(agent)}
		d.rounds[r.agent] = r
		d.order = append(d.order, r.agent)
	}
	if r != nil {
		if !r.final {
			r.usage = usageOf(m.Get("usage"))
		}
		if s := m.Get("stop_reason"); s.Type == gjson.String {
			r.stop = claudecode.StopReason(s.Str)
		}
	}
	i := 0
	jsonobj.ForEach(m.Get("content"), func(_, b gjson.Result) bool {
		switch b.Get("type").Str {
		case "text":
			l.group = append(l.group, &event.Event{AgentID: agent, Body: &event.Message{Text: b.Get("text").Str, MessageID: id}})
		case "thinking":
			l.group = append(l.group, &event.Event{AgentID: agent, Body: &event.Reasoning{Text: b.Get("thinking").Str}})
		case "redacted_thinking":
			l.group = append(l.group, &event.Event{AgentID: agent, Body: &event.Reasoning{Text: ""}})
		case "tool_use":
			l.toolUse(b, agent, i, r)
		}
		i++
		return true
	})
	if e := l.r.Get("error"); e.Type == gjson.String {
		l.group = append(l.group, &event.Event{AgentID: agent, Body: &event.Error{Message: e.Str}})
	}
	if len(l.group) == 0 {
		l.group = append(l.group, &event.Event{AgentID: agent, Body: &event.Message{Text: "", MessageID: id}})
	}
	l.stamp()
}

// usageOf reads the token counts of an API usage object.
func usageOf(u gjson.Result) event.Usage {
	return event.Usage{
		InputTokens:         claudecode.Count(u.Get("input_tokens")),
		OutputTokens:        claudecode.Count(u.Get("output_tokens")),
		CacheReadTokens:     claudecode.Count(u.Get("cache_read_input_tokens")),
		CacheCreationTokens: claudecode.Count(u.Get("cache_creation_input_tokens")),
	}
}

// model notes the model an API message of a thread names: a synthesised
// model_configured of the thread when it is not the model in force there
// (a subagent's, at first, is the main thread's), so that the rounds and
// calls of an Explore subagent on Haiku are Haiku's. Claude Code's own
// API-error messages name the model "<synthetic>", which is no model.
func (l *line) model(agent, model string) {
	d := l.d
	if model == "" || model == syntheticModel {
		return
	}
	cur, ok := d.models[agent]
	if !ok {
		cur = d.models[""]
	}
	if cur == model {
		return
	}
	d.models[strings.Clone(agent)] = strings.Clone(model)
	l.pre = append(l.pre, &event.Event{Synthetic: true, AgentID: agent, Body: &event.ModelConfigured{Model: model}})
}

// syntheticModel is the model Claude Code names on a message it wrote
// itself (an API error shown as the answer).
const syntheticModel = "<synthetic>"

// stamp gives the line's events its timestamp (user lines, and assistant
// lines since CLI 2.1.226), as canonical time.
func (l *line) stamp() {
	if t, ok := canonicalTime(l.str("timestamp")); ok {
		for _, ev := range l.group {
			ev.Time = t
		}
	}
}

func (l *line) toolUse(b gjson.Result, agent string, i int, r *round) {
	d := l.d
	id, name := b.Get("id").Str, b.Get("name").Str
	if r != nil {
		r.toolUse = true
	}
	if c := d.call(id); c != nil {
		l.group = append(l.group, &event.Event{AgentID: agent, Body: &event.Notice{Severity: event.SeverityWarning,
			Message: "tool_use " + id + " repeated"}})
		return
	}
	d.calls.Add(id, 0, name)
	input := compact(b.Get("input").Raw)
	c := &event.ToolCall{CallID: id, Name: name, Kind: claudecode.ToolKind(name), Input: input}
	in := jsonobj.View(input) // read in place: the title is cloned
	for _, k := range claudecode.TitleKeys {
		if v := in.Get(k); v.Type == gjson.String && v.Str != "" {
			c.Title = strings.Clone(claudecode.FirstLine(v.Str))
			break
		}
	}
	l.group = append(l.group, &event.Event{AgentID: agent, Body: c})
	l.post = append(l.post, &event.Event{AgentID: agent, Body: &event.ToolStarted{CallID: id, Name: name}})
	if isTodoWrite(name) {
		if p := claudecode.Plan(in); p != nil {
			l.post = append(l.post, &event.Event{AgentID: agent, Synthetic: true, Body: p})
		}
	}
	_ = i
}

// compact returns raw JSON without white space between tokens, as
// canonical writes it.
func compact(raw string) json.RawMessage {
	if raw == "" {
		return nil
	}
	return claudecode.Compact(raw)
}

// userText is the text of a user message's content: a string, or its
// text blocks joined by newlines.
func userText(c gjson.Result) string {
	if c.Type == gjson.String {
		return c.Str
	}
	var parts []string
	jsonobj.ForEach(c, func(_, b gjson.Result) bool {
		if b.Get("type").Str == "text" {
			parts = append(parts, b.Get("text").Str)
		}
		return true
	})
	return strings.Join(parts, "\n")
}

func (l *line) user() {
	d := l.d
	agent := l.thread()
	content := l.r.Get("message.content")
	if agent == "" && strings.Contains(content.Raw, claudecode.InterruptMarker) {
		d.interrupted = true
	}
	if d.rounds[agent] != nil && strings.Contains(content.Raw, `"tool_result"`) {
		// Tool results answer the thread's last model call: that round is over.
		l.pre = append(l.pre, d.closeRound(agent))
	}
	if content.Type == gjson.String {
		l.group = append(l.group, &event.Event{AgentID: agent, Body: &event.UserMessage{Text: content.Str}})
	}
	jsonobj.ForEach(content, func(_, b gjson.Result) bool {
		switch b.Get("type").Str {
		case "text":
			l.group = append(l.group, &event.Event{AgentID: agent, Body: &event.UserMessage{Text: b.Get("text").Str}})
		case "image":
			one := uint64(1)
			l.group = append(l.group, &event.Event{AgentID: agent, Body: &event.UserMessage{Text: "", ImageCount: &one}})
		case "tool_result":
			id := b.Get("tool_use_id").Str
			if d.rounds[id] != nil {
				// The subagent this call ran has answered: its last round is over.
				l.pre = append(l.pre, d.closeRound(id))
			}
			c := l.knownCall(id, "")
			if c.closed {
				l.group = append(l.group, &event.Event{AgentID: agent, Body: &event.Notice{Severity: event.SeverityWarning,
					Message: "a second tool_result for " + id}})
				break
			}
			d.close(id)
			f := &event.ToolFinished{CallID: id, Name: c.name, Status: event.ToolSuccess}
			if b.Get("is_error").Type == gjson.True {
				f.Status = event.ToolError
			}
			out := userText(b.Get("content"))
			f.Output = &out
			l.group = append(l.group, &event.Event{AgentID: agent, Body: f})
		}
		return true
	})
	if len(l.group) == 0 {
		l.group = append(l.group, &event.Event{AgentID: agent, Body: &event.UserMessage{Text: ""}})
	}
	l.stamp()
}

func (l *line) streamEvent() bool {
	agent := l.thread()
	e := l.r.Get("event")
	switch e.Get("type").Str {
	case "message_start":
		l.d.curMsg[strings.Clone(agent)] = strings.Clone(e.Get("message.id").Str)
	case "message_delta":
		// The message's final usage (the API's streamed counts are
		// cumulative): the assistant lines' snapshots were taken at its
		// start, so their output_tokens understate it. It is the only
		// figure a killed run (no result) has of the message's output.
		if r := l.d.rounds[agent]; r != nil && r.id == l.d.curMsg[agent] {
			if u := e.Get("usage"); u.IsObject() {
				f := usageOf(u)
				r.usage.InputTokens = cmp.Or(f.InputTokens, r.usage.InputTokens)
				r.usage.OutputTokens = cmp.Or(f.OutputTokens, r.usage.OutputTokens)
				r.usage.CacheReadTokens = cmp.Or(f.CacheReadTokens, r.usage.CacheReadTokens)
				r.usage.CacheCreationTokens = cmp.Or(f.CacheCreationTokens, r.usage.CacheCreationTokens)
				r.final = true
			}
		}
	case "content_block_delta":
		switch e.Get("delta.type").Str {
		case "text_delta":
			l.group = append(l.group, &event.Event{AgentID: agent, Body: &event.MessageDelta{Text: e.Get("delta.text").Str, MessageID: l.d.curMsg[agent]}})
			return false
		case "thinking_delta":
			l.group = append(l.group, &event.Event{AgentID: agent, Body: &event.ReasoningDelta{Text: e.Get("delta.thinking").Str}})
			return false
		}
	}
	return true
}
