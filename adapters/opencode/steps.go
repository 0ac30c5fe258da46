package opencode

// Steps, turns and usage: the step_finish lines that close each model
// round with its usage and cost, the end of a foreign source's turns, and
// the step-finish part the decoder reads into a round_finished.

import (
	"encoding/json"
	"math/big"
	"slices"
	"strconv"

	"github.com/evtool/evtool/adapters/internal/opencodewire"
	"github.com/evtool/evtool/event"
	"github.com/evtool/evtool/internal/exact"
	"github.com/evtool/evtool/internal/jsonenc"
	"github.com/evtool/evtool/internal/jsonobj"
	"github.com/evtool/evtool/internal/usagesum"
	"github.com/tidwall/gjson"
)

// stepFinish writes a step_finish. synthetic says it closes a round that
// the source did not close.
func (e *Encoder) stepFinish(ev *event.Event, res gjson.Result, stop event.StopReason, u *event.Usage, synthetic bool) error {
	if err := e.ensureStep(ev); err != nil {
		return err
	}
	if !e.native {
		if p := e.pending.Usage(); p != nil {
			if u != nil {
				e.loss.Add(lossUsageBesideRound)
			} else {
				u = p
			}
		}
		e.pending = usagesum.Tally{}
	}
	if synthetic {
		e.loss.Add(lossSynthesizedStepFinish)
	}
	if !e.native {
		if e.held != nil {
			if err := e.release(nil); err != nil {
				return err
			}
		}
		e.held = &heldStep{ev: ev, stop: stop, u: u, synthetic: synthetic, msg: e.stepMsg}
		e.inStep = false
		e.moreDue = stop == event.StopToolUse
		return nil
	}
	return e.writeStep(ev, res, stop, u, "")
}

// release writes the held step_finish. total is its turn's usage total,
// when the turn ends: a count or cost the step does not state is what
// the total leaves after the turn's other steps, so that the steps sum
// to the total, as opencode's readers sum them.
func (e *Encoder) release(total *event.Usage) error {
	h := e.held
	e.held = nil
	u := h.u
	if total != nil {
		var used bool
		if u, used = fill(u, total, &e.written); used {
			e.loss.Add(lossTurnUsageTotal)
		}
	}
	e.releasing = true
	defer func() { e.releasing = false }()
	// The line may be written when the next step has begun: it names its
	// own step's message, as every line of a step does.
	return e.writeStep(h.ev, gjson.Result{}, h.stop, u, h.msg)
}

// fill returns u with each count and the cost it lacks taken from total,
// less what the steps w already stated, and whether it took any. A
// remainder below zero (steps that state more than the total) is not
// taken. Costs are exact decimals.
func fill(u, total *event.Usage, w *usagesum.Tally) (*event.Usage, bool) {
	out := &event.Usage{}
	if u != nil {
		c := *u
		out = &c
	}
	used := false
	for _, f := range []struct {
		dst  **uint64
		tot  *uint64
		done *usagesum.Counter
	}{
		{&out.InputTokens, total.InputTokens, &w.In}, {&out.OutputTokens, total.OutputTokens, &w.Out},
		{&out.ReasoningTokens, total.ReasoningTokens, &w.Reason}, {&out.CacheReadTokens, total.CacheReadTokens, &w.Read},
		{&out.CacheCreationTokens, total.CacheCreationTokens, &w.Write}, {&out.TotalTokens, total.TotalTokens, &w.Total},
	} {
		if *f.dst != nil || f.tot == nil || *f.tot < f.done.N {
			continue
		}
		v := *f.tot - f.done.N
		*f.dst = &v
		used = true
	}
	if out.CostUSD == "" && total.CostUSD != "" {
		if t, ok := new(big.Rat).SetString(string(total.CostUSD)); ok {
			if w.Cost != nil {
				t.Sub(t, w.Cost)
			}
			if t.Sign() >= 0 {
				out.CostUSD = json.Number(exact.Decimal(t, max(w.Scale, usagesum.Decimals(string(total.CostUSD)))))
				used = true
			}
		}
	}
	return out, used
}

