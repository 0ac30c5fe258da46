package claudetranscript

import (
	"encoding/json"
	"math/big"
	"strings"

	"github.com/evtool/evtool/adapters/internal/claudecode"
	"github.com/evtool/evtool/event"
	"github.com/evtool/evtool/internal/jsonenc"
	"github.com/evtool/evtool/internal/usagesum"
	"github.com/tidwall/gjson"
)

// Usage. Claude Code writes one line per content block of an API response,
// and each line repeats the response's usage as it stood when the block
// was written: the lines of one response share message.id (and requestId),
// and output_tokens grows along them (30, 30, 30, 30, 285), the last
// sometimes never written. A response's usage is counted once, from the
// line with the largest total (never the sum of its lines), when the next
// response of the same thread begins, its turn ends, or the transcript
// does: so the decoder holds the usage of one open response per thread,
// and remembers the responses it counted (a resumed session's replay or a
// /btw sidechain copy repeats them) in a bounded set.

// round is an API response whose lines are being read.
type round struct {
	key     string // what counts it once: see responseKey
	id, req string
	side    bool // read on a subagent's thread (isSidechain)
	stated  bool // a line stated its stop_reason: the response was complete
	model   string
	usage   event.Usage
	total   uint64 // of usage, to pick the largest line
	raw     string // the usage object as written on that line
	cost    string // costUSD of that line (early 1.0 builds)
	stop    event.StopReason
	toolUse bool
	time    string // of its last line
}

// responseKey is what identifies an API response, as ccusage keys it: its
// message id and requestId. Without a requestId (an Anthropic-compatible
// endpoint or gateway writes none) the message id is not enough: a gateway
// may answer every response with one id (ccusage #1635), so a requestless
// response is its message id and the time of its first line (ccusage
// #1661 scopes it to the session and the time; one transcript is read as
// one session). A line with neither id is a response of its own.
func responseKey(msgID, req, firstTime, uuid string) string {
	switch {
	case msgID != "" && req != "":
		return "response " + msgID + "\x00" + req
	case msgID != "":
		return "requestless " + msgID + "\x00" + firstTime
	case req != "":
		return "request " + req
	}
	return "line " + uuid
}

// continues reports whether a line of message id and request req, written
// at time, is another line of the open response r. The lines of one
// response share its message id, and its requestId where one is written
// (a line that lacks it is taken for one of the response's). Without
// requestIds, a line of r's message id after r's last line stated its
// stop reason (the API's last word on a response) is the next response,
// unless it was written at the same time as that line (Claude Code writes
// some lines twice).
func (r *round) continues(id, req, time string) bool {
	switch {
	case id == "":
		return r.id == "" && r.req != "" && r.req == req
	case id != r.id:
		return false
	case req != "" && r.req != "":
		return req == r.req
	case req != "" || r.req != "":
		return true
	}
	return !r.stated || time == r.time
}

// counted reports whether the response a line of thread t begins was
// counted already, or is being read on another thread: a resumed
// session's replay, a line written twice, or a /btw side question's
// sidechain, which replays the main thread's response under a new
// requestId (ccusage #913): a sidechain's response with the message id of
// another thread's is that response (ccusage keeps the main thread's copy).
func (d *Decoder) counted(t *thread, key, id, req string) bool {
	if d.responses.Has(key) {
		return true
	}
	if id == "" || req == "" {
		return false // requestless: the id alone may be a gateway's for every response
	}
	side := t != d.main
	if (side && d.responses.Has("id "+id)) || d.responses.Has("side "+id) {
		return true
	}
	open := func(o *thread) bool {
		return o != t && o.round != nil && o.round.id == id && o.round.req != ""
	}
	if open(d.main) {
		return true
	}
	for _, o := range d.threads {
		if open(o) {
			return true
		}
	}
	return false
}

// account takes an assistant line's usage into its thread's open round,
// closing the round of the thread's previous response first.
func (l *line) account(t *thread, m *fields) {
	d := l.d
	id, req := m.Get("id").Str, str(l.r, "requestId")
	if t.round != nil && !t.round.continues(id, req, l.time) {
		l.closeRound(t)
	}
	if t.round == nil {
		key := responseKey(id, req, l.time, str(l.r, "uuid"))
		if d.counted(t, key, id, req) {
			return
		}
		t.round = &round{key: key, id: strings.Clone(id), req: strings.Clone(req), side: t != d.main}
	}
	r := t.round
	r.time = l.time
	if s := m.Get("stop_reason"); s.Type == gjson.String {
		r.stop = claudecode.StopReason(s.Str)
		r.stated = true
	}
	u, isObj := m.usage()
	if !isObj {
		return
	}
	// checkNumbers refused any count but an integer literal within u64,
	// or a null cache count: nil here is absent or null.
	in, out := claudecode.Count(u.Get("input_tokens")), claudecode.Count(u.Get("output_tokens"))
	cr, cc := claudecode.Count(u.Get("cache_read_input_tokens")), claudecode.Count(u.Get("cache_creation_input_tokens"))
	tot := usagesum.Sat(usagesum.Sat(usagesum.Sat(val(in), val(out)), val(cr)), val(cc))
	if r.raw != "" && tot < r.total {
		return // an earlier line of the response said more: keep it
	}
	r.usage = event.Usage{InputTokens: in, OutputTokens: out, CacheReadTokens: cr, CacheCreationTokens: cc}
	r.total, r.raw = tot, strings.Clone(m.Get("usage").Raw)
	if model := m.Get("model").Str; model != r.model {
		r.model = strings.Clone(model)
	}
	if c := l.r.Get("costUSD"); c.Type == gjson.Number {
		r.cost = strings.Clone(c.Raw)
	}
}

