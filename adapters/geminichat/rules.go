package geminichat

import (
	"fmt"
	"math/big"
	"strings"

	"github.com/evtool/evtool/adapters/internal/check"
	"github.com/evtool/evtool/adapters/internal/geminicli"
	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/internal/jsonobj"
	"github.com/tidwall/gjson"
)

// rules is the catalogue of the chat's stream rules: each is declared
// once below, with its id, severity and purpose, and the checker reports
// through the value. docs/dialects/gemini-chat.md describes each.
var rules dialect.RuleSet

// The rules, in the order `evtool rules` lists them.
var (
	ruleFirstLine = rules.Error("gemini-chat/first-line",
		"the first JSON line is the chat's metadata (sessionId and projectHash)")
	ruleMetaRepeated = rules.Error("gemini-chat/metadata-repeated",
		"a later metadata line begins a subagent's chat (kind subagent), which evtool sessions gathers after its parent's")
	ruleRewindUnknown = rules.Error("gemini-chat/rewind-unknown",
		"$rewindTo names a record on the conversation's path (Gemini CLI's reader drops every record otherwise)")
	ruleReappended = rules.Warning("gemini-chat/id-reappended",
		"a record's id is written again only while it is the last record (Gemini CLI updates only its last message)")
	ruleToolUnfinished = rules.Warning("gemini-chat/tool-unfinished",
		"every tool call of a final record has ended: success, error or cancelled")
	ruleTokensTotal = rules.Warning("gemini-chat/tokens-total",
		"tokens.total = input + output + thoughts + tool")
	ruleTokensCached = rules.Warning("gemini-chat/tokens-cached",
		"tokens.cached is at most tokens.input, which includes it")
	ruleTimestamp = rules.Warning("gemini-chat/timestamp",
		"timestamps are ISO 8601 times, as Date.toISOString() writes them")
	ruleUnknownLine = rules.Unknown("gemini-chat/unknown-line",
		"a line is the metadata, a message record, $set or $rewindTo (error under --strict)")
	ruleUnknownType = rules.Unknown("gemini-chat/unknown-type",
		"a record's type is user, gemini, info, error or warning (error under --strict)")
	ruleUnknownField = rules.Unknown("gemini-chat/unknown-field",
		"every field is one Gemini CLI writes (error under --strict)")
	ruleUnknownValue = rules.Unknown("gemini-chat/unknown-value",
		"kind and a tool call's status are words Gemini CLI writes (error under --strict)")
)

// checker follows one stream. It keeps the path of the current chat
// (bounded: see path), and of the last record only its id, line and the
// calls it left open, which the tool-unfinished rule reports once the
// record is final. It keeps no line.
type checker struct {
	lines int
	path  path
	last  string // the last record's id
	line  int    // its line
	open  []openCall
}

// openCall is a call of the last record that had not ended.
type openCall struct{ id, status string }

func newChecker() *checker { return &checker{} }

func (c *checker) Line(line []byte, n int, report func(dialect.Finding)) {
	r := jsonobj.View(line)
	if !r.IsObject() {
		return
	}
	c.lines++
	rep := dialect.Reporter{Line: n, Report: report}
	kind := classify(r)
	if c.lines == 1 && kind != lineMeta {
		rep.Reportf(ruleFirstLine, "", "the first line is no metadata line (sessionId and projectHash), want the chat's metadata first")
	}
	switch kind {
	case lineMeta:
		c.meta(rep, r)
	case lineRecord:
		c.record(rep, r, report)
	case lineSet:
		c.set(rep, r)
	case lineRewind:
		c.final(report)
		id := jsonobj.Lookup(r, "$rewindTo").Str
		if _, found := c.path.rewind(id); !found {
			rep.Reportf(ruleRewindUnknown, "/$rewindTo", "$rewindTo names %q, which is no record on the conversation's path", id)
		}
		unknownKeys(rep, r, "", []string{"$rewindTo"}, "a $rewindTo line")
	default:
		rep.Reportf(ruleUnknownLine, "", "a line that is no metadata, record, $set or $rewindTo (kept as unknown)")
	}
}

func (c *checker) End(last int, report func(dialect.Finding)) {
	if c.lines == 0 {
		report(ruleFirstLine.Finding(0, "", "the stream has no JSON line: want the chat's metadata first"))
		return
	}
	c.final(report)
}

// final reports the calls the last record left open: it is final.
func (c *checker) final(report func(dialect.Finding)) {
	for _, o := range c.open {
		report(ruleToolUnfinished.Finding(c.line, "/toolCalls", fmt.Sprintf("call %q of record %q was last written with status %q: it never ended", o.id, c.last, o.status)))
	}
	c.open = c.open[:0]
	c.last, c.line = "", 0
}

func (c *checker) meta(rep dialect.Reporter, r gjson.Result) {
	if c.lines > 1 {
		c.final(rep.Report)
		if jsonobj.Lookup(r, "kind").Str != "subagent" {
			rep.Reportf(ruleMetaRepeated, "", "a second metadata line of kind %q: only a subagent's chat follows another", jsonobj.Lookup(r, "kind").Str)
		}
		c.path = path{} // another chat, with ids of its own
	}
	unknownKeys(rep, r, "", metaKeys, "the metadata")
	c.metaValues(rep, r, "")
	if m := jsonobj.Lookup(r, "messages"); m.IsArray() {
		jsonobj.ForEach(m, func(_, e gjson.Result) bool {
			if classify(e) == lineRecord {
				c.path.add(jsonobj.Lookup(e, "id").Str)
			}
			return true
		})
	}
}

