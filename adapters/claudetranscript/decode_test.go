package claudetranscript_test

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/evtool/evtool/adapters/claudetranscript"
	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/dialecttest"
	"github.com/evtool/evtool/event"
	"github.com/evtool/evtool/internal/testkit/teststreams"
)

// decodeAll reads a whole transcript into canonical events.
func decodeAll(t *testing.T, text string) []*event.Event {
	t.Helper()
	return dialecttest.DecodeStream(t, claudetranscript.Dialect{}, dialecttest.Lines(text)...)
}

func decodeFile(t *testing.T, path string) []*event.Event {
	t.Helper()
	return dialecttest.DecodeStream(t, claudetranscript.Dialect{}, dialecttest.ReadLines(t, path)...)
}

// capture is a real transcript (../shared/ondisk/captures/README.md).
func capture(name string) string {
	return filepath.Join(teststreams.Root(), "..", "shared", "ondisk", "captures", "claude-code", name)
}

func n(p *uint64) string {
	if p == nil {
		return "-"
	}
	return fmt.Sprint(*p)
}

// usageText renders a usage as in/out/cache-read/cache-write/responses.
func usageText(u *event.Usage) string {
	if u == nil {
		return "none"
	}
	s := n(u.InputTokens) + "/" + n(u.OutputTokens) + "/" + n(u.CacheReadTokens) + "/" + n(u.CacheCreationTokens) + "/" + n(u.ModelResponses)
	if u.CostUSD != "" {
		s += " $" + string(u.CostUSD)
	}
	return s
}

func finished(t *testing.T, evs []*event.Event) *event.SessionFinished {
	t.Helper()
	f, ok := evs[len(evs)-1].Body.(*event.SessionFinished)
	if !ok {
		t.Fatalf("the last event is %s, not session_finished", evs[len(evs)-1].Type())
	}
	return f
}

// rounds returns the output_tokens of each round_finished, in order.
func rounds(evs []*event.Event) []string {
	var out []string
	for _, ev := range evs {
		if r, ok := ev.Body.(*event.RoundFinished); ok {
			out = append(out, n(r.Usage.OutputTokens))
		}
	}
	return out
}

// TestRealSampleUsage: the usage of each real transcript is the figure
// computed by hand from the file, each API response counted once, from
// its line with the largest total (never the sum of its lines).
//
// 1af7fc5e (Claude Code 1.0.98), 7 responses; input/output/cache
// read/cache write of the line kept, and the output_tokens of every line
// of the response:
//
//	…mpgWfZ  lines 3-4    3/322/4734/10816   (8, 322)
//	…VQquTL  lines 6-10   6/285/15550/304    (30, 30, 30, 30, 285: 285, not 405)
//	…LwpNCZ  lines 16-18  7/146/15854/435    (30, 146, 146)
//	…tkK9p2  line 22      61/41/16289/243
//	…aCLQjb  lines 24-25  5/1/16532/425      (1, 1: the final count was never written)
//	…TANAwW  line 27      6/86/16957/346
//	…nqjwKT  line 29      5/72/17303/129
//
//	input        3+6+7+61+5+6+5 = 93
//	output       322+285+146+41+1+86+72 = 953
//	cache read   4734+15550+15854+16289+16532+16957+17303 = 103219
//	cache write  10816+304+435+243+425+346+129 = 12698
//
// 5c0375b4 (1.0.108, two inline subagents), 20 responses, 10 on the main
// thread and 10 on the sidechains:
//
//	main  …jZjnMA 4/263/0/18764 (3, 263)   …o1poH3 7/302/18764/255 (25, 25, 302)
//	      …EYREvX 8/625/19019/422 (31, 31, 625)   …Ufwtgs 8/207/19441/901
//	      …imKzVF 6/24/20342/737   …TgubZn 6/1/21079/228 (1, 1)   …LuRaSX 7/67/21307/265
//	      …pFGfGU 6/26/21572/1317   …BSudRC 6/184/22889/2959   …VuzhiH 6/304/25848/226
//	side  …4z4cA2 4/107/0/12802 (107, 107)   …ipRbWB 7/70/12802/133   …uqvJzD 7/308/12935/501
//	      …J9qSnY 4/179/11454/1334 (179, 179)   …Z1XpQF 7/86/12788/592   …pQSwvB 7/102/13380/335
//	      …AwPaza 8/92/13715/4890   …dDGNUF 7/70/18605/304   …8jzbXh 7/92/18909/501
//	      …CfU1s2 7/520/19410/281
//
//	input        (4+7+8+8+6+6+7+6+6+6 = 64) + (4+7+7+4+7+7+8+7+7+7 = 65) = 129
//	output       (263+302+625+207+24+1+67+26+184+304 = 2003) + (107+70+308+179+86+102+92+70+92+520 = 1626) = 3629
//	cache read   (0+18764+19019+19441+20342+21079+21307+21572+22889+25848 = 190261)
//	             + (0+12802+12935+11454+12788+13380+13715+18605+18909+19410 = 133998) = 324259
//	cache write  (18764+255+422+901+737+228+265+1317+2959+226 = 26074)
//	             + (12802+133+501+1334+592+335+4890+304+501+281 = 21673) = 47747
func TestRealSampleUsage(t *testing.T) {
	for _, c := range []struct {
		file, usage string
		rounds      []string
	}{
		{"claude-code-viewer_1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl", "93/953/103219/12698/7",
			[]string{"322", "285", "146", "41", "1", "86", "72"}},
		{"claude-code-viewer_5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl", "129/3629/324259/47747/20",
			[]string{"263", "302", "107", "70", "308", "625", "179", "86", "102", "92", "70", "92", "520", "207", "24", "1", "67", "26", "184", "304"}},
	} {
		evs := decodeFile(t, capture(c.file))
		if got := usageText(finished(t, evs).Usage); got != c.usage {
			t.Errorf("%s: usage %s, want %s", c.file, got, c.usage)
		}
		// The rounds are in the order they end: a response ends when its
		// thread's next response begins.
		if got := rounds(evs); !slices.Equal(got, c.rounds) {
			t.Errorf("%s: round outputs %v, want %v", c.file, got, c.rounds)
		}
	}
}

