package claude

import (
	"slices"
	"strconv"
	"strings"

	"github.com/evtool/evtool/event"
	"github.com/tidwall/gjson"
)

// The permission requests of Claude Code's control protocol: a
// can_use_tool control_request for each, its control_response when it is
// answered, and the requests open for each call, dropped as they are
// answered or their call finishes.

// permissionRequested writes a can_use_tool control_request, with a
// request id of its own when the source has none.
func (e *Encoder) permissionRequested(ev *event.Event, b *event.PermissionRequested) error {
	loss := e.loss
	c := *b
	if _, ok := e.asked[c.RequestID]; ok && c.RequestID != "" {
		loss.Add(lossRepeatedPermissionRequest)
		return nil
	}
	if c.RequestID == "" {
		e.requests++
		c.RequestID = "evtool-request-" + strconv.Itoa(e.requests)
		loss.Add(lossPermissionRequestID)
	}
	if c.Description != "" || c.Risk != "" {
		loss.Add(lossPermissionDescriptionRisk)
	}
	e.ask(c.RequestID, c.CallID)
	if len(c.Preview) > 0 && !gjson.ParseBytes(c.Preview).IsObject() {
		loss.Add(lossPermissionPreview)
	}
	return e.line("control_request", &event.Event{Time: ev.Time, Body: &c})
}

// permissionResolved writes the control_response to a request written
// before; a denial of no request is system/permission_denied.
func (e *Encoder) permissionResolved(ev *event.Event, b *event.PermissionResolved) error {
	loss := e.loss
	if b.Scope != "" {
		loss.Add(lossPermissionScope)
	}
	// An answer goes to its request, or to the call's latest open one.
	request := b.RequestID
	if request == "" {
		if rs := e.askedFor[b.CallID]; len(rs) > 0 {
			request = rs[len(rs)-1]
		}
	}
	if _, ok := e.asked[request]; !ok || request == "" {
		if b.RequestID == "" && b.Outcome == event.Denied {
			return e.line("system/permission_denied", ev)
		}
		loss.Add(lossPermissionOutcomeUnasked)
		return nil
	}
	c := *b
	c.RequestID = request
	e.answer(request)
	return e.line("control_response", &event.Event{Time: ev.Time, Body: &c})
}

// ask opens a permission request of a call. A request open already (an
// id evtool made up that the source used too) is asked anew.
func (e *Encoder) ask(request, call string) {
	e.answer(request)
	request, call = strings.Clone(request), strings.Clone(call)
	e.asked[request] = call
	e.askedFor[call] = append(e.askedFor[call], request)
}

// answer closes a permission request.
func (e *Encoder) answer(request string) {
	call, ok := e.asked[request]
	if !ok {
		return
	}
	delete(e.asked, request)
	rs := e.askedFor[call]
	if i := slices.Index(rs, request); i >= 0 {
		rs = slices.Delete(rs, i, i+1)
	}
	if len(rs) == 0 {
		delete(e.askedFor, call)
	} else {
		e.askedFor[call] = rs
	}
}
