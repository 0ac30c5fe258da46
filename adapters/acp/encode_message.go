package acp

import (
	"cmp"
	"strconv"
	"strings"

	"github.com/evtool/evtool/event"
)

// The conversation as chunks of messages and thoughts, and what the agent
// tells the user besides (plans, tasks, notices) as updates or thoughts.

// userMessage writes a user's message: the turn's prompt is the client's
// to send, another message is a user_message_chunk.
func (e *Encoder) userMessage(ev *event.Event, b *event.UserMessage) error {
	e.endStreams()
	if !e.meta && b.ImageCount != nil && *b.ImageCount > 0 {
		// Pasted images: the canonical message has their number only,
		// and an ACP image block needs its data.
		e.loss.Add(lossImageCount)
	}
	if ev.AgentID != "" {
		// A subagent's prompt: its parent wrote it, not the user.
		return e.subagentPrompt(ev, b)
	}
	if !e.turnOpen {
		e.beginTurn(false, b.Text)
	}
	if !e.gotPrompt && (e.prompt == b.Text || e.prompt == "" && e.promptID == 0) {
		// The turn's prompt. In a transcript the client's session/prompt
		// carries it, so it is not echoed back; a log (the history
		// session/load streams) shows it.
		e.gotPrompt, e.prompt = true, b.Text
		if e.transcript || e.basis() {
			return e.inTurn()
		}
	} else if e.basis() {
		return nil // basis's own mapping never echoes a user message
	}
	// Each its own messageId: without one, a client takes two user
	// messages in a row (a rewound prompt and its replacement) for one,
	// as Zed appends a user chunk to the user message before it.
	e.users++
	return e.chunks(ev, "user_message_chunk", b.Text, "user-"+strconv.Itoa(e.users))
}

// message writes an assembled message, unless its deltas carried it.
func (e *Encoder) message(ev *event.Event, b *event.Message) error {
	if e.inMsg && e.msgDelta {
		e.inMsg, e.msgDelta = false, false
		return nil // its deltas carried it already
	}
	if e.basis() {
		return nil
	}
	err := e.chunk(ev, b.Text, b.MessageID, false, false)
	e.inMsg = false
	return err
}

// reasoning writes assembled reasoning, unless its deltas carried it.
func (e *Encoder) reasoning(ev *event.Event, b *event.Reasoning) error {
	if e.inThink || e.basis() {
		e.inThink = false
		return nil
	}
	err := e.chunk(ev, b.Text, "", true, false)
	e.inThink = false
	return err
}

// plan writes a plan update; ACP knows three statuses.
func (e *Encoder) plan(ev *event.Event, b *event.PlanUpdated) error {
	var entries []obj
	for _, p := range b.Entries {
		entries = append(entries, obj{}.str("content", clip(p.Content, maxTitle)).str("priority", priority(p.Priority)).str("status", planStatus(p.Status)))
		if p.Status != "pending" && p.Status != "in_progress" && p.Status != "completed" {
			e.loss.AddDetail(lossPlanStatus, strconv.Quote(p.Status))
		}
	}
	return e.notify(obj{}.str("sessionUpdate", "plan").add("entries", arr(entries...)), ev)
}

// task writes a task's state as a thought.
func (e *Encoder) task(ev *event.Event, b *event.TaskUpdated) error {
	switch b.Kind {
	case "", event.TaskSubagent, event.TaskBackground, event.TaskTeammate:
	default:
		if !e.basis() {
			// A producer's internal work (muse's model responses and
			// reminders) would bury the conversation in thoughts.
			e.loss.Add(lossInternalTask)
			return nil
		}
	}
	title := cmp.Or(b.Title, string(b.Kind), b.TaskID)
	return e.thought(ev, "["+taskLabel(b.Status)+"] "+title)
}

// notice writes a notice: the unstable profile's notice update, else a
// thought.
func (e *Encoder) notice(ev *event.Event, b *event.Notice) error {
	// A notice of the session before its first turn (a hook line
	// before Claude Code's init) is an update before any prompt, as
	// available_commands_update is, rather than a turn of its own.
	e.free = e.outside(ev)
	defer func() { e.free = false }()
	if e.profile == Unstable && b.Message != "" {
		sev := cmp.Or(b.Severity, event.SeverityInfo)
		return e.notify(obj{}.str("sessionUpdate", "notice").str("severity", string(sev)).str("title", clip(b.Message, maxTitle)), ev)
	}
	return e.thought(ev, b.Message)
}