// metaValues checks the metadata fields of a metadata line or a $set.
func (c *checker) metaValues(rep dialect.Reporter, r gjson.Result, ptr string) {
	for _, k := range []string{"startTime", "lastUpdated"} {
		timestamp(rep, jsonobj.Lookup(r, k), ptr+"/"+k)
	}
	if k := jsonobj.Lookup(r, "kind"); k.Type == gjson.String && !chatKinds[k.Str] {
		rep.Reportf(ruleUnknownValue, ptr+"/kind", "unknown kind %q (kept as written)", k.Str)
	}
}

func (c *checker) set(rep dialect.Reporter, r gjson.Result) {
	unknownKeys(rep, r, "", []string{"$set"}, "a $set line")
	s := jsonobj.Lookup(r, "$set")
	unknownKeys(rep, s, "/$set", metaKeys, "$set")
	c.metaValues(rep, s, "/$set")
	if m := jsonobj.Lookup(s, "messages"); m.IsArray() {
		c.path.reset()
		jsonobj.ForEach(m, func(_, e gjson.Result) bool {
			if classify(e) == lineRecord {
				c.path.add(jsonobj.Lookup(e, "id").Str)
			}
			return true
		})
	}
}

func (c *checker) record(rep dialect.Reporter, r gjson.Result, report func(dialect.Finding)) {
	id := jsonobj.Lookup(r, "id").Str
	if id != c.last || c.line == 0 {
		c.final(report)
		if onPath := c.path.add(id); onPath {
			rep.Reportf(ruleReappended, "/id", "record %q is written again after other records (it is emitted again, with what it adds)", id)
		}
		c.last, c.line = strings.Clone(id), rep.Line
	} else {
		c.line = rep.Line
	}
	c.open = c.open[:0]
	typ := jsonobj.Lookup(r, "type")
	if typ.Type == gjson.String && !recordTypes[typ.Str] {
		rep.Reportf(ruleUnknownType, "/type", "unknown record type %q (kept as unknown)", typ.Str)
	}
	if recordTypes[typ.Str] || typ.Str == "" {
		check.Keys(rep, ruleUnknownField, r, "", func(k string) bool { return knownRecordKey(typ.Str, k) }, "unknown field %q on a %s record", typ.Str)
	}
	timestamp(rep, jsonobj.Lookup(r, "timestamp"), "/timestamp")
	if typ.Str != "gemini" {
		return
	}
	if t := jsonobj.Lookup(r, "tokens"); t.IsObject() {
		unknownKeys(rep, t, "/tokens", tokenKeys, "tokens")
		checkTokens(rep, t)
	}
	i := 0
	jsonobj.ForEach(jsonobj.Lookup(r, "thoughts"), func(_, th gjson.Result) bool {
		ptr := fmt.Sprintf("/thoughts/%d", i)
		i++
		unknownKeys(rep, th, ptr, thoughtKeys, "a thought")
		timestamp(rep, jsonobj.Lookup(th, "timestamp"), ptr+"/timestamp")
		return true
	})
	i = 0
	jsonobj.ForEach(jsonobj.Lookup(r, "toolCalls"), func(_, tc gjson.Result) bool {
		ptr := fmt.Sprintf("/toolCalls/%d", i)
		i++
		unknownKeys(rep, tc, ptr, callKeys, "a tool call")
		timestamp(rep, jsonobj.Lookup(tc, "timestamp"), ptr+"/timestamp")
		st := jsonobj.Lookup(tc, "status")
		if st.Type != gjson.String {
			return true
		}
		if _, ended := toolStatuses[st.Str]; !ended {
			if !openToolStatuses[st.Str] {
				rep.Reportf(ruleUnknownValue, ptr+"/status", "unknown tool call status %q (the call is taken as not ended)", st.Str)
			}
			c.open = append(c.open, openCall{id: strings.Clone(jsonobj.Lookup(tc, "id").Str), status: strings.Clone(st.Str)})
		}
		return true
	})
}

// checkTokens checks a TokensSummary as the API fills it: the total is
// the prompt, the candidates, the thoughts and the tool-use prompt, and
// the cached tokens are part of the prompt. Counts are compared exactly.
func checkTokens(rep dialect.Reporter, t gjson.Result) {
	get := func(k string) (*big.Int, bool) {
		v := jsonobj.Lookup(t, k)
		if v.Type != gjson.Number || !jsonobj.IsIntLiteral(v.Raw) {
			return nil, false
		}
		return new(big.Int).SetString(v.Raw, 10)
	}
	in, okIn := get("input")
	if cached, ok := get("cached"); ok && okIn && cached.Cmp(in) > 0 {
		rep.Reportf(ruleTokensCached, "/tokens/cached", "cached is %s, more than input %s, which includes it", cached, in)
	}
	total, ok := get("total")
	if !ok || !okIn {
		return
	}
	sum := new(big.Int).Set(in)
	for _, k := range []string{"output", "thoughts", "tool"} {
		if n, ok := get(k); ok {
			sum.Add(sum, n)
		}
	}
	if total.Cmp(sum) != 0 {
		rep.Reportf(ruleTokensTotal, "/tokens/total", "total is %s, want input + output + thoughts + tool = %s", total, sum)
	}
}

// timestamp checks a timestamp that is a string; another type is the
// schema's business.
func timestamp(rep dialect.Reporter, v gjson.Result, ptr string) {
	if v.Type == gjson.String && !geminicli.IsISOTime(v.Str) {
		rep.Reportf(ruleTimestamp, ptr, "timestamp %q is not an ISO 8601 time", v.Str)
	}
}

// unknownKeys reports the keys of an object that its type lacks.
func unknownKeys(rep dialect.Reporter, v gjson.Result, ptr string, known []string, what string) {
	check.Keys(rep, ruleUnknownField, v, ptr, func(k string) bool { return has(known, k) }, "unknown field %q in %s", what)
}
