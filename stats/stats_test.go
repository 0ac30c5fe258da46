package stats_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	_ "github.com/evtool/evtool/adapters"
	"github.com/evtool/evtool/event"
	"github.com/evtool/evtool/stats"
	"github.com/evtool/evtool/stream"
)

// canon numbers hand-made canonical lines (each written without seq) and
// opens the stream with a session_started.
func canon(lines ...string) string {
	all := append([]string{`{"type":"session_started","schema":1,"source":{"dialect":"hand"}}`}, lines...)
	var b strings.Builder
	for i, l := range all {
		fmt.Fprintf(&b, `{"seq":%d,%s`+"\n", i, strings.TrimPrefix(l, "{"))
	}
	return b.String()
}

func read(t *testing.T, s string) *stats.Run {
	t.Helper()
	r, err := stats.Read(strings.NewReader(s), "t.jsonl", stats.Options{LineError: func(le *stream.LineError) {
		t.Errorf("unexpected line error: %v", le)
	}})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

const max64 = "18446744073709551615"

func TestUsageLevels(t *testing.T) {
	type toks = map[stats.Token]uint64
	tests := []struct {
		name  string
		lines []string
		from  stats.Level
		want  toks
		cost  string
		sat   []stats.Token
	}{{
		name: "every level stated: the session's alone",
		lines: []string{
			`{"type":"turn_started","turn_id":"t1"}`,
			`{"type":"usage","turn_id":"t1","input_tokens":1,"output_tokens":1}`,
			`{"type":"round_finished","turn_id":"t1","usage":{"input_tokens":10,"output_tokens":10,"cost_usd":0.5}}`,
			`{"type":"turn_finished","turn_id":"t1","status":"ok","usage":{"input_tokens":100,"output_tokens":100,"cost_usd":0.6}}`,
			`{"type":"session_finished","status":"ok","usage":{"input_tokens":1000,"output_tokens":999,"cost_usd":0.7}}`,
		},
		from: stats.LevelSession, want: toks{stats.Input: 1000, stats.Output: 999}, cost: "0.7",
	}, {
		name: "no session usage: the sum of the turns'",
		lines: []string{
			`{"type":"turn_started","turn_id":"t1"}`,
			`{"type":"round_finished","turn_id":"t1","usage":{"input_tokens":7}}`,
			`{"type":"turn_finished","turn_id":"t1","status":"ok","usage":{"input_tokens":100,"cache_read_tokens":5,"cost_usd":0.1}}`,
			`{"type":"turn_started","turn_id":"t2"}`,
			`{"type":"round_finished","turn_id":"t2","usage":{"input_tokens":7}}`,
			`{"type":"turn_finished","turn_id":"t2","status":"ok","usage":{"input_tokens":200,"cache_read_tokens":6,"cost_usd":0.2}}`,
			`{"type":"session_finished","status":"ok"}`,
		},
		from: stats.LevelTurns, want: toks{stats.Input: 300, stats.CacheRead: 11}, cost: "0.3",
	}, {
		name: "rounds and usage events: the rounds win",
		lines: []string{
			`{"type":"turn_started","turn_id":"t1"}`,
			`{"type":"usage","input_tokens":3,"output_tokens":4}`,
			`{"type":"round_finished","usage":{"input_tokens":30,"output_tokens":40,"reasoning_tokens":2}}`,
			`{"type":"usage","input_tokens":5,"output_tokens":6}`,
			`{"type":"round_finished","usage":{"input_tokens":50,"output_tokens":60,"reasoning_tokens":3}}`,
			`{"type":"turn_finished","turn_id":"t1","status":"ok"}`,
		},
		from: stats.LevelRounds, want: toks{stats.Input: 80, stats.Output: 100, stats.Reasoning: 5},
	}, {
		name: "usage events alone",
		lines: []string{
			`{"type":"usage","input_tokens":3,"output_tokens":4,"cache_creation_tokens":9,"thoughts_tokens":1,"total_tokens":17}`,
			`{"type":"round_finished","stop_reason":"tool_use"}`,
			`{"type":"usage","input_tokens":5,"output_tokens":6,"cache_creation_tokens":0,"thoughts_tokens":2,"total_tokens":13}`,
		},
		from: stats.LevelUsageEvents, want: toks{stats.Input: 8, stats.Output: 10, stats.CacheWrite: 9, stats.Thoughts: 3, stats.Total: 30},
	}, {
		name:  "no usage at all",
		lines: []string{`{"type":"turn_started","turn_id":"t1"}`, `{"type":"turn_finished","turn_id":"t1","status":"ok"}`},
		want:  toks{},
	}, {
		name: "a count stated by one turn is summed over that one; one stated by none is absent",
		lines: []string{
			`{"type":"turn_finished","turn_id":"t1","status":"ok","usage":{"input_tokens":4}}`,
			`{"type":"turn_finished","turn_id":"t2","status":"ok","usage":{"output_tokens":0}}`,
		},
		from: stats.LevelTurns, want: toks{stats.Input: 4, stats.Output: 0},
	}, {
		name: "a cost alone states a level",
		lines: []string{
			`{"type":"usage","input_tokens":3}`,
			`{"type":"session_finished","status":"ok","usage":{"cost_usd":12.5}}`,
		},
		from: stats.LevelSession, want: toks{}, cost: "12.5",
	}, {
		name: "saturation: a sum beyond 2^64-1 stops there and says so",
		lines: []string{
			`{"type":"turn_finished","turn_id":"t1","status":"ok","usage":{"input_tokens":1,"output_tokens":` + max64 + `}}`,
			`{"type":"turn_finished","turn_id":"t2","status":"ok","usage":{"input_tokens":2,"output_tokens":1}}`,
		},
		from: stats.LevelTurns, want: toks{stats.Input: 3, stats.Output: math.MaxUint64}, sat: []stats.Token{stats.Output},
	}, {
		name: "2^64-1 stated once is not saturated",
		lines: []string{
			`{"type":"turn_finished","turn_id":"t1","status":"ok","usage":{"output_tokens":` + max64 + `}}`,
			`{"type":"turn_finished","turn_id":"t2","status":"ok","usage":{"output_tokens":0}}`,
		},
		from: stats.LevelTurns, want: toks{stats.Output: math.MaxUint64},
	}, {
		name: "exact cost: 0.1 + 0.2 is 0.3, exponents too",
		lines: []string{
			`{"type":"round_finished","usage":{"cost_usd":0.1}}`,
			`{"type":"round_finished","usage":{"cost_usd":0.2}}`,
			`{"type":"round_finished","usage":{"cost_usd":1.5e-7}}`,
			`{"type":"round_finished","usage":{"cost_usd":2E+1}}`,
			`{"type":"round_finished","usage":{"input_tokens":1}}`,
		},
		from: stats.LevelRounds, want: toks{stats.Input: 1}, cost: "20.30000015",
	}, {
		name: "9007199254740993 survives (no float64 on the way)",
		lines: []string{
			`{"type":"usage","input_tokens":9007199254740993}`,
			`{"type":"usage","input_tokens":9007199254740993}`,
		},
		from: stats.LevelUsageEvents, want: toks{stats.Input: 18014398509481986},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := read(t, canon(tt.lines...))
			if r.UsageFrom != tt.from {
				t.Errorf("UsageFrom = %q, want %q", r.UsageFrom, tt.from)
			}
			got := r.Usage.Tokens
			if got == nil {
				got = toks{}
			}
			if !maps.Equal(got, tt.want) {
				t.Errorf("Tokens = %v, want %v", got, tt.want)
			}
			if r.Usage.CostUSD != tt.cost {
				t.Errorf("CostUSD = %q, want %q", r.Usage.CostUSD, tt.cost)
			}
			if !slices.Equal(r.Usage.Saturated, tt.sat) {
				t.Errorf("Saturated = %v, want %v", r.Usage.Saturated, tt.sat)
			}
		})
	}
}

