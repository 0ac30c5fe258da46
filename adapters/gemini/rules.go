package gemini

import (
	"math/big"
	"strings"

	"github.com/evtool/evtool/adapters/internal/check"
	"github.com/evtool/evtool/adapters/internal/geminicli"
	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/internal/jsonobj"
	"github.com/evtool/evtool/internal/jsonptr"
	"github.com/tidwall/gjson"
)

// rules is the catalogue of Gemini CLI's stream rules (see dialect.RuleSet);
// docs/dialects/gemini.md describes each rule.
var rules dialect.RuleSet

// The rules, in the order `evtool rules` and docs/rules.md list them.
var (
	ruleFirstLine = rules.Error("gemini/first-line",
		"the first JSON line is init")
	ruleInitRepeated = rules.Error("gemini/init-repeated",
		"init appears only as the first line")
	ruleAfterResult = rules.Error("gemini/after-result",
		"nothing follows result")
	ruleTruncated = rules.Error("gemini/truncated",
		"the stream ends with result; without it the run is incomplete (a killed process writes none)")
	ruleToolIDReused = rules.Error("gemini/tool-id-reused",
		"a tool_id is announced by one tool_use")
	ruleResultUnknown = rules.Error("gemini/tool-result-unknown-call",
		"tool_result names the tool_id of an earlier tool_use")
	ruleResultTwice = rules.Error("gemini/tool-result-twice",
		"a call has at most one tool_result")
	ruleToolUnfinished = rules.Warning("gemini/tool-unfinished",
		"every tool_use has its tool_result before result")
	ruleStatsInput = rules.Warning("gemini/stats-input",
		"stats.input (and each model's) is input_tokens − cached, at least 0")
	ruleStatsCached = rules.Warning("gemini/stats-cached",
		"stats.cached (and each model's) is at most input_tokens, which includes it")
	ruleStatsTotal = rules.Warning("gemini/stats-total",
		"stats.total_tokens (and each model's) is at least input_tokens + output_tokens")
	ruleStatsModels = rules.Warning("gemini/stats-models",
		"each count of stats is the sum of that count over stats.models")
	ruleTimestamp = rules.Warning("gemini/timestamp",
		"timestamp is an ISO 8601 time, as Date.toISOString() writes it")
	ruleSessionIDChange = rules.Warning("gemini/session-id",
		"no second init names another session")
	ruleUnknownType = rules.Unknown("gemini/unknown-type",
		"the type is one of the six known types (error under --strict)")
	ruleUnknownField = rules.Unknown("gemini/unknown-field",
		"every field is known for its type (error under --strict)")
	ruleUnknownValue = rules.Unknown("gemini/unknown-value",
		"tool_result.error.type is one of Gemini CLI's tool error types (error under --strict)")
)

// checker keeps state for open calls only (see check.Calls).
type checker struct {
	check.Frame
	calls   check.Calls
	session string
}

func newChecker() *checker {
	return &checker{
		Frame: check.Frame{
			Start: "init", End: "result",
			FirstLine: ruleFirstLine, FirstMsg: "the first JSON line is %q, want init",
			Repeated: ruleInitRepeated, After: ruleAfterResult,
			Truncated: ruleTruncated, TruncatedMsg: "the stream ends without result: the run is incomplete",
			EmptyMsg:    "the stream has no JSON line: want init first",
			UnknownType: ruleUnknownType, Types: func(typ string) bool { _, ok := fields[typ]; return ok },
			Alias: true, // what is kept is cloned: a long line is not copied
		},
		calls: check.Calls{
			Reused:         ruleToolIDReused,
			ReusedOpen:     "tool_id %[1]q was already announced on line %[2]d",
			ReusedAnswered: "tool_id %[1]q was already announced, and its result was on line %[2]d",
			Unknown:        ruleResultUnknown, UnknownMsg: "tool_result for %[1]q, which no tool_use announced", KeepUnknown: true,
			Twice: ruleResultTwice, TwiceMsg: "call %[1]q already has a tool_result on line %[2]d",
			Unfinished: ruleToolUnfinished, UnfinishedMsg: "call %q has no tool_result before result", UnfinishedPtr: "/tool_id",
		},
	}
}