// writeStep writes a step_finish line; messageID is its step's message,
// "" for an opencode source's (which the residue holds).
func (e *Encoder) writeStep(ev *event.Event, res gjson.Result, stop event.StopReason, u *event.Usage, messageID string) error {
	o := e.envelope(ev, res, "step_finish")
	o.sub("part", func(p *obj) {
		e.ids(p, "step-finish", messageID)
		word, ok := finishWord(stop)
		if !ok {
			e.loss.AddDetail(lossStopReason, strconv.Quote(string(stop)))
		}
		p.str("reason", word)
		p.opt("snapshot")
		e.usage(p, u)
	})
	e.written.Add(u)
	if e.native {
		// (a foreign source's step ended when it was held)
		e.inStep = false
		e.moreDue = stop == event.StopToolUse
	}
	return e.end(o)
}

// usage writes a step's cost and tokens, opencode's output without the
// reasoning. A count the source did not state is written as 0, and
// counted.
func (e *Encoder) usage(p *obj, u *event.Usage) {
	if u == nil {
		u = &event.Usage{}
	}
	zero := func(v *uint64, what string) string {
		if v == nil {
			if !e.native {
				e.unstated[what]++
			}
			return "0"
		}
		return strconv.FormatUint(*v, 10)
	}
	// A cost the source does not state is written as 0, which is how
	// opencode says a model is free or unpriced.
	cost := string(u.CostUSD)
	if cost == "" {
		cost = "0"
		if !e.native {
			e.unstated[costWord]++
		}
	}
	p.raw("cost", []byte(cost))
	// The canonical output includes the reasoning; opencode's output
	// excludes it. A reasoning count above the output (a source that
	// counts it apart) cannot be taken out of it: both are written as
	// stated, and counted.
	output := u.OutputTokens
	if output != nil && u.ReasoningTokens != nil {
		if r := *u.ReasoningTokens; r <= *output {
			v := *output - r
			output = &v
		} else if _, kept := p.kept("tokens"); !kept {
			e.loss.Add(lossReasoningAboveOutput)
		}
	}
	total := u.TotalTokens
	if total != nil && !e.native {
		// opencode's total is the sum of the disjoint counts the line
		// states, an unstated one written as 0 (and counted as such).
		sum, ok := uint64(0), true
		for _, v := range []*uint64{u.InputTokens, output, u.ReasoningTokens, u.CacheReadTokens, u.CacheCreationTokens} {
			if v == nil {
				continue
			}
			if sum+*v < sum {
				ok = false
				break
			}
			sum += *v
		}
		if !ok || sum != *total {
			total = nil
			e.loss.Add(lossTokenTotalNotSum)
		}
	}
	p.field("tokens", func() {
		b := []byte{'{'}
		if total != nil {
			b = append(b, `"total":`+strconv.FormatUint(*total, 10)+`,`...)
		}
		b = append(b, `"input":`+zero(u.InputTokens, "input token")+
			`,"output":`+zero(output, "output token")+
			`,"reasoning":`+zero(u.ReasoningTokens, "reasoning token")+
			`,"cache":{"read":`+zero(u.CacheReadTokens, "cache read token")+
			`,"write":`+zero(u.CacheCreationTokens, "cache write token")+`}}`...)
		*p.b = append(*p.b, b...)
	})
	if u.ThoughtsTokens != nil || u.ModelResponses != nil {
		e.loss.Add(lossThoughtsResponses)
	}
}

// errorLine writes an error line; its error object comes from the residue
// when the source is opencode.
func (e *Encoder) errorLine(ev *event.Event, res gjson.Result, msg string) error {
	o := e.envelope(ev, res, "error")
	o.field("error", func() {
		*o.b = append(*o.b, `{"name":"UnknownError","data":{"message":`...)
		*o.b = jsonenc.String(*o.b, msg)
		*o.b = append(*o.b, "}}"...)
	})
	if err := e.end(o); err != nil {
		return err
	}
	e.lastErr = true
	return nil
}

func (e *Encoder) turnFinished(ev *event.Event, res gjson.Result, b *event.TurnFinished) error {
	if e.native {
		if _, ok := res.Get("reason").Value().(string); ok || res.Get("rejected").Exists() {
			if err := e.flush(); err != nil {
				return err
			}
			o := e.envelope(ev, res, "done")
			o.opt("reason")
			o.opt("rejected")
			return e.end(o)
		}
		return nil
	}
	if b.Reason != "" && b.Status == event.StatusOK {
		e.loss.Add(lossTurnReason)
	}
	return e.endTurn(ev, b.Status, b.Reason, b.Usage, b.StopReason, b.Text)
}

