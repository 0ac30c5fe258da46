package view

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/evtool/evtool/event"
)

// card returns the card of a call: the open one of its id, or a new one.
// A call whose id finished before is a new call, as stats.Counter counts
// it. It returns nil past Limits.Items.
func (m *model) card(ev *event.Event, id, name string, finishing bool) *call {
	if c := m.calls[id]; c != nil && !c.finished {
		if c.start == "" && ev.Time != "" && !finishing {
			c.start = ev.Time
		}
		if c.name == "" {
			c.name = name
		}
		return c
	}
	if !m.room() {
		delete(m.calls, id)
		return nil
	}
	m.ids++
	c := &call{n: m.ids, id: id, name: name}
	if !finishing {
		c.start = ev.Time
	}
	m.calls[id] = c
	m.cards = append(m.cards, c)
	m.blockOf(ev).add(c)
	return c
}

// input keeps a call's input: indented JSON when it is small enough to
// be shown whole, else its text as it came; and what the card shows of
// it at a glance: an execute call's command, an edit's diff.
func (m *model) input(c *call, raw json.RawMessage) {
	if len(raw) > m.lim.Text {
		c.input = m.keep(string(raw))
		return
	}
	var buf bytes.Buffer
	if err := json.Indent(&buf, raw, "", "  "); err == nil {
		c.input = m.keep(buf.String())
	} else {
		c.input = m.keep(string(raw))
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) == nil {
		if s, ok := strOK(obj, "command", "cmd"); ok {
			c.cmd = m.keep(s)
		} else {
			var argv []string
			if json.Unmarshal(obj["command"], &argv) == nil && len(argv) > 0 {
				c.cmd = m.keep(strings.Join(argv, " "))
			}
		}
	}
	if isEdit(c) {
		c.diff = inputDiff(raw, m)
	}
}

func (m *model) toolFinished(ev *event.Event, b *event.ToolFinished) {
	c := m.card(ev, b.CallID, b.Name, true)
	if c == nil {
		return
	}
	f := *b
	f.Output, f.Summary, f.Error, f.Edit, f.Web = nil, nil, "", nil, nil
	c.fin, c.finished, c.end = &f, true, ev.Time
	if c.kind == "" {
		c.kind = b.Kind
	}
	if b.Output != nil {
		c.finOut = m.keep(*b.Output)
		if c.out != nil && c.out.String() == c.finOut.String() {
			c.out = nil // the chunks said the same
		}
	}
	if b.Summary != nil && *b.Summary != "" {
		c.finSummary = m.keep(*b.Summary)
	}
	if b.Error != "" {
		c.finError = m.keep(b.Error)
	}
	if len(b.Edit) > 0 {
		// The change as made, when it states its diff, over the change
		// the input asked for.
		if d := editDiff(b.Edit, m); d != nil && (c.diff == nil || d.hasText()) {
			c.diff = d
		} else {
			c.finEdit = m.keep(string(b.Edit))
		}
	}
	if len(b.Web) > 0 {
		c.finWeb = m.keep(string(b.Web))
	}
}

func (m *model) permRequested(ev *event.Event, b *event.PermissionRequested) {
	p := &perm{req: b}
	if b.Description != "" {
		p.desc = m.keep(b.Description)
	}
	if len(b.Preview) > 0 {
		p.preview = m.keep(string(b.Preview))
	}
	r := *b
	r.Description, r.Preview = "", nil
	p.req = &r
	if len(m.perms) < 1000 {
		m.perms = append(m.perms, p)
	}
	if c := m.calls[b.CallID]; b.CallID != "" && c != nil {
		c.perms = append(c.perms, p)
		return
	}
	// Asked before its call was made known, or for no call: on its own.
	if m.room() {
		m.blockOf(ev).add(p)
	}
}

func (m *model) permResolved(ev *event.Event, b *event.PermissionResolved) {
	// The request it answers: by request id, else by call id, else the
	// latest unanswered.
	match := -1
	for i := len(m.perms) - 1; i >= 0; i-- {
		p := m.perms[i]
		switch {
		case b.RequestID != "" && p.req.RequestID == b.RequestID,
			b.RequestID == "" && b.CallID != "" && p.req.CallID == b.CallID,
			b.RequestID == "" && b.CallID == "":
			match = i
		}
		if match >= 0 {
			break
		}
	}
	r := *b
	if match >= 0 {
		m.perms[match].res = &r
		m.perms = append(m.perms[:match], m.perms[match+1:]...)
		return
	}
	// An answer without a request (muse states only the answer).
	p := &perm{res: &r}
	if c := m.calls[b.CallID]; b.CallID != "" && c != nil {
		c.perms = append(c.perms, p)
		return
	}
	if m.room() {
		m.blockOf(ev).add(p)
	}
}

func (m *model) taskUpdated(ev *event.Event, b *event.TaskUpdated) {
	t := m.tasks[b.TaskID]
	if t == nil {
		if !m.room() {
			return
		}
		t = &task{id: b.TaskID, kind: b.Kind}
		m.tasks[b.TaskID] = t
		if b.Kind == event.TaskInternal {
			// The producer's own housekeeping (model calls, reminders).
			if h := m.hkOf(ev); h != nil {
				h.notes = append(h.notes, &note{class: "info", label: "task", task: t})
			}
		} else {
			m.blockOf(ev).add(t)
		}
	}
	t.updates++
	t.status = b.Status
	if b.Kind != "" {
		t.kind = b.Kind
	}
	if b.Title != "" {
		t.title = b.Title
	}
	if b.Detail != "" {
		t.detail = m.keep(b.Detail)
	}
	if b.Reason != "" {
		t.reason = b.Reason
	}
	if b.ParentTaskID != "" {
		t.parent = b.ParentTaskID
	}
}
