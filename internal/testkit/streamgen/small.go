package streamgen

import (
	"strconv"
	"strings"

	"github.com/evtool/evtool/event"
	"github.com/evtool/evtool/internal/jsonenc"
)

// smallTools are the tools of the small shape: inputs of tens of bytes.
var smallTools = []tool{tools[0], tools[1], tools[3], tools[5], {"edit_file", event.KindEdit, event.Mutating, func(g *generator) string {
	return `{"path":` + string(jsonenc.String(nil, g.path())) + `,"old":` + string(jsonenc.String(nil, g.words(2))) + `,"new":` + string(jsonenc.String(nil, g.words(2))) + `}`
}}}

// smallTurn writes one turn of the small shape: every event type of the
// canonical model in short lines. Each turn has the common ones (prompt,
// model, reasoning and text deltas and their assembled forms, one or two
// short tool calls, usage, rounds) and two of the rare ones in rotation,
// so that a stream of a few turns holds them all.
func (g *generator) smallTurn(n int) error {
	g.turnID = "turn-" + strconv.Itoa(n)
	prompt := g.sentence(4 + g.rng.IntN(8))
	evs := []*event.Event{
		{Body: &event.TurnStarted{Prompt: &prompt, CommandID: g.turnID}},
		{Body: &event.UserMessage{Text: prompt}},
		{Body: &event.ModelConfigured{Model: "claude-sonnet-4", Provider: "anthropic", Profile: "default", Source: "config"}},
	}
	for _, ev := range evs {
		if err := g.emit(ev); err != nil {
			return err
		}
	}
	var turnUsage event.Usage
	rounds := 1 + g.rng.IntN(2)
	var text strings.Builder
	for r := 0; r < rounds; r++ {
		if g.rng.IntN(2) == 0 {
			var thought strings.Builder
			for i, k := 0, 1+g.rng.IntN(2); i < k; i++ {
				chunk := g.sentence(4+g.rng.IntN(8)) + " "
				thought.WriteString(chunk)
				if err := g.emit(g.unknownField(&event.Event{Body: &event.ReasoningDelta{Text: chunk}})); err != nil {
					return err
				}
			}
			if err := g.emit(&event.Event{Body: &event.Reasoning{Text: thought.String()}}); err != nil {
				return err
			}
		}
		for i, k := 0, 1+g.rng.IntN(3); i < k; i++ {
			chunk := g.sentence(4+g.rng.IntN(8)) + " "
			text.WriteString(chunk)
			if err := g.emit(g.unknownField(&event.Event{Body: &event.MessageDelta{Text: chunk}})); err != nil {
				return err
			}
		}
		u := g.smallUsage()
		add(&turnUsage, u)
		add(&g.total, u)
		g.rounds++
		if err := g.emit(&event.Event{Body: u}); err != nil {
			return err
		}
		stop := event.StopEndTurn
		if r < rounds-1 {
			stop = event.StopToolUse
		}
		if err := g.emit(&event.Event{Body: &event.RoundFinished{StopReason: stop}}); err != nil {
			return err
		}
		if r < rounds-1 || g.rng.IntN(2) == 0 {
			for i, k := 0, 1+g.rng.IntN(2); i < k; i++ {
				if err := g.smallCall(); err != nil {
					return err
				}
			}
		}
	}
	for _, k := range []int{n % len(rare), (n + len(rare)/2) % len(rare)} {
		if err := rare[k](g); err != nil {
			return err
		}
	}
	g.last = text.String()
	if err := g.emit(&event.Event{Body: &event.Message{Text: g.last}}); err != nil {
		return err
	}
	rs := uint64(rounds)
	turnUsage.ModelResponses = &rs
	return g.emit(&event.Event{Body: &event.TurnFinished{Status: event.StatusOK, StopReason: event.StopEndTurn, Usage: &turnUsage}})
}

// smallUsage is one model round, with counts of a few digits but now and
// then one beyond a double's exact integers.
func (g *generator) smallUsage() *event.Usage {
	n := func(max int) *uint64 { v := uint64(g.rng.IntN(max)); return &v }
	u := &event.Usage{InputTokens: n(20000), OutputTokens: n(800), CacheReadTokens: n(15000)}
	if g.rng.IntN(40) == 0 {
		v := uint64(1)<<53 + g.rng.Uint64N(1<<40)
		u.InputTokens = &v
	}
	return u
}