// TestPartials: a response's lines are one round, its usage the largest
// line's; a response missing its final count keeps what was written; one
// without requestId (an Anthropic-compatible endpoint) is keyed by its
// message id.
func TestPartials(t *testing.T) {
	evs := decodeFile(t, "testdata/streaming_partials.jsonl")
	if got, want := rounds(evs), []string{"412", "1", "90"}; !slices.Equal(got, want) {
		t.Errorf("rounds %v, want %v", got, want)
	}
	if got := usageText(finished(t, evs).Usage); got != "20/503/68550/3900/3" {
		t.Errorf("session usage %s", got)
	}
}

// TestCost: early 1.0 lines state costUSD; a round keeps the number's
// own text and the session sums them exactly (0.01234 + 0.0089).
func TestCost(t *testing.T) {
	evs := decodeFile(t, "testdata/v1_0_cost.jsonl")
	var costs []string
	for _, ev := range evs {
		if r, ok := ev.Body.(*event.RoundFinished); ok {
			costs = append(costs, string(r.Usage.CostUSD))
		}
	}
	if want := []string{"0.01234", "0.0089"}; !slices.Equal(costs, want) {
		t.Errorf("round costs %v, want %v", costs, want)
	}
	if got := finished(t, evs).Usage.CostUSD; got != "0.02124" {
		t.Errorf("session cost %s, want 0.02124", got)
	}
}

// TestResume: a resumed session replays the lines it continues under its
// own sessionId; each line is read once, so each response and each call
// counts once.
func TestResume(t *testing.T) {
	evs := decodeFile(t, "testdata/resume_duplicates.jsonl")
	calls := map[string]int{}
	var notices []string
	for _, ev := range evs {
		switch b := ev.Body.(type) {
		case *event.ToolCall:
			calls[b.CallID]++
		case *event.Notice:
			notices = append(notices, b.Message)
		}
	}
	for id, k := range calls {
		if k != 1 {
			t.Errorf("call %s announced %d times", id, k)
		}
	}
	if len(calls) != 2 {
		t.Errorf("%d calls, want 2", len(calls))
	}
	if want := []string{"session b2b2b2b2-0000-4000-8000-000000000002 continues the transcript (a resumed session)"}; !slices.Equal(notices, want) {
		t.Errorf("notices %q", notices)
	}
	if got := usageText(finished(t, evs).Usage); got != "21/257/43050/2670/4" {
		t.Errorf("usage %s: the replayed responses counted again?", got)
	}
}

