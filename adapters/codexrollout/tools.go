package codexrollout

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/evtool/evtool/event"
	"github.com/evtool/evtool/internal/jsonobj"
	"github.com/tidwall/gjson"
)

// Tool calls. A call is announced by its call item (function_call,
// custom_tool_call, local_shell_call, tool_search_call, or a
// dynamic_tool_call_request event) and ended by the first line that
// reports its end: its output item (function_call_output and kin), or an
// end event (exec_command_end, patch_apply_end, mcp_tool_call_end,
// web_search_end, image_generation_end, dynamic_tool_call_response,
// collab_*_end), which the builds that persist them write before the
// output item. A later report of a finished call is a copy. A report of a
// call no line announced (a shell command the user typed, "!cmd") is
// announced by a synthetic tool_call first. web_search_call and
// image_generation_call are whole calls in one item: announced and ended
// at once.

// toolCall reads a call item.
func (d *Decoder) toolCall(l *line) {
	var (
		id, name, title string
		input           json.RawMessage
		consumed        []string
	)
	switch l.v.ptype {
	case "function_call":
		name, id = l.str("name"), l.str("call_id")
		args := l.str("arguments")
		if l.err != nil {
			return
		}
		consumed = append(consumed, "name", "call_id")
		// The arguments are a JSON text in a string (the Responses API's
		// form); a text that is no JSON (a model's slip) stays in the
		// residue as written.
		if json.Valid([]byte(args)) {
			input = json.RawMessage(args)
			consumed = append(consumed, "arguments")
		}
	case "custom_tool_call":
		name, id = l.str("name"), l.str("call_id")
		in := l.get("input")
		if l.err == nil && in.Type != gjson.String {
			l.fail(l.ptr("input"), "got "+jsonobj.TypeName(in)+", want a string")
		}
		if l.err != nil {
			return
		}
		// A freeform tool's input is text (apply_patch's grammar): the
		// JSON string itself is the input.
		input = json.RawMessage(in.Raw)
		consumed = append(consumed, "name", "call_id", "input")
	case "local_shell_call":
		id = l.optStr("call_id")
		if id == "" {
			id = l.optStr("id") // the legacy id, where no call_id is set
		} else {
			consumed = append(consumed, "call_id")
		}
		name = "local_shell"
		if a := l.get("action"); a.IsObject() {
			input = json.RawMessage(a.Raw)
			title = commandText(jsonobj.Lookup(a, "command"))
			consumed = append(consumed, "action")
		}
	case "tool_search_call":
		id, name = l.optStr("call_id"), "tool_search"
		if id != "" {
			consumed = append(consumed, "call_id")
		}
		if a := l.get("arguments"); a.Exists() {
			input = json.RawMessage(a.Raw)
			consumed = append(consumed, "arguments")
		}
	case "dynamic_tool_call_request":
		id, name = l.str("call_id"), l.str("tool")
		consumed = append(consumed, "call_id", "tool")
		if a := l.get("arguments"); a.Exists() {
			input = json.RawMessage(a.Raw)
			consumed = append(consumed, "arguments")
		}
	}
	if l.err != nil {
		return
	}
	if d.known(id) {
		// A call announced twice: codex-rollout/call-repeated.
		d.kept(l, keptCopy)
		return
	}
	d.open(id, name)
	kind, mut := kindOf(name)
	d.emit(l, &event.ToolCall{CallID: id, Name: name, Title: title, Kind: kind, Mutability: mut, Input: input}, keys(consumed...))
	if name == "update_plan" && input != nil {
		if p := planOf(input); p != nil {
			d.emit(l, p, all) // the tool_call holds the line's residue
		}
	}
}

// Values of the calls set.
const (
	callOpen = 1
	callDone = 2
)

// maxNames bounds the open calls whose names are kept for their ends.
const maxNames = 4096

// open notes a call announced, and its name.
func (d *Decoder) open(id, name string) {
	d.calls.Add(id, callOpen)
	d.names.Put(id, strings.Clone(name))
}

// known reports whether a call id is open or finished.
func (d *Decoder) known(id string) bool { return d.calls.Has(id) }

// done reports whether a call id is finished.
func (d *Decoder) done(id string) bool {
	v, seen := d.calls.Get(id)
	return seen && v == callDone
}

