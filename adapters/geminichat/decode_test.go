package geminichat_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/evtool/evtool/adapters/geminichat"
	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/dialecttest"
	"github.com/evtool/evtool/event"
	"github.com/tidwall/gjson"
)

// read decodes a chat's lines as a whole stream, with opts, and returns
// its canonical lines.
func read(t *testing.T, opts dialect.DecodeOptions, lines ...string) []string {
	t.Helper()
	dec := geminichat.Dialect{}.NewDecoder(opts)
	var evs []*event.Event
	for i, l := range lines {
		var err error
		if evs, err = dec.Decode(evs, []byte(l), i+1); err != nil {
			t.Fatalf("line %d: %v\n%s", i+1, err, l)
		}
	}
	return dialecttest.Canonical(t, dec.End(evs))
}

// types returns the types of canonical lines, one word each.
func types(canon []string) string {
	var out []string
	for _, l := range canon {
		out = append(out, gjson.Get(l, "type").Str)
	}
	return strings.Join(out, " ")
}

func find(t *testing.T, canon []string, typ string) []gjson.Result {
	t.Helper()
	var out []gjson.Result
	for _, l := range canon {
		if r := gjson.Parse(l); r.Get("type").Str == typ {
			out = append(out, r)
		}
	}
	return out
}

// gemRec is a model response with id and an optional tool call of status.
func gemRec(id, status string) string {
	calls := ""
	if status != "" {
		calls = fmt.Sprintf(`,"toolCalls":[{"id":"call-%s","name":"read_file","args":{"file_path":"a"},"result":[{"functionResponse":{"id":"call-%s","name":"read_file","response":{"output":"A"}}}],"status":%q,"timestamp":"2026-05-06T12:00:02.100Z"}]`, id, id, status)
	}
	return `{"id":"` + id + `","timestamp":"2026-05-06T12:00:02.000Z","type":"gemini","content":"","thoughts":[{"subject":"S","description":"D","timestamp":"2026-05-06T12:00:01.500Z"}],"tokens":{"input":100,"output":5,"cached":40,"thoughts":2,"tool":0,"total":107},"model":"gemini-2.5-pro"` + calls + `}`
}

func userRec(id, text string) string {
	return `{"id":"` + id + `","timestamp":"2026-05-06T12:00:01.000Z","type":"user","content":[{"text":"` + text + `"}]}`
}

const setLine = `{"$set":{"lastUpdated":"2026-05-06T12:00:02.000Z"}}`

// TestLastWins: a record written twice is read once, in its last form:
// one round, one usage, and the tool calls only the second form has.
func TestLastWins(t *testing.T) {
	canon := read(t, dialect.DecodeOptions{}, head, userRec("u1", "go"), setLine, gemRec("g1", ""), setLine, gemRec("g1", "success"), setLine)
	want := "session_started turn_started user_message model_configured reasoning tool_call round_finished tool_finished session_finished"
	if got := types(canon); got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	r := find(t, canon, "round_finished")[0]
	if r.Get("stop_reason").Str != "tool_use" || r.Get("usage.input_tokens").Raw != "60" || r.Get("usage.cache_read_tokens").Raw != "40" {
		t.Errorf("round: %s", r.Raw)
	}
}

// TestHeldUntilFinal: a record is emitted when the next one shows it is
// final, the lines read meanwhile after it; the end makes the last final,
// and ends the session.
func TestHeldUntilFinal(t *testing.T) {
	dec := geminichat.Dialect{}.NewDecoder(dialect.DecodeOptions{})
	step := func(n int, line string) string {
		evs, err := dec.Decode(nil, []byte(line), n)
		if err != nil {
			t.Fatal(err)
		}
		return types(dialecttest.Canonical(t, evs))
	}
	for i, c := range []struct{ line, want string }{
		{head, "session_started"},
		{userRec("u1", "go"), ""},
		{`{"$set":{"summary":"s"}}`, ""}, // waits behind the held record
		{gemRec("g1", ""), "turn_started user_message unknown"},
		{gemRec("g1", "success"), ""},
		{`not json`, ""},
	} {
		if i == 5 {
			if _, err := dec.Decode(nil, []byte(c.line), i+1); err == nil {
				t.Fatal("a line that is no JSON object read")
			}
			continue
		}
		if got := step(i+1, c.line); got != c.want {
			t.Errorf("line %d: got %q, want %q", i+1, got, c.want)
		}
	}
	if got := types(dialecttest.Canonical(t, dec.End(nil))); got != "model_configured reasoning tool_call round_finished tool_finished session_finished" {
		t.Errorf("end: %s", got)
	}
}