func (c *checker) Line(line []byte, n int, report func(dialect.Finding)) {
	r, rep, typ, ok := c.Next(line, n, report)
	if !ok {
		return
	}
	check.Keys(rep, ruleUnknownField, r, "", func(k string) bool { return knownField(typ, k) }, "unknown field %q on %s", typ)
	if e := r.Get("error"); e.IsObject() && (typ == "tool_result" || typ == "result") {
		check.Keys(rep, ruleUnknownField, e, "/error", check.In(errorFields), "unknown field %q in %s", "the error object")
		// A tool error's type is a plain string on the wire, filled from
		// the closed enum ToolErrorType (or TOOL_EXECUTION_ERROR); a
		// result's is any error class name, an open set.
		if t := e.Get("type"); typ == "tool_result" && t.Type == gjson.String && !toolErrorTypes[t.Str] {
			rep.Reportf(ruleUnknownValue, "/error/type", "unknown tool error type %q (kept as written)", t.Str)
		}
	}
	if ts := r.Get("timestamp"); ts.Type == gjson.String && !geminicli.IsISOTime(ts.Str) {
		rep.Reportf(ruleTimestamp, "/timestamp", "timestamp %q is not an ISO 8601 time", ts.Str)
	}

	id := r.Get("tool_id").Str
	switch typ {
	case "init":
		s := r.Get("session_id").Str
		if c.Lines > 1 && c.session != "" && s != c.session {
			rep.Reportf(ruleSessionIDChange, "/session_id", "init names session %q, the first init %q", s, c.session)
		}
		if c.Lines == 1 {
			c.session = strings.Clone(s)
		}
	case "tool_use":
		c.calls.Announce(rep, "/tool_id", id, "")
	case "tool_result":
		c.calls.Answer(rep, "/tool_id", id, "")
	case "result":
		if s := r.Get("stats"); s.IsObject() {
			checkStats(rep, s)
		}
	}
}

// checkStats checks the invariants the producer's telemetry gives
// StreamStats: input = input_tokens − cached (at least 0), total_tokens ≥
// input_tokens + output_tokens (the API's total also counts thoughts and
// tool-use prompts), and every top-level count is the sum over models.
// Counts are compared as exact integers; a count that is not one is the
// schema's business.
func checkStats(rep dialect.Reporter, s gjson.Result) {
	check.Keys(rep, ruleUnknownField, s, "/stats", check.In(statsFields), "unknown field %q in %s", "stats")
	counts(rep, s, "/stats")
	models := s.Get("models")
	if !models.IsObject() {
		return
	}
	sums := map[string]*big.Int{}
	all := true
	jsonobj.ForEach(models, func(name, m gjson.Result) bool {
		ptr := "/stats/models/" + jsonptr.Escape(name.Str)
		if !m.IsObject() {
			all = false
			return true
		}
		check.Keys(rep, ruleUnknownField, m, ptr, check.In(modelFields), "unknown field %q in %s", "a model's stats")
		counts(rep, m, ptr)
		for _, k := range modelFields {
			n, ok := count(m, k)
			if !ok {
				all = false
				continue
			}
			if sums[k] == nil {
				sums[k] = new(big.Int)
			}
			sums[k].Add(sums[k], n)
		}
		return true
	})
	if !all {
		return
	}
	for _, k := range modelFields {
		top, ok := count(s, k)
		if !ok {
			continue
		}
		sum := sums[k]
		if sum == nil {
			sum = new(big.Int)
		}
		if top.Cmp(sum) != 0 {
			rep.Reportf(ruleStatsModels, "/stats/"+k, "stats.%s is %s, but the models' %s add up to %s", k, top, k, sum)
		}
	}
}

// counts checks input and total_tokens of one stats object at ptr.
func counts(rep dialect.Reporter, s gjson.Result, ptr string) {
	in, okIn := count(s, "input_tokens")
	out, okOut := count(s, "output_tokens")
	cached, okCached := count(s, "cached")
	if okIn && okCached && cached.Cmp(in) > 0 {
		// The API counts cached tokens within the prompt: more cached
		// than prompt has no disjoint input (the decoder leaves it
		// unstated).
		rep.Reportf(ruleStatsCached, ptr+"/cached", "cached is %s, more than input_tokens %s, which includes it", cached, in)
	}
	if input, ok := count(s, "input"); ok && okIn && okCached {
		want := new(big.Int).Sub(in, cached)
		if want.Sign() < 0 {
			want.SetInt64(0)
		}
		if input.Cmp(want) != 0 {
			rep.Reportf(ruleStatsInput, ptr+"/input", "input is %s, want input_tokens − cached = %s", input, want)
		}
	}
	if total, ok := count(s, "total_tokens"); ok && okIn && okOut {
		if sum := new(big.Int).Add(in, out); total.Cmp(sum) < 0 {
			rep.Reportf(ruleStatsTotal, ptr+"/total_tokens", "total_tokens is %s, less than input_tokens + output_tokens = %s", total, sum)
		}
	}
}

// count reads a non-negative integer literal exactly.
func count(s gjson.Result, k string) (*big.Int, bool) {
	v := jsonobj.Lookup(s, k)
	if v.Type != gjson.Number || strings.ContainsAny(v.Raw, ".eE-") {
		return nil, false
	}
	return new(big.Int).SetString(v.Raw, 10)
}

func (c *checker) End(last int, report func(dialect.Finding)) {
	if c.Empty(report) || !c.Complete(last, report) {
		return
	}
	c.calls.End(report)
}