// name returns the name of an open call, whether the call is open, and
// whether its name is known (it was not let go: maxNames).
func (d *Decoder) name(id string) (name string, open, known bool) {
	if v, seen := d.calls.Get(id); !seen || v != callOpen {
		return "", false, false
	}
	name, known = d.names.Get(id)
	return name, true, known
}

// announce makes sure a call is open before its end: a call no line
// announced gets a synthetic tool_call. It returns the call's name, or
// the name its end gives (fallback) when the one announced is not known.
func (d *Decoder) announce(l *line, id, fallback string) string {
	if n, open, known := d.name(id); open {
		if !known {
			n = fallback
		}
		return n
	}
	kind, mut := kindOf(fallback)
	d.synth(l, &event.ToolCall{CallID: id, Name: fallback, Kind: kind, Mutability: mut})
	return fallback
}

// close forgets an open call, remembering that it finished.
func (d *Decoder) close(id string) {
	d.names.Delete(id)
	d.calls.Add(id, callDone)
}

// toolOutput reads an output item: function_call_output,
// custom_tool_call_output, tool_search_output.
func (d *Decoder) toolOutput(l *line) {
	var id string
	if l.v.ptype == "tool_search_output" {
		id = l.optStr("call_id")
	} else {
		id = l.str("call_id")
	}
	out := l.get("output")
	if l.v.ptype != "tool_search_output" && l.err == nil && !out.Exists() {
		l.fail(l.ptr("output"), "got nothing, want a string or an array")
	}
	if l.err != nil {
		return
	}
	if d.done(id) {
		d.kept(l, keptCopy)
		return
	}
	fallback := l.optStr("name") // newer builds name the tool on its output
	if l.v.ptype == "tool_search_output" {
		fallback = "tool_search"
	}
	name := d.announce(l, id, fallback)
	b := &event.ToolFinished{CallID: id, Name: name, Status: event.ToolSuccess}
	consumed := []string{"call_id"}
	switch {
	case l.v.ptype == "tool_search_output":
		if st := l.optStr("status"); st != "" && st != "completed" {
			b.Status = event.ToolError
		}
	case out.Type == gjson.String:
		if text, code, ok := shellOutput(out.Str); ok {
			// Codex's shell tools of 0.3x-0.4x return JSON: the output
			// and its exit code are lifted out; the residue keeps the
			// string as written.
			b.Output, b.ExitCode = &text, &code
			if code != 0 {
				b.Status = event.ToolError
			}
		} else {
			s := out.Str
			b.Output = &s
			consumed = append(consumed, "output")
		}
	case out.IsArray():
		// Content items (text, images): the text is the output, the items
		// stay in the residue.
		if text, _ := contentText(out); text != "" {
			b.Output = &text
		}
	case out.IsObject():
		// The earliest builds wrote {content, success}.
		if c := jsonobj.Lookup(out, "content"); c.Type == gjson.String {
			s := c.Str
			b.Output = &s
		}
		if jsonobj.Lookup(out, "success").Type == gjson.False {
			b.Status = event.ToolError
		}
	}
	d.emit(l, b, keys(consumed...))
	d.close(id)
}

// wholeCall reads web_search_call and image_generation_call: a call and
// its end in one item.
func (d *Decoder) wholeCall(l *line) {
	id := l.optStr("id")
	st := l.optStr("status")
	if l.err != nil {
		return
	}
	consumed := []string{}
	var notes []note
	if id == "" {
		if l.v.ptype == "web_search_call" && pairSearch(&d.searchEnds) {
			// The search a web_search_end before it told.
			d.kept(l, keptCopy)
			return
		}
		// An item without its id: one made of the line, unique in the
		// stream.
		id = l.v.ptype + "@" + strconv.Itoa(l.n)
		notes = append(notes, note{"@call_id", `"line"`})
		if l.v.ptype == "web_search_call" {
			d.searchItems = append(d.searchItems, cloneStr(id))
		}
	} else {
		consumed = append(consumed, "id")
	}
	if d.known(id) {
		// The item of a search whose end event came first: that end
		// was no id-less item's.
		if i := slices.Index(d.searchEnds, id); i >= 0 {
			d.searchEnds = slices.Delete(d.searchEnds, i, i+1)
		}
		d.kept(l, keptCopy)
		return
	}
	name := "web_search"
	var web json.RawMessage
	if l.v.ptype == "image_generation_call" {
		name = "image_generation"
	} else if a := l.get("action"); a.IsObject() {
		web = json.RawMessage(a.Raw)
		consumed = append(consumed, "action")
	}
	kind, mut := kindOf(name)
	if name == "web_search" && jsonobj.Lookup(l.get("action"), "type").Str == "open_page" {
		kind = event.KindFetch
	}
	d.emit(l, &event.ToolCall{CallID: id, Name: name, Kind: kind, Mutability: mut}, keys(consumed...), notes...)
	d.open(id, name)
	b := &event.ToolFinished{CallID: id, Name: name, Status: event.ToolSuccess, Web: web}
	if st == "failed" || st == "incomplete" {
		b.Status = event.ToolError
	}
	d.emit(l, b, all) // the tool_call holds the line's residue
	d.close(id)
}