func (e *Encoder) sessionFinished(ev *event.Event, b *event.SessionFinished) error {
	if err := e.flush(); err != nil {
		return err
	}
	if e.native {
		return nil
	}
	if b.StoppedBy != "" {
		e.loss.Add(lossRunBound)
	}
	if len(b.StructuredOutput) > 0 {
		e.loss.Add(lossStructuredOutput)
	}
	if b.Errors != nil && len(*b.Errors) > 1 {
		e.loss.Add(lossRunErrorList)
	}
	if b.Reasoning != nil && *b.Reasoning != "" && e.steps == 0 {
		e.loss.Add(lossRunReasoning)
	}
	msg := b.Message
	if msg == "" && b.Errors != nil && len(*b.Errors) > 0 {
		msg = (*b.Errors)[len(*b.Errors)-1]
	}
	if e.turns == 0 && e.lines == 0 {
		// A run that began no turn and wrote nothing (a prompt never
		// answered, as the ACP projection of a failed run reads back):
		// without a turn to end, the run's outcome would be lost and the
		// stream empty, which opencode's validator refuses. The turn is
		// taken as begun, so that its end is written: an empty step, or
		// the error line of a failed run.
		e.turns, e.turnOpen, e.turnSteps, e.turnText, e.written = 1, true, 0, false, usagesum.Tally{}
	}
	return e.endTurn(ev, b.Status, msg, b.Usage, "", b.Text)
}

// endTurn closes the open turn of a foreign source: the open step gets its
// step_finish, a turn that wrote no step gets an empty one (so that the
// stream shows the run ended), and a failed turn ends with an error line.
func (e *Encoder) endTurn(ev *event.Event, status event.Status, msg string, total *event.Usage, stop event.StopReason, text *string) error {
	if err := e.flush(); err != nil {
		return err
	}
	if !e.turnOpen {
		return nil
	}
	if text != nil && *text != "" && !e.turnText {
		// An answer the source never wrote as a message still reaches the reader.
		if err := e.partLine(ev, gjson.Result{}, "text", func(p *obj) { e.textPart(p, *text, "") }); err != nil {
			return err
		}
	}
	if stop == event.StopToolUse {
		stop = event.StopEndTurn
		e.loss.Add(lossTurnStopToolUse)
	}
	if e.inStep || (status == event.StatusOK && (e.turnSteps == 0 || e.moreDue)) {
		if stop == "" {
			stop = event.StopEndTurn
		}
		if err := e.stepFinish(ev, gjson.Result{}, stop, nil, true); err != nil {
			return err
		}
	}
	if e.held != nil {
		if err := e.release(total); err != nil {
			return err
		}
	}
	if total != nil && !sameTokens(total, e.written.Usage()) {
		e.loss.Add(lossTurnUsageTotalDiffers)
	}
	e.countUnstated(total)
	if status != event.StatusOK && !e.lastErr {
		if msg == "" {
			msg = "the turn ended: " + string(status)
		}
		e.loss.Add(lossSynthesizedError)
		if err := e.errorLine(ev, gjson.Result{}, msg); err != nil {
			return err
		}
	}
	e.turnOpen = false
	return nil
}

// costWord names an unstated cost among the unstated counts.
const costWord = "cost"

// countUnstated counts the zeros the ended turn's steps were written with
// for counts the source did not state: those the turn's total stated are
// the approximation lossTurnUsageTotal already counts.
func (e *Encoder) countUnstated(total *event.Usage) {
	for what, n := range e.unstated {
		if total != nil && stated(total, what) {
			continue
		}
		for range n {
			if what == costWord {
				e.loss.Add(lossUnstatedCost)
			} else {
				e.loss.AddDetail(lossUnstatedCount, what)
			}
		}
	}
	clear(e.unstated)
}

// stated reports whether u states the count named what.
func stated(u *event.Usage, what string) bool {
	switch what {
	case "input token":
		return u.InputTokens != nil
	case "output token":
		return u.OutputTokens != nil
	case "reasoning token":
		return u.ReasoningTokens != nil
	case "cache read token":
		return u.CacheReadTokens != nil
	case "cache write token":
		return u.CacheCreationTokens != nil
	case costWord:
		return u.CostUSD != ""
	}
	return false
}

