package opencode

// Tool calls: the tool_use line the encoder writes when a call finishes,
// from what its tool_call, tool_started and tool_output said, and the tool
// part the decoder reads into those events.

import (
	"encoding/json"
	"strconv"

	"github.com/evtool/evtool/adapters/internal/opencodewire"
	"github.com/evtool/evtool/event"
	"github.com/evtool/evtool/internal/jsonkeys"
	"github.com/evtool/evtool/internal/jsonobj"
	"github.com/evtool/evtool/ndjson"
	"github.com/tidwall/gjson"
)

// toolCall records what a call says for its tool_use line, written when
// it finishes.
func (e *Encoder) toolCall(ev *event.Event, b *event.ToolCall) {
	c := e.callOf(b.CallID)
	c.name, c.title, c.input = b.Name, b.Title, b.Input
	if c.start == "" {
		c.start = ev.Time
	}
	if !e.native {
		if b.Mutability != "" {
			e.loss.Add(lossToolMutability)
		}
		if b.Kind != "" && b.Kind != toolKind(b.Name) {
			e.loss.Add(lossToolKind)
		}
	}
}

// toolStarted records a call's start; an opencode source's tool_use line
// of a call that had not ended comes back as it was.
func (e *Encoder) toolStarted(ev *event.Event, res gjson.Result, b *event.ToolStarted) error {
	if ev.Time != "" {
		e.callOf(b.CallID).start = ev.Time
	}
	if e.native && res.Get("part").IsObject() {
		// A tool_use line of a call that had not ended (pending or
		// running): it comes back as it was.
		if err := e.flush(); err != nil {
			return err
		}
		return e.partLine(ev, res, "tool_use", func(p *obj) {
			e.toolPart(p, &event.ToolFinished{CallID: b.CallID, Name: b.Name}, ev)
		})
	}
	return nil
}

// toolFinished writes a call's tool_use line.
func (e *Encoder) toolFinished(ev *event.Event, res gjson.Result, b *event.ToolFinished) error {
	if err := e.flush(); err != nil {
		return err
	}
	return e.partLine(ev, res, "tool_use", func(p *obj) { e.toolPart(p, b, ev) })
}

func (e *Encoder) callOf(id string) *call {
	c := e.calls[id]
	if c == nil {
		c = &call{}
		e.calls[id] = c
	}
	return c
}

// toolPart writes the part of a call's tool_use line.
func (e *Encoder) toolPart(p *obj, b *event.ToolFinished, ev *event.Event) {
	c := e.callOf(b.CallID)
	delete(e.calls, b.CallID)
	name := b.Name
	if name == "" {
		name = c.name
	}
	if name == "" && !e.native {
		name = "tool"
		e.loss.Add(lossToolName)
	}
	p.str("id", b.CallID)
	p.str("sessionID", e.session)
	if e.native {
		p.opt("messageID")
	} else {
		p.str("messageID", e.stepMsg)
	}
	p.str("type", "tool")
	if e.native {
		p.opt("callID")
	} else {
		p.str("callID", b.CallID)
	}
	p.str("tool", name)
	p.sub("state", func(s *obj) {
		status, ok := map[event.ToolStatus]string{event.ToolSuccess: "completed", event.ToolError: "error"}[b.Status]
		if !ok {
			status = "error"
			if !e.native { // a native line's own word comes from its residue
				e.loss.AddDetail(lossToolStatus, strconv.Quote(string(b.Status)))
			}
		}
		s.str("status", status)
		input := c.input
		if len(input) == 0 || input[0] != '{' {
			if !e.native {
				if len(input) > 0 && string(input) != "null" {
					e.loss.Add(lossToolInputNotObject)
				}
				input = json.RawMessage("{}")
			}
		} else if !e.native && ndjson.CheckDepth(input, 64) == nil {
			// A foreign source has no opencode key order for a tool's
			// input: its keys are sorted, so that the line does not depend
			// on how the source was written.
			input = jsonkeys.Reorder(input, jsonkeys.Sorted)
		}
		if len(input) > 0 {
			s.raw("input", input)
		} else {
			s.opt("input")
		}
		s.opt("raw")
		out := b.Output
		if out == nil && c.output.Len() > 0 {
			o := c.output.String()
			out = &o
			e.loss.Add(lossToolOutputChunks)
		}
		if status == "completed" {
			text := ""
			if out != nil {
				text = *out
			}
			if out != nil || !e.native {
				s.str("output", text)
			} else {
				s.opt("output")
			}
		} else {
			if out != nil {
				s.str("output", *out)
			}
			msg := b.Error
			if msg == "" && !e.native {
				msg = string(b.Status)
			}
			if msg != "" || !e.native {
				s.str("error", msg)
			} else {
				s.opt("error")
			}
		}
		title := c.title
		if title != "" || (!e.native && status == "completed") {
			s.str("title", title)
		} else {
			s.opt("title")
		}
		if e.native {
			s.opt("metadata")
			s.opt("time")
		} else {
			if status == "completed" || b.ExitCode != nil {
				s.raw("metadata", metadata(b.ExitCode))
			}
			start := e.stampOf(c.start)
			end := e.cur // the line's own time, stamped (and counted) once
			if start == "" {
				start = end
			}
			s.raw("time", []byte(`{"start":`+start+`,"end":`+end+`}`))
			e.toolLosses(b, title)
		}
		s.opt("attachments")
	})
	p.opt("metadata")
}