// pairSearch takes the first of the turn's web searches told once so far
// by the other kind of line, reporting whether there was one. Builds
// whose web_search_call has no id (serde skips it) write the search's
// call_id on web_search_end alone: an id-less item and an end event of a
// call no item announced, in one turn, are one search told twice, paired
// in their order.
func pairSearch(q *[]string) bool {
	if len(*q) == 0 {
		return false
	}
	*q = append((*q)[:0], (*q)[1:]...)
	return true
}

// toolEnd reads an end event.
func (d *Decoder) toolEnd(l *line) {
	id := l.str("call_id")
	if l.err != nil {
		return
	}
	fallback := endEvents[l.v.ptype]
	switch l.v.ptype {
	case "exec_command_end":
		if l.get("source").Str == "user_shell" {
			fallback = "user_shell" // a command the user ran ("!cmd"), no model's call
		}
	case "mcp_tool_call_end":
		inv := l.get("invocation")
		fallback = jsonobj.Lookup(inv, "server").Str + "__" + jsonobj.Lookup(inv, "tool").Str
	case "dynamic_tool_call_response":
		fallback = l.get("tool").Str
	}
	if d.done(id) {
		d.kept(l, keptCopy)
		return
	}
	if l.v.ptype == "web_search_end" && !d.known(id) {
		if pairSearch(&d.searchItems) {
			// The search an id-less web_search_call before it told.
			d.kept(l, keptCopy)
			return
		}
		d.searchEnds = append(d.searchEnds, cloneStr(id))
	}
	b := &event.ToolFinished{CallID: id, Status: event.ToolSuccess}
	consumed := []string{"call_id"}
	switch l.v.ptype {
	case "exec_command_end":
		code, ok := l.optInt("exit_code", jsonobj.I32)
		if ok {
			b.ExitCode = &code
			consumed = append(consumed, "exit_code")
			if code != 0 {
				b.Status = event.ToolError
			}
		}
		if out := l.optStr("aggregated_output"); out != "" {
			b.Output = &out
			consumed = append(consumed, "aggregated_output")
		} else if out := l.optStr("stdout"); out != "" {
			b.Output = &out
			consumed = append(consumed, "stdout")
		}
		b.Command = commandText(l.get("command"))
		b.Status = statusWord(l.optStr("status"), b.Status)
	case "patch_apply_end":
		ok := l.get("success")
		if ok.Type == gjson.False {
			b.Status = event.ToolError
		}
		if out := l.optStr("stdout"); out != "" {
			b.Output = &out
			consumed = append(consumed, "stdout")
		}
		if e := l.optStr("stderr"); e != "" && b.Status == event.ToolError {
			b.Error = e
			consumed = append(consumed, "stderr")
		}
		if ch := l.get("changes"); ch.IsObject() {
			b.Edit = json.RawMessage(ch.Raw)
			consumed = append(consumed, "changes")
		}
		b.Status = statusWord(l.optStr("status"), b.Status)
	case "mcp_tool_call_end":
		// result is Rust's Result, serialized {"Ok": CallToolResult} or
		// {"Err": message}.
		res := l.get("result")
		if e := jsonobj.Lookup(res, "Err"); e.Exists() {
			b.Status, b.Error = event.ToolError, e.String()
		} else if ok := jsonobj.Lookup(res, "Ok"); ok.IsObject() {
			if jsonobj.Lookup(ok, "is_error").Type == gjson.True || jsonobj.Lookup(ok, "isError").Type == gjson.True {
				b.Status = event.ToolError
			}
			if text, _ := contentText(jsonobj.Lookup(ok, "content")); text != "" {
				b.Output = &text
			}
		}
	case "web_search_end":
		if a := l.get("action"); a.IsObject() {
			b.Web = json.RawMessage(a.Raw)
			consumed = append(consumed, "action")
		}
	case "image_generation_end":
		if st := l.optStr("status"); st != "" && st != "completed" {
			b.Status = event.ToolError
		}
	case "dynamic_tool_call_response":
		if l.get("success").Type == gjson.False {
			b.Status = event.ToolError
		}
		if e := l.optStr("error"); e != "" {
			b.Error = e
			consumed = append(consumed, "error")
		}
		if text, _ := contentText(l.get("content_items")); text != "" {
			b.Output = &text
		}
	default: // collab_*_end
		if agentFailed(l.get("status")) {
			b.Status = event.ToolError
		}
	}
	if l.err != nil {
		return
	}
	b.Name = d.announce(l, id, fallback)
	d.emit(l, b, keys(consumed...))
	d.close(id)
}