// smallCall is one short tool call: an input of tens of bytes, a
// permission request for half the mutating calls, a progress line now and
// then, one chunk of output and the finish that repeats it.
func (g *generator) smallCall() error {
	g.calls++
	t := smallTools[g.rng.IntN(len(smallTools))]
	id := "call_" + strconv.Itoa(g.calls)
	if err := g.emit(g.unknownField(&event.Event{Body: &event.ToolCall{
		CallID: id, Name: t.name, Title: t.name, Kind: t.kind, Mutability: t.mut, Input: []byte(t.input(g)),
	}})); err != nil {
		return err
	}
	if t.mut == event.Mutating && g.rng.IntN(2) == 0 {
		g.perms++
		req := "perm_" + strconv.Itoa(g.perms)
		if err := g.emit(&event.Event{Body: &event.PermissionRequested{
			RequestID: req, CallID: id, Tool: t.name, Description: "Allow " + t.name + "?", Risk: "medium",
		}}); err != nil {
			return err
		}
		outcome := event.Allowed
		if g.rng.IntN(6) == 0 {
			outcome = event.Denied
		}
		if err := g.emit(&event.Event{Body: &event.PermissionResolved{RequestID: req, CallID: id, Tool: t.name, Outcome: outcome, Scope: "session"}}); err != nil {
			return err
		}
		if outcome == event.Denied {
			return g.emit(&event.Event{Body: &event.ToolFinished{CallID: id, Name: t.name, Status: event.ToolError, Error: "the user denied permission"}})
		}
	}
	if err := g.emit(&event.Event{Body: &event.ToolStarted{CallID: id, Name: t.name}}); err != nil {
		return err
	}
	if g.rng.IntN(3) == 0 {
		if err := g.emit(&event.Event{Body: &event.ToolProgress{CallID: id, Name: t.name, Message: g.sentence(2 + g.rng.IntN(4))}}); err != nil {
			return err
		}
	}
	out := g.output(30 + g.rng.IntN(60))
	if err := g.emit(&event.Event{Body: &event.ToolOutput{CallID: id, Name: t.name, Chunk: out}}); err != nil {
		return err
	}
	fin := &event.ToolFinished{CallID: id, Name: t.name, Status: event.ToolSuccess, Output: &out}
	if g.rng.IntN(7) == 0 {
		fin.Status, fin.Error = event.ToolError, "exit status "+strconv.Itoa(1+g.rng.IntN(2))
	}
	if t.name == "bash" {
		code := int64(0)
		if fin.Status == event.ToolError {
			code = 1
		}
		fin.ExitCode, fin.Command = &code, "bash"
	}
	return g.emit(&event.Event{Body: fin})
}

// rare are the event types a turn of the small shape holds two of.
var rare = []func(g *generator) error{
	func(g *generator) error { // a plan
		done := uint64(g.rng.IntN(3))
		total := uint64(3)
		entries := make([]event.PlanEntry, 3)
		for i := range entries {
			st := "pending"
			if uint64(i) < done {
				st = "completed"
			} else if uint64(i) == done {
				st = "in_progress"
			}
			entries[i] = event.PlanEntry{Content: g.words(2 + g.rng.IntN(2)), Status: st}
		}
		return g.emit(&event.Event{Body: &event.PlanUpdated{Entries: entries, Completed: &done, Total: &total}})
	},
	func(g *generator) error { // a subagent's task, from start to end
		g.tasks++
		id := "task_" + strconv.Itoa(g.tasks)
		title := g.words(3)
		if err := g.emit(&event.Event{Body: &event.TaskUpdated{TaskID: id, Kind: event.TaskSubagent, Status: event.TaskRunning, Title: title}}); err != nil {
			return err
		}
		return g.emit(&event.Event{Body: &event.TaskUpdated{TaskID: id, Kind: event.TaskSubagent, Status: event.TaskCompleted, Title: title}})
	},
	func(g *generator) error { // compaction
		if err := g.emit(&event.Event{Body: &event.CompactionStarted{}}); err != nil {
			return err
		}
		replaced, kept := uint64(10+g.rng.IntN(40)), uint64(2+g.rng.IntN(5))
		preview := g.words(5)
		return g.emit(&event.Event{Body: &event.CompactionFinished{ReplacedItems: &replaced, PreservedItems: &kept, SummaryPreview: &preview}})
	},
	func(g *generator) error { // a notice
		return g.emit(&event.Event{Body: &event.Notice{Severity: event.SeverityWarning, Message: "context is " + strconv.Itoa(50+g.rng.IntN(45)) + "% full"}})
	},
	func(g *generator) error { // tool results shortened in a request
		if g.calls == 0 {
			return nil
		}
		orig, proj := uint64(4000+g.rng.IntN(9000)), uint64(200)
		policy := []byte(`{"kind":"byte_budget","configured_max_bytes":4096,"configured_prioritize_recent_results":2,"configured_max_preview_bytes":200}`)
		return g.emit(&event.Event{Body: &event.ContextElided{Policy: policy, OriginalBytes: &orig, ProjectedBytes: &proj, Results: []event.ElidedResult{{
			CallID: "call_" + strconv.Itoa(g.calls), ContentKind: "text", Action: "preview", OriginalBytes: orig, ProjectedBytes: proj,
		}}}})
	},
	func(g *generator) error { // a retried request
		attempt, most, delay := uint64(1+g.rng.IntN(3)), uint64(5), uint64(500+g.rng.IntN(4000))
		return g.emit(&event.Event{Body: &event.Retry{Error: "overloaded (529)", Attempt: &attempt, MaxAttempts: &most, NextDelayMS: &delay}})
	},
	func(g *generator) error { // memory
		n := uint64(1 + g.rng.IntN(4))
		return g.emit(&event.Event{Body: &event.MemoryUpdated{StoredRecords: &n}})
	},
	func(g *generator) error { // a recoverable error
		yes := true
		return g.emit(&event.Event{Body: &event.Error{Message: "stream interrupted: " + g.words(3), Recoverable: &yes}})
	},
	func(g *generator) error { // a branch back to an earlier entry
		if g.seq < 2 {
			return nil
		}
		n := uint64(1 + g.rng.IntN(3))
		return g.emit(&event.Event{Body: &event.Branched{EntryID: "entry-" + strconv.FormatUint(g.seq-1-uint64(g.rng.IntN(int(min(g.seq-1, 20)))), 10), AbandonedEntries: &n}})
	},
}