// metadata is a foreign call's metadata: its exit code, if it stated one.
func metadata(exit *int64) []byte {
	if exit == nil {
		return []byte("{}")
	}
	return []byte(`{"exit":` + strconv.FormatInt(*exit, 10) + `}`)
}

func (e *Encoder) stampOf(t string) string {
	if t == "" {
		return ""
	}
	ms, _ := e.millis(t)
	return ms
}

func (e *Encoder) toolLosses(b *event.ToolFinished, title string) {
	if b.Summary != nil && *b.Summary != "" && *b.Summary != title {
		e.loss.Add(lossToolSummary)
	}
	if b.Command != "" {
		e.loss.Add(lossToolCommand)
	}
	if len(b.Edit) > 0 {
		e.loss.Add(lossToolEdit)
	}
	if len(b.Web) > 0 {
		e.loss.Add(lossToolWeb)
	}
}

// tool reads a tool part: a call that has ended (run writes no other),
// or, on the bus, one whose state says so.
func (d *Decoder) tool(p gjson.Result, ptr, id string, res *jsonobj.Residue) []*event.Event {
	o := &d.o
	name := d.str(p, ptr, "tool")
	if !p.Get("tool").Exists() {
		res.Absent("tool")
	}
	st := p.Get("state")
	sptr := ptr + "/state"
	call := &event.ToolCall{CallID: id, Name: name, Kind: toolKind(name)}
	fin := &event.ToolFinished{CallID: id, Name: name}
	var sres jsonobj.Residue
	var started string
	if !st.Exists() {
		res.Absent("state")
		fin.Status = event.ToolError
		sres.Add("status", []byte("null"))
	} else if !st.IsObject() {
		o.Fail(sptr, "must be an object")
	} else {
		carried := map[string]bool{"status": true, "input": true, "output": true, "error": true, "title": true}
		status := st.Get("status")
		if status.Type != gjson.String {
			o.Fail(sptr+"/status", "must be a string")
		}
		if s, ok := toolStatuses[status.Str]; ok {
			fin.Status = s
		} else {
			// pending, running or a newer word: the call has not ended,
			// and no outcome is invented for it (run never writes such a
			// line; opencode/tool-not-ended). The word is kept.
			// What such a state says of an outcome (a newer server's
			// partial output, a hostile line's error) rides in the
			// residue whole.
			fin = nil
			sres.Add("status", []byte(status.Raw))
			carried["output"], carried["error"] = false, false
		}
		if in := st.Get("input"); in.Exists() {
			call.Input = json.RawMessage(in.Raw)
			if len(call.Input) == 0 || in.Type == gjson.Null {
				sres.Add("input", []byte(in.Raw))
			}
		} else {
			sres.Absent("input")
		}
		if v := st.Get("output"); v.Exists() && fin != nil {
			s := d.str(st, sptr, "output")
			fin.Output = &s
		}
		if v := st.Get("error"); v.Exists() && fin != nil {
			fin.Error = d.str(st, sptr, "error")
			if fin.Error == "" {
				sres.Add("error", []byte(v.Raw))
			}
		}
		if v := st.Get("title"); v.Exists() {
			call.Title = d.str(st, sptr, "title")
			if call.Title == "" {
				sres.Add("title", []byte(v.Raw))
			}
		}
		if v := st.Get("time.start"); v.Exists() {
			started = d.millis(sptr+"/time/start", v, false)
		}
		if v := st.Get("time.end"); v.Exists() {
			d.millis(sptr+"/time/end", v, false)
		}
		// bash states its exit code in metadata; metadata stays whole in
		// the residue, the exit code is read from it.
		if fin != nil {
			fin.ExitCode = opencodewire.BashExit(st, name)
		}
		opencodewire.KeepOthers(&sres, st, carried)
	}
	if !sres.Empty() {
		res.Add("state", sres.Bytes())
	}
	if fin == nil {
		// The line is the call's start: tool_started carries it, at the
		// line's time (state.time rides in the residue).
		return []*event.Event{
			{Synthetic: true, Time: started, Body: call},
			{Body: &event.ToolStarted{CallID: id, Name: name}},
		}
	}
	return []*event.Event{
		{Synthetic: true, Time: started, Body: call},
		{Synthetic: true, Time: started, Body: &event.ToolStarted{CallID: id, Name: name}},
		{Body: fin},
	}
}