// viewImage reads view_image_tool_call: the image a running view_image
// call attached, its progress. Outside a call it is unmapped.
func (d *Decoder) viewImage(l *line) {
	id, path := l.str("call_id"), l.optStr("path")
	if l.err != nil {
		return
	}
	name, open, _ := d.name(id)
	if !open || path == "" {
		d.kept(l, keptUnmapped)
		return
	}
	d.emit(l, &event.ToolProgress{CallID: id, Name: name, Message: path}, keys("call_id", "path"))
}

// statusWord reads a newer build's completion status (completed, failed,
// declined) of a command or a patch; the status told otherwise stands
// when it states none.
func statusWord(word string, told event.ToolStatus) event.ToolStatus {
	switch word {
	case "completed":
		return event.ToolSuccess
	case "failed":
		return event.ToolError
	case "declined":
		return event.ToolRejected
	}
	return told
}

// agentFailed reports whether an AgentStatus is errored ("errored", or
// {"errored": message}).
func agentFailed(v gjson.Result) bool {
	if v.Type == gjson.String {
		return v.Str == "errored" || v.Str == "not_found"
	}
	return jsonobj.Lookup(v, "errored").Exists()
}

// shellOutput lifts the JSON Codex's shell tools returned in 0.3x-0.4x,
// {"output": text, "metadata": {"exit_code": n, "duration_seconds": s}}.
func shellOutput(s string) (string, int64, bool) {
	if !strings.HasPrefix(s, "{") || !gjson.Valid(s) {
		return "", 0, false
	}
	r := gjson.Parse(s)
	out, code := jsonobj.Lookup(r, "output"), jsonobj.Lookup(jsonobj.Lookup(r, "metadata"), "exit_code")
	if out.Type != gjson.String {
		return "", 0, false
	}
	n, msg := jsonobj.ParseInt(code, jsonobj.I64)
	if msg != "" {
		return "", 0, false
	}
	return out.Str, n, true
}

// commandText renders a command's argv as the shell line it stands for:
// the script of `bash -lc SCRIPT`, else the words joined by spaces.
func commandText(v gjson.Result) string {
	if v.Type == gjson.String {
		return v.Str
	}
	var words []string
	jsonobj.ForEach(v, func(_, w gjson.Result) bool {
		words = append(words, w.String())
		return true
	})
	if len(words) == 3 && (words[1] == "-lc" || words[1] == "-c") {
		return words[2]
	}
	return strings.Join(words, " ")
}

// planOf reads update_plan's arguments, {explanation?, plan: [{step,
// status}]}, as the plan it sets; nil when they are not that.
func planOf(args json.RawMessage) *event.PlanUpdated {
	r := gjson.ParseBytes(args)
	plan := jsonobj.Lookup(r, "plan")
	if !plan.IsArray() {
		return nil
	}
	p := &event.PlanUpdated{Entries: []event.PlanEntry{}}
	ok := true
	jsonobj.ForEach(plan, func(_, e gjson.Result) bool {
		step, st := jsonobj.Lookup(e, "step"), jsonobj.Lookup(e, "status")
		if step.Type != gjson.String || st.Type != gjson.String {
			ok = false
			return false
		}
		p.Entries = append(p.Entries, event.PlanEntry{Content: step.Str, Status: st.Str})
		return true
	})
	if !ok {
		return nil
	}
	return p
}