// An empty usage object states nothing, so the next level is used.
func TestEmptyUsageStatesNothing(t *testing.T) {
	c := stats.NewCounter()
	one := uint64(1)
	c.Add(&event.Event{Body: &event.SessionFinished{Status: event.StatusOK, Usage: &event.Usage{}}})
	c.Add(&event.Event{Body: &event.TurnFinished{Status: event.StatusOK, Usage: &event.Usage{InputTokens: &one}}})
	r := c.Run()
	if r.UsageFrom != stats.LevelTurns || r.Usage.Tokens[stats.Input] != 1 {
		t.Errorf("UsageFrom %q, tokens %v; want turns, input 1", r.UsageFrom, r.Usage.Tokens)
	}
}

// A cost that is no exact decimal within reach is left out, with a note.
func TestUnaddableCost(t *testing.T) {
	c := stats.NewCounter()
	c.Add(&event.Event{Body: &event.Usage{CostUSD: "1e99999"}})
	c.Add(&event.Event{Body: &event.Usage{CostUSD: "0.25"}})
	r := c.Run()
	if r.Usage.CostUSD != "0.25" || len(r.Notes) != 1 || !strings.Contains(r.Notes[0], "1e99999") {
		t.Errorf("cost %q, notes %q", r.Usage.CostUSD, r.Notes)
	}
}