// tasks renders the task events: id, status, title, and the Task call in
// the residue.
func tasks(evs []*event.Event) []string {
	var out []string
	for _, ev := range evs {
		if b, ok := ev.Body.(*event.TaskUpdated); ok {
			s := b.TaskID + " " + string(b.Status)
			if b.Title != "" {
				s += " " + b.Title
			}
			if b.ParentTaskID != "" {
				s += " under " + b.ParentTaskID
			}
			out = append(out, s)
		}
	}
	return out
}

// agents returns the agent_id of each event of a type, in order.
func agents(evs []*event.Event, typ event.Type) []string {
	var out []string
	for _, ev := range evs {
		if ev.Type() == typ {
			out = append(out, ev.AgentID)
		}
	}
	return out
}

// TestSubagents: each subagent is a task linked to the Task call that ran
// it: in 1.0 by the prompt its first line repeats (two subagents whose
// lines interleave), in 2.0 by the call's toolUseResult.agentId, in 2.1
// by the agent_progress line; a subagent no call ran (2.0's warm-up) is a
// task of its own.
func TestSubagents(t *testing.T) {
	for _, c := range []struct {
		file  string
		tasks []string
		msgs  []string // agent_id of each message
	}{
		{"v1_0_inline_sidechain.jsonl", []string{
			"toolu_01FSdO2b0F8CywJYNnvFKgZS running Review parser",
			"toolu_01RU4fbKsWArEQF22VJqcg4Y running Review lexer",
			"toolu_01FSdO2b0F8CywJYNnvFKgZS completed",
			"toolu_01RU4fbKsWArEQF22VJqcg4Y completed"},
			[]string{"", "toolu_01RU4fbKsWArEQF22VJqcg4Y", "toolu_01FSdO2b0F8CywJYNnvFKgZS", "", ""}},
		{"v2_0_agent_files.jsonl", []string{
			"toolu_01EoJNGQo5MVRXfByaIb2I5r running Find price rounding",
			"feedbeef running",
			"toolu_01EoJNGQo5MVRXfByaIb2I5r completed"},
			[]string{"", "toolu_01EoJNGQo5MVRXfByaIb2I5r", "feedbeef"}},
		{"v2_1_subagents.jsonl", []string{
			"toolu_01zUNbn0tPF7ZDzFXzN3H4oH running Audit auth handlers",
			"toolu_01zUNbn0tPF7ZDzFXzN3H4oH completed"},
			[]string{"", "toolu_01zUNbn0tPF7ZDzFXzN3H4oH"}},
	} {
		evs := decodeFile(t, filepath.Join("testdata", c.file))
		if got := tasks(evs); !slices.Equal(got, c.tasks) {
			t.Errorf("%s: tasks\n got %q\nwant %q", c.file, got, c.tasks)
		}
		if got := agents(evs, event.TypeMessage); !slices.Equal(got, c.msgs) {
			t.Errorf("%s: messages by agent %q, want %q", c.file, got, c.msgs)
		}
	}
}

// TestNestedSubagent: a Task call a subagent makes runs a task under the
// subagent's own.
func TestNestedSubagent(t *testing.T) {
	in := `{"parentUuid":null,"isSidechain":false,"type":"user","message":{"role":"user","content":"go"},"uuid":"u1","timestamp":"2026-01-01T00:00:00.000Z","sessionId":"s","version":"2.1.3","cwd":"/w"}
{"parentUuid":"u1","isSidechain":false,"type":"assistant","message":{"id":"m1","role":"assistant","model":"claude-opus-4-6","content":[{"type":"tool_use","id":"call-a","name":"Agent","input":{"description":"outer","prompt":"outer work"}}],"stop_reason":"tool_use","usage":{"input_tokens":1,"output_tokens":2}},"uuid":"a1","timestamp":"2026-01-01T00:00:01.000Z","sessionId":"s","version":"2.1.3","cwd":"/w"}
{"parentUuid":"a1","isSidechain":false,"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"call-a","content":"done"}]},"toolUseResult":{"agentId":"A"},"uuid":"u2","timestamp":"2026-01-01T00:00:09.000Z","sessionId":"s","version":"2.1.3","cwd":"/w"}
{"parentUuid":null,"isSidechain":true,"agentId":"A","type":"user","message":{"role":"user","content":"outer work"},"uuid":"x1","timestamp":"2026-01-01T00:00:02.000Z","sessionId":"s","version":"2.1.3","cwd":"/w"}
{"parentUuid":"x1","isSidechain":true,"agentId":"A","type":"assistant","message":{"id":"m2","role":"assistant","model":"claude-opus-4-6","content":[{"type":"tool_use","id":"call-b","name":"Agent","input":{"description":"inner","prompt":"inner work"}}],"stop_reason":"tool_use","usage":{"input_tokens":1,"output_tokens":2}},"uuid":"x2","timestamp":"2026-01-01T00:00:03.000Z","sessionId":"s","version":"2.1.3","cwd":"/w"}
{"parentUuid":"x2","isSidechain":true,"agentId":"A","type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"call-b","content":"inner done"}]},"uuid":"x3","timestamp":"2026-01-01T00:00:08.000Z","sessionId":"s","version":"2.1.3","cwd":"/w"}
{"parentUuid":null,"isSidechain":true,"agentId":"B","type":"user","message":{"role":"user","content":"inner work"},"uuid":"y1","timestamp":"2026-01-01T00:00:04.000Z","sessionId":"s","version":"2.1.3","cwd":"/w"}`
	got := tasks(decodeAll(t, in))
	want := []string{"call-a running outer", "call-b running inner under call-a", "call-a completed", "call-b completed"}
	if !slices.Equal(got, want) {
		t.Errorf("tasks\n got %q\nwant %q", got, want)
	}
}