func val(p *uint64) uint64 {
	if p == nil {
		return 0
	}
	return *p
}

// closeRound counts a thread's open response: a round_finished with its
// usage, and the response's id, request and model, and its usage as
// written (the cache-write split by lifetime, server tool use, service
// tier), in ext.claude-transcript.
func (l *line) closeRound(t *thread) {
	r := t.round
	if r == nil {
		return
	}
	d := l.d
	t.round = nil
	d.responses.Add(r.key, 0)
	if r.id != "" && r.req != "" {
		// For a sidechain's copy under another requestId (counted).
		d.responses.Add("id "+r.id, 0)
		if r.side {
			d.responses.Add("side "+r.id, 0)
		}
	}
	stop := r.stop
	if stop == "" && r.toolUse {
		stop = event.StopToolUse // the tool_use blocks of a response come last
	}
	if r.raw == "" {
		l.synth(&event.Event{Time: r.time, TurnID: t.roundTurn(d), AgentID: t.agent, Body: &event.RoundFinished{StopReason: stop}})
		return
	}
	u := r.usage
	u.CostUSD = json.Number(r.cost)
	d.total.add(&u)
	x := []byte{'{'}
	first := true
	for _, kv := range [][2]string{{"message_id", r.id}, {"requestId", r.req}, {"model", r.model}} {
		if kv[1] != "" {
			x = jsonenc.Key(x, &first, kv[0])
			x = jsonenc.String(x, kv[1])
		}
	}
	x = jsonenc.Key(x, &first, "usage")
	x = append(x, claudecode.Compact(r.raw)...)
	x = append(x, '}')
	l.synth(&event.Event{Time: r.time, TurnID: t.roundTurn(d), AgentID: t.agent, Ext: event.ExtOf(Name, x),
		Body: &event.RoundFinished{StopReason: stop, Usage: &u}})
}

// roundTurn is the turn a thread's round belongs to.
func (t *thread) roundTurn(d *Decoder) string {
	if t == d.main {
		return d.turn
	}
	return t.turn
}

// total is the session's usage: the sum of the responses counted. Its cost
// is the sum of theirs only when each stated one: costUSD is a response's
// own figure (early 1.0 builds), and a sum that leaves some out is no
// session's cost. Stated, it would cover the session's every response
// (package stats takes a session's cost as covering everything in it), so
// a response without one would go unpriced.
type total struct {
	rounds                 uint64
	in, out, cread, cwrite usagesum.Counter
	cost                   *big.Rat
	uncosted               bool // a response stated no cost (or one the sum cannot take)
}

func (s *total) add(u *event.Usage) {
	s.rounds++
	s.in.Add(u.InputTokens)
	s.out.Add(u.OutputTokens)
	s.cread.Add(u.CacheReadTokens)
	s.cwrite.Add(u.CacheCreationTokens)
	if u.CostUSD != "" && plainDecimal(string(u.CostUSD)) {
		if c, ok := new(big.Rat).SetString(string(u.CostUSD)); ok {
			if s.cost == nil {
				s.cost = new(big.Rat)
			}
			s.cost.Add(s.cost, c)
			return
		}
	}
	s.uncosted = true
}

// plainDecimal reports whether a JSON number is one a sum can take at a
// bounded cost: a cost written 1e999999999 would make big.Rat compute a
// number of a billion digits. Claude Code writes costs like 0.01234; a
// number with an exponent beyond ±400 stays on its round and out of the
// session's sum.
func plainDecimal(s string) bool {
	i := strings.IndexAny(s, "eE")
	if i < 0 {
		return len(s) <= 400
	}
	exp := strings.TrimLeft(s[i+1:], "+-")
	return len(exp) <= 3 && (len(exp) < 3 || exp <= "400")
}

// usage is the session's usage, nil when no response was counted.
func (s *total) usage() *event.Usage {
	if s.rounds == 0 {
		return nil
	}
	n := s.rounds
	u := &event.Usage{InputTokens: s.in.Get(), OutputTokens: s.out.Get(), CacheReadTokens: s.cread.Get(),
		CacheCreationTokens: s.cwrite.Get(), ModelResponses: &n}
	if s.cost != nil && !s.uncosted {
		u.CostUSD = json.Number(claudecode.DecimalString(s.cost))
	}
	return u
}