func TestCounts(t *testing.T) {
	u := func(n uint64) *uint64 { return &n }
	tests := []struct {
		name           string
		lines          []string
		models         []string
		status         event.Status
		turns, rounds  *uint64
		calls          uint64
		kinds, statuss map[string]uint64
	}{{
		name:    "nothing but the first line: counts never stated are absent",
		kinds:   map[string]uint64{},
		statuss: map[string]uint64{},
	}, {
		name: "turns begun and not finished count; models in order, once",
		lines: []string{
			`{"type":"model_configured","model":"m2"}`,
			`{"type":"turn_started","turn_id":"t1"}`,
			`{"type":"model_configured","model":"m2"}`,
			`{"type":"round_finished"}`,
			`{"type":"turn_finished","turn_id":"t1","status":"ok"}`,
			`{"type":"turn_started","turn_id":"t2"}`,
			`{"type":"model_configured","model":"m3"}`,
			`{"type":"round_finished"}`,
			`{"type":"round_finished"}`,
		},
		models: []string{"m2", "m3"}, turns: u(2), rounds: u(3),
		kinds: map[string]uint64{}, statuss: map[string]uint64{},
	}, {
		name:  "turns finished without a start",
		lines: []string{`{"type":"turn_finished","turn_id":"t1","status":"ok"}`, `{"type":"session_finished","status":"cancelled"}`},
		turns: u(1), status: event.StatusCancelled,
		kinds: map[string]uint64{}, statuss: map[string]uint64{},
	}, {
		name: "tool calls, each once",
		lines: []string{
			`{"type":"tool_call","call_id":"a","name":"sh","kind":"execute"}`,
			`{"type":"tool_started","call_id":"a"}`,
			`{"type":"tool_output","call_id":"a","chunk":"x"}`,
			`{"type":"tool_finished","call_id":"a","status":"success"}`,
			// the kind known only at the end
			`{"type":"tool_call","call_id":"b","name":"web"}`,
			`{"type":"tool_call","call_id":"b","name":"web"}`,
			`{"type":"tool_finished","call_id":"b","status":"error","kind":"fetch"}`,
			// the tool_call's kind is the call's
			`{"type":"tool_call","call_id":"c","name":"ed","kind":"edit"}`,
			`{"type":"tool_finished","call_id":"c","status":"rejected","kind":"other"}`,
			// begun without a tool_call
			`{"type":"tool_started","call_id":"d","name":"x"}`,
			`{"type":"tool_finished","call_id":"d","status":"cancelled"}`,
			// finished without any beginning
			`{"type":"tool_finished","call_id":"e","status":"success","kind":"read"}`,
			// never finished
			`{"type":"tool_call","call_id":"f","name":"sh","kind":"execute"}`,
			`{"type":"tool_progress","call_id":"g","message":"…"}`,
			// an id used again after its call ended is another call
			`{"type":"tool_call","call_id":"a","name":"sh","kind":"search"}`,
			`{"type":"tool_finished","call_id":"a","status":"success"}`,
		},
		calls:   8,
		kinds:   map[string]uint64{"execute": 2, "fetch": 1, "edit": 1, "unstated": 2, "read": 1, "search": 1},
		statuss: map[string]uint64{"success": 3, "error": 1, "rejected": 1, "cancelled": 1, "unfinished": 2},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := read(t, canon(tt.lines...))
			if r.Dialect != "canonical" || r.SourceDialect != "hand" {
				t.Errorf("dialect %q from %q", r.Dialect, r.SourceDialect)
			}
			if !slices.Equal(r.Models, tt.models) {
				t.Errorf("Models = %q, want %q", r.Models, tt.models)
			}
			if r.Status != tt.status {
				t.Errorf("Status = %q, want %q", r.Status, tt.status)
			}
			if !reflect.DeepEqual(r.Turns, tt.turns) || !reflect.DeepEqual(r.Rounds, tt.rounds) {
				t.Errorf("turns %v, rounds %v; want %v, %v", show(r.Turns), show(r.Rounds), show(tt.turns), show(tt.rounds))
			}
			c := r.ToolCalls
			if c.Total != tt.calls || !maps.Equal(nz(c.ByKind), tt.kinds) || !maps.Equal(nz(c.ByStatus), tt.statuss) {
				t.Errorf("tool calls %d %v %v, want %d %v %v", c.Total, c.ByKind, c.ByStatus, tt.calls, tt.kinds, tt.statuss)
			}
			if r.Lines != uint64(len(tt.lines)+1) || r.BadLines != 0 {
				t.Errorf("lines %d, bad %d", r.Lines, r.BadLines)
			}
		})
	}
}