// commands renders prompt templates as ACP AvailableCommands.
func commands(cs []event.Command) []byte {
	items := make([]obj, 0, len(cs))
	for _, c := range cs {
		o := obj{}.str("name", strings.TrimPrefix(c.Name, "/")).str("description", clip(c.Description, maxTitle))
		if c.Hint != "" {
			o = o.sub("input", obj{}.str("hint", clip(c.Hint, maxTitle)))
		}
		items = append(items, o)
	}
	return arr(items...)
}

// chunkID returns prefix and n as a message id, made once per message
// rather than once per chunk.
func (e *Encoder) chunkID(prefix string, n int) string {
	if e.lastID.prefix != prefix || e.lastID.n != n {
		e.lastID.prefix, e.lastID.n, e.lastID.id = prefix, n, prefix+strconv.Itoa(n)
	}
	return e.lastID.id
}

// chunk writes a message or thought chunk; messageId is stable within one
// message and changes with the next.
func (e *Encoder) chunk(ev *event.Event, s, id string, thought, delta bool) error {
	kind := "agent_message_chunk"
	if thought {
		kind = "agent_thought_chunk"
		if !e.inThink {
			e.thoughts++
			e.inThink = true
		}
		e.inMsg = false
	} else {
		if !e.inMsg {
			e.msgs++
			e.inMsg, e.msgDelta = true, delta
		}
		e.inThink = false
	}
	if !e.basis() && id == "" {
		if thought {
			id = e.chunkID("thought-", e.thoughts)
		} else {
			id = e.chunkID("msg-", e.msgs)
		}
	}
	return e.chunks(ev, kind, s, id)
}

// chunks writes text as chunks of one message (one id), as many as it
// takes to keep each message under the size limit.
func (e *Encoder) chunks(ev *event.Event, kind, s, id string) error {
	for first := true; first || s != ""; first = false {
		part := s
		if len(part) > maxText {
			part = s[:cut(s, maxText)]
		}
		s = s[len(part):]
		content := e.lit(sf("type", "text"), sf("text", part))
		var u obj
		if id != "" && !e.basis() {
			u = e.lit(sf("sessionUpdate", kind), sf("messageId", id), of("content", content))
		} else {
			u = e.lit(sf("sessionUpdate", kind), of("content", content))
		}
		if err := e.notify(u, ev); err != nil {
			return err
		}
	}
	return nil
}

// endStreams ends the message or thought being streamed: the next chunk
// starts a new one.
func (e *Encoder) endStreams() { e.inMsg, e.inThink = false, false }

func (e *Encoder) thought(ev *event.Event, s string) error {
	err := e.chunk(ev, s, "", true, false)
	e.inThink = false
	return err
}

func priority(p string) string {
	if p == "high" || p == "low" || p == "medium" {
		return p
	}
	return "medium" // ACP requires one; the source has none
}

func planStatus(s string) string {
	switch s {
	case "pending", "in_progress", "completed":
		return s
	case "done", "finished", "cancelled", "failed":
		return "completed"
	}
	return "pending"
}

// taskLabel names a task status in a thought, as basis's own ACP mapping
// prints its task states: [Spawned] for a task not yet running, and so on.
func taskLabel(s event.TaskStatus) string {
	switch s {
	case event.TaskPending:
		return "Spawned"
	case event.TaskRunning:
		return "Running"
	case event.TaskCompleted:
		return "Finished"
	case event.TaskFailed:
		return "Failed"
	case event.TaskCancelled:
		return "Cancelled"
	}
	return "Unknown"
}

// retryText says what is retried, with the counts the source states.
func retryText(b *event.Retry) string {
	s := "retrying after " + b.Error
	switch {
	case b.Attempt != nil && b.MaxAttempts != nil:
		s += " (attempt " + strconv.FormatUint(*b.Attempt, 10) + "/" + strconv.FormatUint(*b.MaxAttempts, 10) + ")"
	case b.Attempt != nil:
		s += " (attempt " + strconv.FormatUint(*b.Attempt, 10) + ")"
	}
	return s
}
