package opencodestorage

// The parts of a message: text, reasoning and tool parts become the
// canonical events of what the model said and did; subtask, agent,
// compaction and retry parts the events of tasks, compaction and retries;
// the parts with no canonical place (step-start, step-finish, snapshot,
// patch, file) ride whole on the next event.

import (
	"encoding/json"
	"strings"

	"github.com/evtool/evtool/adapters/internal/opencodewire"
	"github.com/evtool/evtool/event"
	"github.com/evtool/evtool/internal/jsonenc"
	"github.com/evtool/evtool/internal/jsonobj"
	"github.com/tidwall/gjson"
)

func (d *Decoder) partLine(out []*event.Event, r, data gjson.Result, line []byte, n int) []*event.Event {
	typ := data.Get("type").Str
	if !partTypes[typ] {
		return d.push(out, n, "part", unknown("part:"+typ, line))
	}
	id := r.Get("id").Str
	user := d.msg != nil && !d.msg.assistant
	var res jsonobj.Residue
	if typ != "tool" {
		res.Add("id", jsonenc.String(nil, id))
	}
	frameResidue(r, &res, "id", "sessionID", "messageID", "data")
	ext := func(carried ...string) event.Ext {
		c := map[string]bool{"type": true}
		for _, k := range carried {
			c[k] = true
		}
		dataResidue(data, &res, c, id)
		if res.Empty() {
			return nil
		}
		return event.ExtOf(Name, res.Bytes())
	}
	at := func(paths ...string) string {
		for _, p := range paths {
			if t := d.millisAt(data.Get(p), ""); t != "" {
				return t
			}
		}
		return ""
	}
	switch typ {
	case "text":
		text := data.Get("text").Str
		if !user {
			return d.push(out, n, "part", &event.Event{Time: at("time.end", "time.start"), Ext: ext("text"),
				Body: &event.Message{Text: text, MessageID: r.Get("messageID").Str}})
		}
		ev := &event.Event{Time: at("time.end", "time.start"), Ext: ext("text"), Body: &event.UserMessage{Text: text}}
		out = d.push(out, n, "part", ev)
		if p := d.pending; p != nil && p.prompt == nil && data.Get("synthetic").Type != gjson.True && data.Get("ignored").Type != gjson.True {
			p.prompt = &text
			out = d.flushPending(out)
		}
		return out
	case "reasoning":
		return d.push(out, n, "part", &event.Event{Time: at("time.end", "time.start"), Ext: ext("text"),
			Body: &event.Reasoning{Text: data.Get("text").Str}})
	case "tool":
		return d.push(out, n, "part", d.tool(id, data, &res)...)
	case "subtask":
		return d.push(out, n, "part", &event.Event{Ext: ext("description", "prompt"), Body: &event.TaskUpdated{
			TaskID: id, Kind: event.TaskSubagent, Status: event.TaskPending,
			Title: data.Get("description").Str, Detail: data.Get("prompt").Str,
		}})
	case "agent":
		return d.push(out, n, "part", &event.Event{Ext: ext("name"), Body: &event.TaskUpdated{
			TaskID: id, Kind: event.TaskSubagent, Status: event.TaskPending, Title: data.Get("name").Str,
		}})
	case "compaction":
		d.compact = true
		return d.push(out, n, "part", &event.Event{Ext: ext(), Body: &event.CompactionStarted{}})
	case "retry":
		b := &event.Retry{Error: data.Get("error.data.message").Str}
		if b.Error == "" {
			b.Error = data.Get("error.name").Str
		}
		if a, msg := jsonobj.ParseUint(data.Get("attempt"), jsonobj.U64); msg == "" {
			b.Attempt = &a
		}
		return d.push(out, n, "part", &event.Event{Time: at("time.created"), Ext: ext("attempt"), Body: b})
	}
	// step-start, step-finish (whose tokens repeat the message's and are
	// never counted), snapshot, patch, file: no canonical event.
	d.before = append(d.before, append([]byte(nil), line...))
	return out
}

// tool reads a tool part: the call, its start once it runs, and its end
// once its state is completed or error. Rows are updated in place, so one
// line holds the call's last stored state; a call left pending or running
// is ended (cancelled) when its turn ends.
func (d *Decoder) tool(id string, data gjson.Result, res *jsonobj.Residue) []*event.Event {
	name := data.Get("tool").Str
	st := data.Get("state")
	status := st.Get("status").Str
	start := d.millisAt(st.Get("time.start"), "")
	call := &event.ToolCall{CallID: id, Name: name, Kind: toolKind(name), Title: st.Get("title").Str}
	if in := st.Get("input"); in.Exists() && in.Type != gjson.Null {
		call.Input = json.RawMessage(in.Raw)
	}
	// The residue: the part's other members, and the state's.
	dataResidue(data, res, map[string]bool{"type": true, "tool": true, "state": true}, id)
	var sres jsonobj.Residue
	carried := map[string]bool{"input": true, "title": true}
	fin := &event.ToolFinished{CallID: id, Name: name, Status: toolStates[status]}
	if fin.Status == "" {
		fin = nil
	} else {
		carried["status"], carried["output"], carried["error"] = true, true, true
		if v := st.Get("output"); v.Type == gjson.String {
			s := v.Str
			fin.Output = &s
		}
		fin.Error = st.Get("error").Str
		fin.ExitCode = opencodewire.BashExit(st, name)
	}
	if call.Title == "" && st.Get("title").Exists() {
		carried["title"] = false
	}
	opencodewire.KeepOthers(&sres, st, carried)
	if !sres.Empty() {
		res.Add("state", sres.Bytes())
	}
	evs := []*event.Event{{Time: start, Body: call}}
	if status != "pending" {
		evs = append(evs, &event.Event{Time: start, Body: &event.ToolStarted{CallID: id, Name: name}})
	}
	if fin == nil {
		d.calls[strings.Clone(id)] = openCall{name: strings.Clone(name), state: strings.Clone(status)}
	} else {
		delete(d.calls, id)
		evs = append(evs, &event.Event{Time: d.millisAt(st.Get("time.end"), ""), Body: fin})
	}
	if !res.Empty() {
		evs[len(evs)-1].Ext = event.ExtOf(Name, res.Bytes())
	}
	return evs
}

// unknown keeps a line evtool does not know whole.
func unknown(sourceType string, line []byte) *event.Event {
	return &event.Event{Body: &event.Unknown{Dialect: Name, SourceType: sourceType, Raw: append(json.RawMessage(nil), line...)}}
}