// TestTurns: a prompt begins a turn, and the turn ends at the next prompt
// or the end; text Claude Code composed (isMeta), a command's output, a
// compaction summary, tool results and the interruption marker begin
// none. An interrupted turn is cancelled; one whose answer is an API
// error failed.
func TestTurns(t *testing.T) {
	for _, c := range []struct {
		file string
		want []string
	}{
		{"v1_0_cost.jsonl", []string{"turn-1 <command-name>/cost</command-name>", "turn-1 ok", "turn-2 Fix the failing test in math_test.go", "turn-2 ok end_turn"}},
		{"compaction.jsonl", []string{"turn-1 Keep going with the migration.", "turn-1 ok end_turn", "turn-2 Now check the indexes.", "turn-2 cancelled cancelled",
			"turn-3 Skip that, just summarise.", "turn-3 ok end_turn"}},
		{"api_errors.jsonl", []string{"turn-1 Refactor the login form.", "turn-1 error", "turn-2 ", "turn-2 cancelled cancelled"}},
	} {
		var got []string
		for _, ev := range decodeFile(t, filepath.Join("testdata", c.file)) {
			switch b := ev.Body.(type) {
			case *event.TurnStarted:
				p := ""
				if b.Prompt != nil {
					p, _, _ = strings.Cut(*b.Prompt, "\n")
				}
				got = append(got, ev.TurnID+" "+p)
			case *event.TurnFinished:
				got = append(got, strings.TrimSpace(ev.TurnID+" "+string(b.Status)+" "+string(b.StopReason)))
			}
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: turns\n got %q\nwant %q", c.file, got, c.want)
		}
	}
}

// TestCompaction: the boundary and the summary are the compaction's start
// and end; a microcompaction is kept whole.
func TestCompaction(t *testing.T) {
	var got []string
	for _, ev := range decodeFile(t, "testdata/compaction.jsonl") {
		switch b := ev.Body.(type) {
		case *event.CompactionStarted:
			got = append(got, "started "+string(ev.Ext.Get(claudetranscript.Name)))
		case *event.CompactionFinished:
			got = append(got, "finished "+strings.SplitN(*b.SummaryPreview, ".", 2)[0])
		case *event.Unknown:
			got = append(got, "kept "+b.SourceType)
		}
	}
	want := []string{
		`started {"uuid":"072ad68b-1e47-421f-87d9-e8754754665a","logicalParentUuid":"d170d65a-1f05-44d1-9a38-b927412ecd08","compactMetadata":{"trigger":"auto","preTokens":155012}}`,
		"finished This session is being continued from a previous conversation that ran out of context",
		"kept system/microcompact_boundary",
		"kept system/turn_duration",
	}
	if !slices.Equal(got, want) {
		t.Errorf("compaction\n got %q\nwant %q", got, want)
	}
}

