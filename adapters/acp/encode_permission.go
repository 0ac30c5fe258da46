package acp

import (
	"cmp"
	"slices"
	"strings"

	"github.com/evtool/evtool/event"
)

// Permission requests: asked as session/request_permission, answered (in
// a transcript) with the recorded outcome, cancelled when their turn ends.

// perm is an unanswered permission request. Requests are answered in the
// order their keys were first used, and a key used again names the latest
// request (the earlier one, if unanswered, is never answered).
type perm struct {
	id          int
	key, call   string
	first, last uint64 // positions of the key's first and of this request
}

var permissionOptions = arr(
	obj{}.str("optionId", "allow-once").str("name", "Allow once").str("kind", "allow_once"),
	obj{}.str("optionId", "allow-always").str("name", "Always allow").str("kind", "allow_always"),
	obj{}.str("optionId", "reject-once").str("name", "Reject").str("kind", "reject_once"),
	obj{}.str("optionId", "reject-always").str("name", "Always reject").str("kind", "reject_always"),
)

func (e *Encoder) permission(ev *event.Event, b *event.PermissionRequested) error {
	if b.CallID == "" {
		e.loss.Add(lossPermissionRequestNoCall)
		return nil
	}
	t, ok := e.tools.get(b.CallID)
	finished, closed := e.done.Get(b.CallID)
	if !ok && !closed {
		e.loss.Add(lossSynthesizedToolCallForPermission)
		if err := e.announce(ev, b.CallID, b.Tool, "", "", nil, "pending", nil); err != nil {
			return err
		}
		t, _ = e.tools.get(b.CallID)
	}
	if err := e.inTurn(); err != nil {
		return err
	}
	id := e.nextID
	e.nextID++
	key := b.RequestID
	if key == "" {
		key = "call:" + b.CallID
	}
	e.ask(key, b.CallID, id)
	// The request shows the tool call. A client applies its toolCall to
	// the call, so the title stays the call's own; what the person is
	// asked (the description) is shown as the call's content.
	var title string
	var kind event.ToolKind
	if t != nil {
		title, kind = t.title, t.kind
	} else {
		title, kind = e.closedTool(finished) // a request after the call finished
	}
	call := obj{}.str("toolCallId", b.CallID).str("title", title).str("kind", string(kind)).str("status", "pending")
	if b.Description != "" && b.Description != title && !e.basis() {
		var c []obj
		if t != nil {
			c = t.content(false)
		}
		call = call.add("content", arr(append(c, textContent(clip(b.Description, maxText)))...))
	}
	params := obj{}.str("sessionId", e.session).sub("toolCall", call).add("options", permissionOptions)
	params = e.withMeta(params, ev)
	if !e.meta && len(b.Preview) > 0 && string(b.Preview) != "null" {
		e.loss.Add(lossPermissionPreview)
	}
	return e.writeObj(obj{}.str("jsonrpc", "2.0").num("id", id).str("method", "session/request_permission").sub("params", params))
}

// resolved writes, in a transcript, the client's recorded answer.
func (e *Encoder) resolved(b *event.PermissionResolved) error {
	key := b.RequestID
	if key == "" {
		key = "call:" + b.CallID
	}
	p, ok := e.perms[key]
	if !ok && !e.answered.Has(key) {
		// The latest unanswered request for the call.
		for _, q := range e.byCall[b.CallID] {
			if p == nil || q.last > p.last {
				p = q
			}
		}
		ok = p != nil
	}
	if !ok {
		e.loss.Add(lossPermissionOutcomeUnasked)
		return nil
	}
	option := "allow-once"
	switch {
	case b.Outcome == "allowed" && b.Scope != "":
		option = "allow-always"
	case b.Outcome == "denied" && b.Scope != "":
		option = "reject-always"
	case b.Outcome == "denied":
		option = "reject-once"
	}
	return e.answer(p, obj{}.str("outcome", "selected").str("optionId", option))
}

// answerPermission answers, from the tool's outcome, a request the source
// never resolved (mermaid shows an approval's outcome only that way).
func (e *Encoder) answerPermission(call string, status event.ToolStatus) error {
	for _, p := range byFirst(e.byCall[call]) {
		option := "allow-once"
		if status == "cancelled" || status == "rejected" {
			option = "reject-once"
		}
		if e.transcript {
			e.loss.Add(lossPermissionAnswerInferred)
		}
		if err := e.answer(p, obj{}.str("outcome", "selected").str("optionId", option)); err != nil {
			return err
		}
	}
	return nil
}

func (e *Encoder) answer(p *perm, outcome obj) error {
	e.forget(p)
	e.answered.Add(p.key, p.first)
	if !e.transcript {
		return nil
	}
	return e.writeObj(obj{}.str("jsonrpc", "2.0").num("id", p.id).sub("result", obj{}.sub("outcome", outcome)))
}

// ask records a permission request under key.
func (e *Encoder) ask(key, call string, id int) {
	e.asked++
	p := &perm{id: id, key: strings.Clone(key), call: strings.Clone(call), first: e.asked, last: e.asked}
	if old := e.perms[key]; old != nil {
		p.first = old.first
		e.forget(old) // replaced: never answered
	} else if first, ok := e.answered.Get(key); ok {
		p.first = first
	}
	e.perms[p.key] = p
	e.byCall[p.call] = append(e.byCall[p.call], p)
}

// forget removes an unanswered request from the indexes.
func (e *Encoder) forget(p *perm) {
	delete(e.perms, p.key)
	ps := e.byCall[p.call]
	if i := slices.Index(ps, p); i >= 0 {
		ps = slices.Delete(ps, i, i+1)
	}
	if len(ps) == 0 {
		delete(e.byCall, p.call)
	} else {
		e.byCall[p.call] = ps
	}
}

// byFirst returns a copy of ps in the order their keys were first used.
func byFirst(ps []*perm) []*perm {
	ps = slices.Clone(ps)
	slices.SortFunc(ps, func(a, b *perm) int { return cmp.Compare(a.first, b.first) })
	return ps
}