// sameTokens reports whether the steps written (b) state every token
// count the total (a) states, with the same value.
func sameTokens(a, b *event.Usage) bool {
	if b == nil {
		b = &event.Usage{}
	}
	eq := func(x, y *uint64) bool { return x == nil || (y != nil && *x == *y) }
	return eq(a.InputTokens, b.InputTokens) && eq(a.OutputTokens, b.OutputTokens) &&
		eq(a.CacheReadTokens, b.CacheReadTokens) && eq(a.CacheCreationTokens, b.CacheCreationTokens) &&
		eq(a.ReasoningTokens, b.ReasoningTokens)
}

// stepFinish reads a step-finish part: the round's end, its usage and
// cost.
func (d *Decoder) stepFinish(p gjson.Result, ptr string, res *jsonobj.Residue) *event.RoundFinished {
	b := &event.RoundFinished{}
	if r := p.Get("reason"); r.Exists() {
		if r.Type != gjson.String {
			d.o.Fail(ptr+"/reason", "must be a string")
		}
		if w, ok := finishReasons[r.Str]; ok {
			b.StopReason = w
		} else {
			b.StopReason = event.StopOther
			if r.Str != "other" {
				res.Add("reason", []byte(r.Raw))
			}
		}
	} else {
		res.Absent("reason")
	}
	b.Usage = d.usage(p, ptr, res)
	if r := p.Get("reason").Str; r == "tool-calls" {
		d.last = lastStepMore
	} else {
		d.last = lastStepEnd
	}
	return b
}

// usage reads a step-finish part's tokens and cost. The canonical output
// is opencode's output and reasoning together (see
// opencodewire.OutputTokens). The tokens object is kept whole in the
// residue when it is not as opencode writes it (a key it does not have,
// or one missing), so that it comes back as it was.
func (d *Decoder) usage(p gjson.Result, ptr string, res *jsonobj.Residue) *event.Usage {
	o := &d.o
	u := &event.Usage{}
	if c := p.Get("cost"); c.Exists() {
		if c.Type != gjson.Number {
			o.Fail(ptr+"/cost", "must be a number")
		} else {
			u.CostUSD = json.Number(c.Raw)
		}
	} else {
		res.Absent("cost")
	}
	t := p.Get("tokens")
	if !t.Exists() {
		res.Absent("tokens")
		return u
	}
	tptr := ptr + "/tokens"
	if !t.IsObject() {
		o.Fail(tptr, "must be an object")
		return u
	}
	whole := false
	num := func(v gjson.Result, at string) *uint64 {
		if !v.Exists() {
			whole = true
			return nil
		}
		n, msg := jsonobj.ParseUint(v, jsonobj.U64)
		if msg != "" {
			o.Fail(at, "%s", msg)
			return nil
		}
		return &n
	}
	u.InputTokens = num(t.Get("input"), tptr+"/input")
	u.OutputTokens = num(t.Get("output"), tptr+"/output")
	u.ReasoningTokens = num(t.Get("reasoning"), tptr+"/reasoning")
	// opencode's output excludes the reasoning; the canonical output
	// includes it. A sum beyond a u64 is saturated, and the tokens object
	// kept whole so that it comes back as it was.
	var exact bool
	u.OutputTokens, exact = opencodewire.OutputTokens(u.OutputTokens, u.ReasoningTokens)
	whole = whole || !exact
	if v := t.Get("total"); v.Exists() {
		u.TotalTokens = num(v, tptr+"/total")
	}
	c := t.Get("cache")
	if c.Exists() && !c.IsObject() {
		o.Fail(tptr+"/cache", "must be an object")
	} else {
		u.CacheReadTokens = num(c.Get("read"), tptr+"/cache/read")
		u.CacheCreationTokens = num(c.Get("write"), tptr+"/cache/write")
		jsonobj.ForEach(c, func(k, _ gjson.Result) bool {
			whole = whole || (k.Str != "read" && k.Str != "write")
			return true
		})
	}
	jsonobj.ForEach(t, func(k, _ gjson.Result) bool {
		whole = whole || !slices.Contains([]string{"total", "input", "output", "reasoning", "cache"}, k.Str)
		return true
	})
	// keys in another order than the writer's come back as written
	var order jsonobj.Residue
	keyOrder(t, []string{"total", "input", "output", "reasoning", "cache"}, &order)
	keyOrder(c, []string{"read", "write"}, &order)
	whole = whole || !order.Empty()
	if whole {
		res.Add("tokens", []byte(t.Raw))
	}
	return u
}