// TestToolStatuses: is_error results are errors, or refusals and
// interruptions where Claude Code's own words say so.
func TestToolStatuses(t *testing.T) {
	var got []string
	for _, f := range []string{"api_errors.jsonl", "compaction.jsonl", capture("claude-code-viewer_1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl")} {
		if !strings.Contains(f, "/") {
			f = filepath.Join("testdata", f)
		}
		for _, ev := range decodeFile(t, f) {
			if b, ok := ev.Body.(*event.ToolFinished); ok && b.Status != event.ToolSuccess {
				got = append(got, b.Name+" "+string(b.Status))
			}
		}
	}
	want := []string{"Edit rejected", "Bash error", "Bash cancelled", "Write rejected"}
	if !slices.Equal(got, want) {
		t.Errorf("statuses %q, want %q", got, want)
	}
}

// TestHeldStart: session_started comes first and names the model of the
// first assistant line, however many lines come before it (at most 64 are
// held; after them the model is left out).
func TestHeldStart(t *testing.T) {
	env := `"sessionId":"s","version":"2.0.1","cwd":"/w","timestamp":"2025-10-01T00:00:00.000Z"`
	var ls []string
	for i := range 70 {
		ls = append(ls, fmt.Sprintf(`{"type":"user","isMeta":true,"message":{"role":"user","content":"note %d"},"uuid":"u%d",%s}`, i, i, env))
	}
	ls = append(ls, `{"type":"assistant","message":{"id":"m","role":"assistant","model":"claude-x","content":[{"type":"text","text":"hi"}],"usage":{"input_tokens":1,"output_tokens":1}},"uuid":"a",`+env+`}`)
	for _, k := range []int{3, 70} {
		in := append(slices.Clone(ls[:k]), ls[70])
		evs := dialecttest.DecodeStream(t, claudetranscript.Dialect{}, in...)
		ss, ok := evs[0].Body.(*event.SessionStarted)
		if !ok {
			t.Fatalf("%d lines before the model: the first event is %s", k, evs[0].Type())
		}
		want := "claude-x"
		if k >= 64 {
			want = ""
		}
		if ss.Model != want || ss.SessionID != "s" || ss.Workspace != "/w" || ss.Agent.Version != "2.0.1" {
			t.Errorf("%d lines before the model: session_started %+v", k, ss)
		}
	}
}

// TestHeldStartAfterSummaries: metadata lines at the head (a 1.0 file
// resumed after many leaves begins with a summary for each) do not count
// among the 64 lines held: session_started still has the workspace and
// the model of the conversation that follows them.
func TestHeldStartAfterSummaries(t *testing.T) {
	var ls []string
	for i := range 70 {
		ls = append(ls, fmt.Sprintf(`{"type":"summary","summary":"leaf %d","leafUuid":"l%d"}`, i, i))
	}
	env := `"sessionId":"s","version":"1.0.98","cwd":"/w","timestamp":"2025-10-01T00:00:00.000Z"`
	ls = append(ls, `{"type":"user","message":{"role":"user","content":"hi"},"uuid":"u",`+env+`}`,
		`{"type":"assistant","message":{"id":"m","role":"assistant","model":"claude-x","content":[{"type":"text","text":"hi"}],"usage":{"input_tokens":1,"output_tokens":1}},"uuid":"a",`+env+`}`)
	evs := dialecttest.DecodeStream(t, claudetranscript.Dialect{}, ls...)
	ss, ok := evs[0].Body.(*event.SessionStarted)
	if !ok {
		t.Fatalf("the first event is %s", evs[0].Type())
	}
	if ss.Model != "claude-x" || ss.SessionID != "s" || ss.Workspace != "/w" {
		t.Errorf("session_started %+v", ss)
	}
}

// TestProvenance: with provenance, each event a line stands for names its
// physical line; synthesised events name none.
func TestProvenance(t *testing.T) {
	dec := claudetranscript.Dialect{}.NewDecoder(dialect.DecodeOptions{Provenance: true})
	var evs []*event.Event
	for i, l := range dialecttest.ReadLines(t, "testdata/streaming_partials.jsonl") {
		var err error
		if evs, err = dec.Decode(evs, []byte(l), i+1); err != nil {
			t.Fatal(err)
		}
	}
	evs = dec.End(evs)
	for _, ev := range evs {
		switch {
		case ev.Synthetic && ev.Src != nil:
			t.Errorf("synthetic %s has a source line", ev.Type())
		case !ev.Synthetic && (ev.Src == nil || ev.Src.Line < 1 || ev.Src.Dialect != claudetranscript.Name):
			t.Errorf("%s has no source line", ev.Type())
		}
	}
	if ev := evs[3]; ev.Type() != event.TypeReasoning || ev.Src.Line != 2 || ev.Src.Type != "assistant" {
		t.Errorf("the reasoning of line 2: %s %+v", ev.Type(), ev.Src)
	}
}