// TestBadLineKeepsHeld: a record that does not read gives no events and
// leaves the held record as it was.
func TestBadLineKeepsHeld(t *testing.T) {
	dec := geminichat.Dialect{}.NewDecoder(dialect.DecodeOptions{})
	var evs []*event.Event
	for i, l := range []string{head, gemRec("g1", "success"), strings.Replace(gemRec("g1", ""), `"input":100`, `"input":"100"`, 1)} {
		var err error
		evs, err = dec.Decode(evs, []byte(l), i+1)
		if i == 2 {
			var de *geminichat.DecodeError
			if err == nil || !asDecodeError(err, &de) || de.Pointer != "/tokens/input" {
				t.Fatalf("got %v, want an error at /tokens/input", err)
			}
		}
	}
	canon := dialecttest.Canonical(t, dec.End(evs))
	if n := len(find(t, canon, "tool_finished")); n != 1 {
		t.Errorf("the held record was lost or replaced: %v", canon)
	}
}

func asDecodeError(err error, de **geminichat.DecodeError) bool {
	e, ok := err.(*geminichat.DecodeError)
	*de = e
	return ok
}

// TestRewind: a rewind to an emitted record and one to the held record
// are both branched events; nothing is taken back.
func TestRewind(t *testing.T) {
	canon := read(t, dialect.DecodeOptions{}, head, userRec("u1", "a"), gemRec("g1", ""), userRec("u2", "b"), gemRec("g2", ""),
		`{"$rewindTo":"u2"}`, userRec("u3", "c"), `{"$rewindTo":"u3"}`, userRec("u4", "d"), `{"$rewindTo":"nowhere"}`)
	b := find(t, canon, "branched")
	if len(b) != 3 {
		t.Fatalf("%d branched events: %v", len(b), canon)
	}
	for i, w := range []struct {
		entry, turn string
		abandoned   string
	}{{"u2", "u2", "2"}, {"u3", "u3", "1"}, {"nowhere", "u4", "3"}} { // u1, g1 and u4 were left: nowhere drops them all
		if b[i].Get("entry_id").Str != w.entry || b[i].Get("abandoned_entries").Raw != w.abandoned || b[i].Get("turn_id").Str != w.turn {
			t.Errorf("branched %d: %s, want entry %s, %s abandoned, in turn %s", i, b[i].Raw, w.entry, w.abandoned, w.turn)
		}
	}
	if n := len(find(t, canon, "round_finished")); n != 2 {
		t.Errorf("%d rounds, want 2: rewound records are still read", n)
	}
	if n := len(find(t, canon, "turn_started")); n != 4 {
		t.Errorf("%d turns, want 4", n)
	}
}

// TestRewindWithinTurn: a rewind to a record after the turn's prompt
// leaves the turn open.
func TestRewindWithinTurn(t *testing.T) {
	canon := read(t, dialect.DecodeOptions{}, head, userRec("u1", "a"), gemRec("g1", ""), gemRec("g2", ""), `{"$rewindTo":"g2"}`, gemRec("g3", ""))
	last := find(t, canon, "round_finished")
	if got := last[len(last)-1].Get("turn_id").Str; got != "u1" {
		t.Errorf("the round after the rewind is in turn %q, want u1", got)
	}
}

// TestReappendedAfterOthers: a record written again after another adds
// only what it did not say: its new tool call; no second round.
func TestReappendedAfterOthers(t *testing.T) {
	canon := read(t, dialect.DecodeOptions{}, head, userRec("u1", "a"), gemRec("g1", "executing"), `{"id":"i1","timestamp":"2026-05-06T12:00:03.000Z","type":"info","content":"x"}`, gemRec("g1", "success"))
	if got := types(canon); got != "session_started turn_started user_message model_configured reasoning tool_call round_finished notice tool_finished session_finished" {
		t.Errorf("got %s", got)
	}
}

// TestModel: reading a whole file, session_started waits for the first
// model (for at most 16 records); on a pipe it does not, and the model
// comes as model_configured.
func TestModel(t *testing.T) {
	lines := []string{head, userRec("u1", "a"), gemRec("g1", "")}
	file := read(t, dialect.DecodeOptions{Lookahead: true}, lines...)
	if got := gjson.Get(file[0], "model").Str; got != "gemini-2.5-pro" || types(file) != "session_started turn_started user_message reasoning round_finished session_finished" {
		t.Errorf("with lookahead: %v", file)
	}
	pipe := read(t, dialect.DecodeOptions{}, lines...)
	if gjson.Get(pipe[0], "model").Exists() || types(pipe) != "session_started turn_started user_message model_configured reasoning round_finished session_finished" {
		t.Errorf("without: %v", pipe)
	}
	long := []string{head}
	for i := range 20 {
		long = append(long, fmt.Sprintf(`{"id":"i%d","timestamp":"2026-05-06T12:00:03.000Z","type":"info","content":"x"}`, i))
	}
	long = append(long, gemRec("g1", ""))
	got := read(t, dialect.DecodeOptions{Lookahead: true}, long...)
	if gjson.Get(got[0], "model").Exists() || len(find(t, got, "model_configured")) != 1 {
		t.Errorf("a model named after 20 records: %v", got[:2])
	}
}

