package claudetranscript_test

import (
	"slices"
	"strings"
	"testing"
)

// transcript builds a transcript from lines written with short names:
// each line's envelope (session, version, cwd, isSidechain false unless
// the line says it) is added.
func transcript(lines ...string) string {
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(`{"userType":"external","cwd":"/w","sessionId":"s1","version":"2.1.240",`)
		if !strings.Contains(l, `"isSidechain"`) {
			b.WriteString(`"isSidechain":false,`)
		}
		b.WriteString(l)
		b.WriteString("}\n")
	}
	return b.String()
}

// prompt is a user line with a prompt; result one with a tool's result.
func prompt(uuid, ts, text string) string {
	return `"type":"user","message":{"role":"user","content":"` + text + `"},"uuid":"` + uuid + `","timestamp":"2026-11-30T23:58:` + ts + `.000Z"`
}

func result(uuid, ts, call string) string {
	return `"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"` + call + `","content":"ok"}]},"uuid":"` + uuid + `","timestamp":"2026-11-30T23:58:` + ts + `.000Z"`
}

// answer is an assistant line of response id (requestId req, none when
// ""), with one block, a stop reason (null when "") and its usage.
func answer(uuid, ts, id, req, block, stop, input, output string) string {
	s := `"type":"assistant","message":{"id":"` + id + `","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929","content":[` + block + `],"stop_reason":`
	if stop == "" {
		s += "null"
	} else {
		s += `"` + stop + `"`
	}
	s += `,"usage":{"input_tokens":` + input + `,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":` + output + `}}`
	if req != "" {
		s += `,"requestId":"` + req + `"`
	}
	return s + `,"uuid":"` + uuid + `","timestamp":"2026-11-30T23:58:` + ts + `.000Z"`
}

const (
	textBlock = `{"type":"text","text":"ok"}`
	callBlock = `{"type":"tool_use","id":"toolu_1","name":"Read","input":{"file_path":"/w/a"}}`
)

// TestGatewayReusedMessageID: an LLM gateway that answers every response
// with one message id and no requestId (ccusage #1635). Each response is
// counted: a requestless response is its message id, its session and the
// time of its first line, as ccusage keys it since #1661; the lines of
// one response (partials whose output grows, a line written twice) are
// still one round.
func TestGatewayReusedMessageID(t *testing.T) {
	for _, c := range []struct {
		name, text string
		rounds     []string
		usage      string
	}{
		{"three prompts", transcript(
			prompt("u1", "01", "one"), answer("a1", "02", "ocgo", "", textBlock, "end_turn", "50", "100"),
			prompt("u2", "03", "two"), answer("a2", "04", "ocgo", "", textBlock, "end_turn", "60", "200"),
			prompt("u3", "05", "three"), answer("a3", "06", "ocgo", "", textBlock, "end_turn", "70", "300"),
		), []string{"100", "200", "300"}, "180/600/0/0/3"},
		// A response that called a tool stated its stop reason on its
		// last line: the next line of the same id is the next response.
		{"tool loop", transcript(
			prompt("u1", "01", "one"),
			answer("a1", "02", "ocgo", "", textBlock, "", "50", "10"),
			answer("a2", "03", "ocgo", "", callBlock, "tool_use", "50", "40"),
			result("u2", "04", "toolu_1"),
			answer("a3", "05", "ocgo", "", textBlock, "end_turn", "90", "20"),
		), []string{"40", "20"}, "140/60/0/0/2"},
		// Partials (output 10, 40), and the last line written twice at
		// one time: one response.
		{"partials and a double write", transcript(
			prompt("u1", "01", "one"),
			answer("a1", "02", "ocgo", "", textBlock, "", "50", "10"),
			answer("a2", "03", "ocgo", "", textBlock, "end_turn", "50", "40"),
			answer("a3", "03", "ocgo", "", textBlock, "end_turn", "50", "40"),
		), []string{"40"}, "50/40/0/0/1"},
		// With a requestId, a response is its message id and requestId.
		{"request ids", transcript(
			prompt("u1", "01", "one"), answer("a1", "02", "ocgo", "req_1", textBlock, "end_turn", "50", "100"),
			prompt("u2", "03", "two"), answer("a2", "04", "ocgo", "req_2", textBlock, "end_turn", "60", "200"),
			answer("a3", "05", "ocgo", "req_2", textBlock, "end_turn", "60", "200"),
		), []string{"100", "200"}, "110/300/0/0/2"},
	} {
		evs := decodeAll(t, c.text)
		if got := rounds(evs); !slices.Equal(got, c.rounds) {
			t.Errorf("%s: round outputs %v, want %v", c.name, got, c.rounds)
		}
		if got := usageText(finished(t, evs).Usage); got != c.usage {
			t.Errorf("%s: usage %s, want %s", c.name, got, c.usage)
		}
	}
}

// TestSideQuestionReplaysOpenResponse: a /btw side question replays the
// main thread's last response, still open (no line has ended it), under
// a new requestId (ccusage #913): the copy is not counted.
func TestSideQuestionReplaysOpenResponse(t *testing.T) {
	side := func(l string) string { return strings.Replace(l, `"type"`, `"isSidechain":true,"type"`, 1) }
	text := transcript(
		prompt("u1", "01", "run the tests"),
		answer("a1", "02", "msg_A", "req_A1", textBlock, "", "10", "5"),
		answer("a2", "03", "msg_A", "req_A1", callBlock, "", "10", "120"),
		result("u2", "04", "toolu_1"),
		answer("a3", "05", "msg_B", "req_B1", textBlock, "end_turn", "10", "40"),
		side(prompt("u3", "06", "/btw what does go vet do?")),
		side(answer("a4", "07", "msg_B", "req_BTW", textBlock, "end_turn", "10", "40")),
		side(answer("a5", "08", "msg_C", "req_C1", textBlock, "end_turn", "10", "25")),
	)
	evs := decodeAll(t, text)
	got := rounds(evs)
	slices.Sort(got)
	if want := []string{"120", "25", "40"}; !slices.Equal(got, want) {
		t.Errorf("round outputs %v, want %v", got, want)
	}
	if got := usageText(finished(t, evs).Usage); got != "30/185/0/0/3" {
		t.Errorf("usage %s, want 30/185/0/0/3", got)
	}

	// The replay of a response counted already (the main thread's next
	// response had begun) is not counted either.
	text = transcript(
		prompt("u1", "01", "run the tests"),
		answer("a1", "02", "msg_A", "req_A1", textBlock, "end_turn", "10", "120"),
		answer("a2", "03", "msg_B", "req_B1", textBlock, "", "10", "40"),
		side(prompt("u3", "06", "/btw what does go vet do?")),
		side(answer("a4", "07", "msg_A", "req_BTW", textBlock, "end_turn", "10", "120")),
		side(answer("a5", "08", "msg_C", "req_C1", textBlock, "end_turn", "10", "25")),
	)
	if got := usageText(finished(t, decodeAll(t, text)).Usage); got != "30/185/0/0/3" {
		t.Errorf("replay of a counted response: usage %s, want 30/185/0/0/3", got)
	}
}