// TestSniff: the first lines a transcript may begin with are its own, and
// the stream-json dialect's lines (session_id, not sessionId) are not.
func TestSniff(t *testing.T) {
	d := claudetranscript.Dialect{}
	for _, l := range []string{
		`{"type":"summary","summary":"x","leafUuid":"u"}`,
		`{"type":"file-history-snapshot","messageId":"m","snapshot":{},"isSnapshotUpdate":false}`,
		`{"type":"permission-mode","permissionMode":"default","sessionId":"s"}`,
		`{"type":"user","uuid":"u","sessionId":"s","timestamp":"2025-01-01T00:00:00.000Z","message":{"role":"user","content":"x"}}`,
	} {
		if !d.Sniff([]byte(l)) {
			t.Errorf("refuses %s", l)
		}
	}
	for _, l := range []string{
		`{"type":"user","uuid":"u","session_id":"s","message":{"role":"user","content":"x"},"parent_tool_use_id":null}`,
		`{"type":"system","subtype":"init","session_id":"s","cwd":"/w"}`,
		`{"sessionId":"s","projectHash":"h","startTime":"t","lastUpdated":"t","kind":"main"}`,
		`{"type":"summary","summary":"x"}`,
		`[1]`,
	} {
		if d.Sniff([]byte(l)) {
			t.Errorf("takes %s", l)
		}
	}
}

// TestHostileCost: a cost whose exponent would take a billion digits is
// kept on its round, at once, and the session states no cost: a sum
// without it would not be the session's.
func TestHostileCost(t *testing.T) {
	line := func(id, cost string) string {
		return `{"type":"assistant","costUSD":` + cost + `,"message":{"id":"` + id + `","role":"assistant","model":"m","content":[{"type":"text","text":"x"}],"usage":{"input_tokens":1,"output_tokens":1}},"uuid":"` + id + `","sessionId":"s","timestamp":"2025-06-01T00:00:00.000Z"}`
	}
	evs := decodeAll(t, line("a", "1e999999999")+"\n"+line("b", "0.5")+"\n"+line("c", "2.5E-3"))
	if got := finished(t, evs).Usage.CostUSD; got != "" {
		t.Errorf("session cost %s, want none", got)
	}
	var costs []string
	for _, ev := range evs {
		if r, ok := ev.Body.(*event.RoundFinished); ok && r.Usage != nil {
			costs = append(costs, string(r.Usage.CostUSD))
		}
	}
	if want := []string{"1e999999999", "0.5", "2.5E-3"}; !slices.Equal(costs, want) {
		t.Errorf("rounds' costs %q, want %q", costs, want)
	}
}

// TestSessionCostOnlyWhenEveryResponseStatesOne: costUSD is a response's
// own figure; the session's cost is their sum only when every response
// states one. A session cost over a response without one would cover it,
// and a usage report would leave that response unpriced.
func TestSessionCostOnlyWhenEveryResponseStatesOne(t *testing.T) {
	line := func(id, cost string) string {
		c := ""
		if cost != "" {
			c = `"costUSD":` + cost + `,`
		}
		return `{"type":"assistant",` + c + `"message":{"id":"` + id + `","role":"assistant","model":"m","content":[{"type":"text","text":"x"}],"usage":{"input_tokens":1,"output_tokens":1}},"uuid":"` + id + `","sessionId":"s","timestamp":"2025-06-01T00:00:00.000Z"}`
	}
	for _, tc := range []struct {
		lines []string
		want  string
	}{
		{[]string{line("a", "0.5"), line("b", "0.25")}, "0.75"},
		{[]string{line("a", "0.5"), line("b", "")}, ""},
		{[]string{line("a", ""), line("b", "0.25")}, ""},
		{[]string{line("a", "0")}, "0"},
	} {
		evs := decodeAll(t, strings.Join(tc.lines, "\n"))
		if got := string(finished(t, evs).Usage.CostUSD); got != tc.want {
			t.Errorf("%d lines: session cost %q, want %q", len(tc.lines), got, tc.want)
		}
	}
}