func show(p *uint64) string {
	if p == nil {
		return "absent"
	}
	return fmt.Sprint(*p)
}

func nz(m map[string]uint64) map[string]uint64 {
	if m == nil {
		return map[string]uint64{}
	}
	return m
}

// A line with problems is counted and reported; the rest is still read.
func TestBadLines(t *testing.T) {
	s := canon(`{"type":"turn_finished","turn_id":"t1","status":"ok","usage":{"input_tokens":4}}`) +
		"not json\n" +
		`{"seq":3,"type":"turn_finished","turn_id":"t2","status":"ok","usage":{"input_tokens":1.0}}` + "\n" +
		`{"seq":4,"type":"turn_finished","turn_id":"t3","status":"ok","usage":{"input_tokens":5}}` + "\n"
	var lines []int
	r, err := stats.Read(strings.NewReader(s), "t.jsonl", stats.Options{LineError: func(le *stream.LineError) { lines = append(lines, le.Line) }})
	if err != nil {
		t.Fatal(err)
	}
	if r.BadLines != 2 || !slices.Equal(lines, []int{3, 4}) {
		t.Errorf("bad lines %d %v, want 2 [3 4]", r.BadLines, lines)
	}
	// The line whose count is written 1.0 is kept as an unknown event:
	// its turn and tokens are not counted.
	if r.Lines != 5 || r.Usage.Tokens[stats.Input] != 9 || show(r.Turns) != "2" {
		t.Errorf("lines %d, input %d, turns %s; want 5, 9, 2", r.Lines, r.Usage.Tokens[stats.Input], show(r.Turns))
	}
}

// A stream whose dialect cannot be told is an error, kept in the run.
func TestUndetected(t *testing.T) {
	r, err := stats.Read(strings.NewReader(`{"what":1}`+"\n"), "x.jsonl", stats.Options{})
	var se *stream.StreamError
	if !errors.As(err, &se) || !errors.Is(r.Err, stream.ErrUndetected) || r.Dialect != "" {
		t.Errorf("err %v, run err %v, dialect %q", err, r.Err, r.Dialect)
	}
}

func TestTotals(t *testing.T) {
	a := read(t, canon(
		`{"type":"turn_finished","turn_id":"t1","status":"ok","usage":{"input_tokens":`+max64+`,"cost_usd":0.1}}`,
		`{"type":"tool_call","call_id":"a","name":"sh","kind":"execute"}`,
		`{"type":"session_finished","status":"ok"}`))
	b := read(t, canon(
		`{"type":"model_configured","model":"m"}`,
		`{"type":"round_finished","usage":{"input_tokens":1,"output_tokens":2,"cost_usd":0.2}}`,
		`{"type":"tool_call","call_id":"a","name":"sh","kind":"execute"}`,
		`{"type":"tool_finished","call_id":"a","status":"success"}`))
	var tot stats.Totals
	tot.Add(a)
	tot.Add(b)
	tot.Add(&stats.Run{File: "gone", Err: errors.New("no such file")})
	if tot.Runs != 2 || tot.Failed != 1 || tot.Lines != 9 || tot.Dialects["canonical"] != 2 {
		t.Errorf("runs %d failed %d lines %d dialects %v", tot.Runs, tot.Failed, tot.Lines, tot.Dialects)
	}
	if *tot.Turns != 1 || *tot.Rounds != 1 || tot.Stating["turns"] != 1 || tot.Stating["rounds"] != 1 {
		t.Errorf("turns %s rounds %s stating %v", show(tot.Turns), show(tot.Rounds), tot.Stating)
	}
	want := map[stats.Token]uint64{stats.Input: math.MaxUint64, stats.Output: 2}
	if !maps.Equal(tot.Usage.Tokens, want) || tot.Usage.CostUSD != "0.3" || !slices.Equal(tot.Usage.Saturated, []stats.Token{stats.Input}) {
		t.Errorf("usage %+v", tot.Usage)
	}
	if tot.Stating["input"] != 2 || tot.Stating["output"] != 1 || tot.Stating["cost_usd"] != 2 {
		t.Errorf("stating %v", tot.Stating)
	}
	if tot.ToolCalls.Total != 2 || tot.ToolCalls.ByStatus["unfinished"] != 1 || tot.ToolCalls.ByKind["execute"] != 2 {
		t.Errorf("tool calls %+v", tot.ToolCalls)
	}
}