// TestProvenance: a held record's events name its own line.
func TestProvenance(t *testing.T) {
	canon := read(t, dialect.DecodeOptions{Provenance: true}, head, userRec("u1", "a"), setLine, gemRec("g1", ""), setLine, gemRec("g1", "success"), `{"$rewindTo":"u1"}`)
	for _, l := range canon {
		r := gjson.Parse(l)
		want := map[string]int64{"session_started": 1, "user_message": 2, "tool_call": 6, "round_finished": 6, "tool_finished": 6, "branched": 7}[r.Get("type").Str]
		if r.Get("synthetic").Bool() {
			if r.Get("src").Exists() {
				t.Errorf("a synthetic event with src: %s", l)
			}
			continue
		}
		if want != 0 && r.Get("src.line").Int() != want {
			t.Errorf("%s: src line %d, want %d", r.Get("type").Str, r.Get("src.line").Int(), want)
		}
	}
}

// TestCheckpoint: a history rewrite gives the held record the list's
// form, and is kept whole after it.
func TestCheckpoint(t *testing.T) {
	canon := read(t, dialect.DecodeOptions{}, head, userRec("u1", "a"), gemRec("g1", ""),
		`{"$set":{"messages":[`+userRec("u1", "a")+`,`+gemRec("g1", "success")+`]}}`, `{"$rewindTo":"g1"}`)
	if got := types(canon); got != "session_started turn_started user_message model_configured reasoning tool_call round_finished tool_finished unknown branched session_finished" {
		t.Errorf("got %s", got)
	}
	if b := find(t, canon, "branched")[0]; b.Get("abandoned_entries").Raw != "1" {
		t.Errorf("branched: %s", b.Raw)
	}
}

// TestSubagentWithoutParent: a subagent's chat whose parent's call is not
// known is a task with no turn and no end.
func TestSubagentWithoutParent(t *testing.T) {
	canon := read(t, dialect.DecodeOptions{}, head, userRec("u1", "a"), rSubHd, userRec("s1", "task"), gemRec("s2", ""))
	tasks := find(t, canon, "task_updated")
	if len(tasks) != 1 || tasks[0].Get("status").Str != "running" || tasks[0].Get("turn_id").Exists() {
		t.Errorf("tasks: %v", tasks)
	}
	for _, r := range find(t, canon, "round_finished") {
		if r.Get("agent_id").Str != "a1" {
			t.Errorf("a subagent's round without its agent_id: %s", r.Raw)
		}
	}
	if n := len(find(t, canon, "turn_started")); n != 1 {
		t.Errorf("%d turns, want 1: a subagent's prompt is no turn of the session", n)
	}
}

// TestNoMetadata: a chat read from its middle starts with a synthetic
// session_started.
func TestNoMetadata(t *testing.T) {
	canon := read(t, dialect.DecodeOptions{}, `{"$rewindTo":"x"}`, userRec("u1", "a"))
	if !gjson.Get(canon[0], "synthetic").Bool() || types(canon) != "session_started branched turn_started user_message session_finished" {
		t.Errorf("got %v", canon)
	}
}

// TestReadOnly: the encoder refuses to write.
func TestReadOnly(t *testing.T) {
	if dialect.Writable(geminichat.Dialect{}) {
		t.Fatal("gemini-chat is writable")
	}
	if err := (geminichat.Dialect{}).NewEncoder(nil, dialect.EncodeOptions{}).Encode(&event.Event{Body: &event.Notice{Message: "x"}}); err == nil {
		t.Fatal("the encoder wrote")
	}
}

// TestEmpty: no line, no event.
func TestEmpty(t *testing.T) {
	if got := read(t, dialect.DecodeOptions{}); len(got) != 0 {
		t.Errorf("got %v", got)
	}
}

// TestSessionUsage: session_finished holds the sum of every round's
// usage, subagents' included; a count no round states stays unstated.
func TestSessionUsage(t *testing.T) {
	canon := read(t, dialect.DecodeOptions{}, head, userRec("u1", "a"), gemRec("g1", "success"), rSubHd, gemRec("s1", ""),
		`{"id":"g9","timestamp":"2026-05-06T12:00:09.000Z","type":"gemini","content":"x","model":"m","tokens":{"input":7,"output":1,"total":8}}`)
	last := gjson.Parse(canon[len(canon)-1])
	if last.Get("type").Str != "session_finished" || !last.Get("synthetic").Bool() || last.Get("status").Str != "ok" {
		t.Fatalf("last line %s", last.Raw)
	}
	// 60+60+7 input, 40+40 cached, 5+5+1 output, 2+2 thoughts, 107+107+8 total.
	if got := last.Get("usage").Raw; got != `{"input_tokens":127,"output_tokens":11,"cache_read_tokens":80,"thoughts_tokens":4,"total_tokens":222}` {
		t.Errorf("usage %s", got)
	}
}