// JSON counts are integers written from uint64, costs exact decimal
// strings, and what is not stated is absent.
func TestJSON(t *testing.T) {
	r := read(t, canon(
		`{"type":"turn_finished","turn_id":"t1","status":"ok","usage":{"output_tokens":`+max64+`,"cost_usd":0.1}}`,
		`{"type":"turn_finished","turn_id":"t1","status":"ok","usage":{"output_tokens":1,"cost_usd":0.2}}`))
	var tot stats.Totals
	tot.Add(r)
	var buf bytes.Buffer
	if err := stats.WriteJSON(&buf, []*stats.Run{r}, &tot); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"output": ` + max64, `"cost_usd": "0.3"`, `"usage_from": "turns"`, `"saturated": true`, `"saturated_tokens": [
        "output"
      ]`, `"turns": 2`} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("no %s in\n%s", want, buf.String())
		}
	}
	var doc struct {
		Runs []map[string]any `json:"runs"`
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	for _, absent := range []string{"rounds", "models", "status", "error", "notes"} {
		if _, ok := doc.Runs[0][absent]; ok {
			t.Errorf("%s is present, want absent", absent)
		}
	}
	tokens := doc.Runs[0]["tokens"].(map[string]any)
	if len(tokens) != 1 {
		t.Errorf("tokens %v, want output alone", tokens)
	}
}

func TestText(t *testing.T) {
	r := read(t, canon(`{"type":"usage","input_tokens":12345,"cost_usd":0.5}`))
	var tot stats.Totals
	tot.Add(r)
	var buf bytes.Buffer
	if err := stats.WriteText(&buf, []*stats.Run{r}, &tot); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"t.jsonl\n",
		"  dialect        canonical (from hand)\n",
		"  turns          —\n",
		"  tokens         summed over usage events\n",
		"    input        12345\n",
		"    output           —\n",
		"  cost (USD)     0.5\n",
		"total of 1 run\n",
	} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("no %q in\n%s", want, buf.String())
		}
	}
}

// TestPrompt: a run's Prompt is the first line of the user's first prompt
// with words, clipped to 120 characters; a subagent's prompt is not the
// user's; a Claude Code slash command is what was typed, and Codex's IDE
// context gives way to the request after it.
func TestPrompt(t *testing.T) {
	long := strings.Repeat("é", 130)
	tests := []struct {
		name string
		evs  []*event.Event
		want string
	}{
		{"none", nil, ""},
		{"first line", []*event.Event{{Body: &event.UserMessage{Text: "  \n Why is it slow?\nAnd how?"}}}, "Why is it slow?"},
		{"blank first", []*event.Event{{Body: &event.UserMessage{Text: " "}}, {Body: &event.UserMessage{Text: "second"}}}, "second"},
		{"turn prompt", []*event.Event{{Body: &event.TurnStarted{Prompt: ptr("from the turn")}}, {Body: &event.UserMessage{Text: "from the message"}}}, "from the turn"},
		{"a turn's prompt before a message that is none", []*event.Event{{Body: &event.UserMessage{Text: "Caveat: The messages below were generated by the user while running local commands."}}, {Body: &event.TurnStarted{Prompt: ptr("the prompt")}}}, "the prompt"},
		{"subagent", []*event.Event{{AgentID: "a1", Body: &event.UserMessage{Text: "Run cargo test."}}, {Body: &event.UserMessage{Text: "mine"}}}, "mine"},
		{"clipped", []*event.Event{{Body: &event.UserMessage{Text: long}}}, strings.Repeat("é", 120) + "…"},
		{"slash command", []*event.Event{{Body: &event.UserMessage{Text: "<command-message>init is analyzing your codebase…</command-message>\n<command-name>/init</command-name>"}}}, "/init"},
		{"slash command with args", []*event.Event{{Body: &event.UserMessage{Text: "<command-message>x</command-message>\n<command-name>/review</command-name>\n<command-args>the parser</command-args>"}}}, "/review the parser"},
		{"codex ide", []*event.Event{{Body: &event.UserMessage{Text: "# Context from my IDE setup:\n\n## Open tabs:\n- a.go\n\n## My request for Codex:\nfix the build\nplease"}}}, "fix the build"},
	}
	for _, tt := range tests {
		c := stats.NewCounter()
		for _, ev := range tt.evs {
			c.Add(ev)
		}
		if got := c.Run().Prompt; got != tt.want {
			t.Errorf("%s: Prompt %q, want %q", tt.name, got, tt.want)
		}
	}
}

func ptr(s string) *string { return &s }
