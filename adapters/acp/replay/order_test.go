package replay

import (
	"bufio"
	"context"
	"io"
	"os"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	_ "github.com/evtool/evtool/adapters" // the dialects
	"github.com/evtool/evtool/adapters/acp"
	"github.com/tidwall/gjson"
)

// The recordings of these tests: denied is one turn whose tool call waits
// for a permission (so the turn cannot end before the client answers);
// full is two turns, the first waiting for a permission, with the
// commands the recording offers before them.
const (
	denied    = "../../../testdata/streams/basis/denied_and_failed.jsonl"
	deniedID  = "s-denied"
	full      = "../../../testdata/streams/basis/full_schema2.jsonl"
	fullID    = "01JD2W7Q9H3K"
	initMsg   = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}`
	newMsg    = `{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/","mcpServers":[]}}`
	stopped   = "the replay of this turn was stopped"
	waitLimit = 10 * time.Second
)

func fileOpener(name string) Opener {
	return func() (io.ReadCloser, error) { return os.Open(name) }
}

func bytesOpener(b string) Opener {
	return func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(b)), nil }
}

// peer is a scripted client of an in-process Serve.
type peer struct {
	t     *testing.T
	in    *io.PipeWriter
	lines chan string
	done  chan error
	log   *lockedBuffer
	got   []string // every message read
}

type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// serve starts Serve on open; hooks may be nil.
func serve(t *testing.T, open Opener, opts Options) *peer {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	p := &peer{t: t, in: inW, lines: make(chan string, 1024), done: make(chan error, 1), log: &lockedBuffer{}}
	opts.Log = p.log
	go func() {
		err := Serve(context.Background(), inR, outW, open, opts)
		outW.Close()
		p.done <- err
	}()
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			p.lines <- sc.Text()
		}
		close(p.lines)
	}()
	t.Cleanup(func() {
		inW.Close()
		go func() {
			for range p.lines {
			}
		}()
	})
	return p
}

func (p *peer) send(msgs ...string) {
	p.t.Helper()
	if _, err := io.WriteString(p.in, strings.Join(msgs, "\n")+"\n"); err != nil {
		p.t.Fatal(err)
	}
}

// expect reads messages until one matches re, and returns it.
func (p *peer) expect(re string) string {
	p.t.Helper()
	rx := regexp.MustCompile(re)
	timeout := time.After(waitLimit)
	for {
		select {
		case l, ok := <-p.lines:
			if !ok {
				p.t.Fatalf("the agent ended before a message matching %s\n%s\nlog:\n%s", re, strings.Join(p.got, "\n"), p.log)
			}
			p.got = append(p.got, l)
			if rx.MatchString(l) {
				return l
			}
		case <-timeout:
			p.t.Fatalf("no message matching %s in %v\n%s", re, waitLimit, strings.Join(p.got, "\n"))
		}
	}
}

// seen returns the first message read that matches re, reading on if
// none has yet.
func (p *peer) seen(re string) string {
	p.t.Helper()
	rx := regexp.MustCompile(re)
	for _, l := range p.got {
		if rx.MatchString(l) {
			return l
		}
	}
	return p.expect(re)
}

// answers reads messages until each of ids is answered, in any order.
func (p *peer) answers(ids ...int) {
	p.t.Helper()
	for _, id := range ids {
		if answerOf(p.got, strconv.Itoa(id)) == "" {
			p.expect(`^\{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,("result"|"error")`)
		}
	}
}

// end closes the client's input, reads what is left, and requires Serve
// to return in time and without error.
func (p *peer) end() []string {
	p.t.Helper()
	p.in.Close()
	timeout := time.After(waitLimit)
	for {
		select {
		case l, ok := <-p.lines:
			if !ok {
				select {
				case err := <-p.done:
					if err != nil {
						p.t.Fatalf("Serve: %v", err)
					}
				case <-timeout:
					p.t.Fatal("Serve did not return")
				}
				return p.got
			}
			p.got = append(p.got, l)
		case <-timeout:
			p.t.Fatalf("Serve did not end in %v after its input did\n%s", waitLimit, strings.Join(p.got, "\n"))
		}
	}
}

// answerOf returns the message among got that answers id, "" if none.
func answerOf(got []string, id string) string {
	for _, l := range got {
		m := gjson.Parse(l)
		if m.Get("id").Raw == id && !m.Get("method").Exists() {
			return l
		}
	}
	return ""
}

func promptMsg(id int, session string) string {
	return `{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"session/prompt","params":{"sessionId":"` + session + `","prompt":[{"type":"text","text":"go"}]}}`
}

func cancelMsg(session string) string {
	return `{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"` + session + `"}}`
}

func loadMsg(id int, session string) string {
	return `{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"session/load","params":{"sessionId":"` + session + `","cwd":"/","mcpServers":[]}}`
}

func answered(id int, re string) string {
	return `^\{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"result":` + re
}

// isCancelled and isEndTurn end the pattern of a prompt's answer.
const (
	isCancelled = `\{"stopReason":"cancelled"\}\}$`
	isEndTurn   = `\{"stopReason":"end_turn"\}\}$`
)

// opened starts Serve on the recording at path and opens its session:
// initialize and session/new, both answered.
func opened(t *testing.T, path string, opts Options) *peer {
	t.Helper()
	p := serve(t, fileOpener(path), opts)
	p.send(initMsg, newMsg)
	p.expect(answered(1, ""))
	return p
}

// asked sends prompt id of the session and reads until the turn asks a
// permission, which it returns.
func (p *peer) asked(id int, session string) string {
	p.t.Helper()
	p.send(promptMsg(id, session))
	return p.expect(`"method":"session/request_permission"`)
}

// allow answers the permission request ask with the option of that id.
func (p *peer) allow(ask, option string) {
	p.t.Helper()
	p.send(`{"jsonrpc":"2.0","id":` + gjson.Get(ask, "id").Raw + `,"result":{"outcome":{"outcome":"selected","optionId":"` + option + `"}}}`)
}

// signal returns a hook that reports on ch each call whose argument
// satisfies match, and ch.
func signal(match func(string) bool) (func(string), chan struct{}) {
	ch := make(chan struct{}, 16)
	return func(m string) {
		if match(m) {
			ch <- struct{}{}
		}
	}, ch
}

func wait(t *testing.T, ch chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(waitLimit):
		t.Fatalf("no %s in %v", what, waitLimit)
	}
}

const repeats = 200

// A session/cancel that the filter reads before the prompt's handler has
// installed its cancel hook is remembered: the turn ends cancelled and
// plays nothing, and the next prompt plays the turn.
func TestCancelBeforeTheHook(t *testing.T) {
	for i := range repeats {
		release := make(chan struct{})
		var once sync.Once
		judged, cancels := signal(func(m string) bool { return m == "session/cancel" })
		hooks := &testHooks{judged: judged, promptEntered: func() { once.Do(func() { <-release }) }}
		p := opened(t, denied, Options{hooks: hooks})
		p.send(promptMsg(2, deniedID), cancelMsg(deniedID))
		wait(t, cancels, "cancel judged")
		close(release)
		p.expect(answered(2, isCancelled))
		// Nothing of the turn was played; the next prompt plays it.
		p.allow(p.asked(3, deniedID), "allow-once")
		p.expect(answered(3, isEndTurn))
		got := p.end()
		if n := strings.Count(strings.Join(got, "\n"), `"sessionUpdate":"tool_call","toolCallId":"c9"`); n != 1 {
			t.Fatalf("run %d: the turn's tool call was sent %d times\n%s", i, n, strings.Join(got, "\n"))
		}
	}
}

// A session/cancel after the prompt's hook is installed stops the turn:
// it ends cancelled, and the calls it opened are closed as failed.
func TestCancelAfterTheHook(t *testing.T) {
	for i := range repeats {
		hooked := make(chan struct{}, 1)
		hooks := &testHooks{promptHooked: func() { hooked <- struct{}{} }}
		p := opened(t, denied, Options{hooks: hooks})
		p.send(promptMsg(2, deniedID))
		wait(t, hooked, "prompt hooked")
		p.send(cancelMsg(deniedID))
		p.expect(answered(2, isCancelled))
		got := strings.Join(p.end(), "\n")
		// The call is closed if the turn had opened it before the cancel.
		if strings.Contains(got, `"sessionUpdate":"tool_call","toolCallId":"c9"`) != strings.Contains(got, stopped) {
			t.Fatalf("run %d: an opened call is not closed, or a closed one was not opened\n%s", i, got)
		}
	}
}

// A cancel while the turn waits for a permission: the turn is stopped
// there, the call closed as failed.
func TestCancelDuringAPermission(t *testing.T) {
	for range repeats / 4 {
		p := opened(t, denied, Options{})
		p.asked(2, deniedID)
		p.send(cancelMsg(deniedID))
		p.expect(stopped)
		p.expect(answered(2, isCancelled))
		p.end()
	}
}

// A cancel between two prompts cancels nothing: the next prompt plays.
func TestCancelBetweenPrompts(t *testing.T) {
	for i := range repeats / 4 {
		judged, cancels := signal(func(m string) bool { return m == "session/cancel" })
		p := opened(t, full, Options{hooks: &testHooks{judged: judged}})
		p.allow(p.asked(2, fullID), "allow-always")
		p.expect(answered(2, isEndTurn))
		p.send(cancelMsg(fullID))
		wait(t, cancels, "cancel judged")
		p.send(promptMsg(3, fullID))
		p.expect(`"text":"Done: the queue now waits`)
		p.expect(answered(3, isEndTurn))
		if got := strings.Join(p.end(), "\n"); strings.Contains(got, "cancelled") {
			t.Fatalf("run %d: a cancel between prompts cancelled something\n%s", i, got)
		}
	}
}

// A cancel of a session that does not exist, or without a sessionId, is
// ignored with a warning; the connection goes on.
func TestCancelUnknownSession(t *testing.T) {
	p := serve(t, fileOpener(denied), Options{})
	p.send(cancelMsg("nope"), `{"jsonrpc":"2.0","method":"session/cancel","params":{}}`, initMsg)
	p.expect(answered(0, ""))
	p.end()
	log := p.log.String()
	if !strings.Contains(log, "cancels session nope, which does not exist; ignored") || !strings.Contains(log, "session/cancel without a sessionId; ignored") {
		t.Fatalf("log:\n%s", log)
	}
	if len(p.got) != 1 {
		t.Fatalf("a notification was answered:\n%s", strings.Join(p.got, "\n"))
	}
}

// A prompt sent while the session's previous one plays is refused with
// -32600 at once, whatever the goroutines' order; the first plays on.
func TestSecondPromptRefused(t *testing.T) {
	for range repeats {
		p := opened(t, denied, Options{})
		p.send(promptMsg(2, deniedID), promptMsg(3, deniedID))
		p.expect(`^\{"jsonrpc":"2.0","id":3,"error":\{"code":-32600,"message":"Invalid request","data":\{"detail":"session s-denied is still playing the previous prompt: wait for its answer, or send session/cancel first"\}\}\}$`)
		p.allow(p.seen(`"method":"session/request_permission"`), "allow-once")
		p.expect(answered(2, isEndTurn))
		p.end()
	}
}

// session/cancel then session/prompt at once (what an editor sends when
// the user prompts during a turn): the first ends cancelled, the second
// plays the next turn.
func TestCancelThenPrompt(t *testing.T) {
	for i := range repeats {
		p := opened(t, full, Options{})
		p.asked(2, fullID)
		p.send(cancelMsg(fullID), promptMsg(3, fullID))
		p.expect(`"text":"Done: the queue now waits`)
		p.expect(answered(3, isEndTurn))
		got := p.end()
		if a := answerOf(got, "2"); !strings.Contains(a, `"cancelled"`) {
			t.Fatalf("run %d: the first prompt's answer: %q", i, a)
		}
	}
}

// A request id still in use is refused with -32600.
func TestIDInUse(t *testing.T) {
	p := opened(t, denied, Options{})
	p.asked(2, deniedID)
	p.send(loadMsg(2, deniedID))
	p.expect(`^\{"jsonrpc":"2.0","id":2,"error":\{"code":-32600,.*"the id 2 is the id of a request not yet answered"`)
	p.end()
}

// session/load of a session whose prompt plays: the prompt ends cancelled
// and is answered first; no update of the old turn (not even the closing
// of its calls) comes after it; then the history, then the load's answer.
func TestLoadDuringAPrompt(t *testing.T) {
	for i := range repeats {
		p := opened(t, full, Options{})
		p.asked(2, fullID)
		p.send(loadMsg(3, fullID))
		p.expect(answered(3, `\{\}\}$`))
		got := p.end()
		all := strings.Join(got, "\n")
		if strings.Contains(all, stopped) {
			t.Fatalf("run %d: the replaced turn closed its calls\n%s", i, all)
		}
		a := slicesIndex(got, func(l string) bool { return strings.Contains(l, `"id":2,"result":{"stopReason":"cancelled"}`) })
		h := slicesIndex(got, func(l string) bool { return strings.Contains(l, `"sessionUpdate":"user_message_chunk"`) })
		if a < 0 || h < 0 || a > h {
			t.Fatalf("run %d: the prompt's answer (%d) must come before the history (%d)\n%s", i, a, h, all)
		}
		// Between the answer and the history's first message, nothing.
		for _, l := range got[a+1 : h] {
			if strings.Contains(l, "session/update") && !strings.Contains(l, "available_commands_update") {
				t.Fatalf("run %d: a stale update before the history: %s", i, l)
			}
		}
	}
}

func slicesIndex(s []string, f func(string) bool) int {
	for i, l := range s {
		if f(l) {
			return i
		}
	}
	return -1
}

// The input ends during a prompt, or right after it: the prompt is
// answered (cancelled) before Serve returns.
func TestEOFDuringAPrompt(t *testing.T) {
	for i := range repeats {
		p := opened(t, denied, Options{})
		p.send(promptMsg(2, deniedID))
		if i%2 == 0 {
			p.expect(`"method":"session/request_permission"`)
		}
		got := p.end()
		if a := answerOf(got, "2"); !strings.Contains(a, `"stopReason":"cancelled"`) {
			t.Fatalf("run %d: the prompt's answer: %q\n%s", i, a, strings.Join(got, "\n"))
		}
	}
}

// Every request sent before the input ends is answered, in one write.
func TestEOFAnswersEverything(t *testing.T) {
	for i := range repeats {
		p := serve(t, fileOpener(full), Options{})
		p.send(initMsg, newMsg, promptMsg(2, fullID), `{"jsonrpc":"2.0","id":3,"method":"session/list","params":{}}`, loadMsg(4, fullID))
		got := p.end()
		for id := range 5 {
			if answerOf(got, strconv.Itoa(id)) == "" {
				t.Fatalf("run %d: request %d unanswered\n%s", i, id, strings.Join(got, "\n"))
			}
		}
	}
}

// protocolVersion must be a uint16; any other version than 1 is answered
// 1, the only one evtool speaks.
func TestProtocolVersion(t *testing.T) {
	bad := []string{`"1"`, `-1`, `1.5`, `null`, `70000`, `65536`, `1.0`, `1e0`, `true`, `{}`, `[1]`, `-0`, `""`}
	good := []string{`0`, `1`, `2`, `65535`}
	p := serve(t, fileOpener(denied), Options{})
	for i, v := range append(bad, good...) {
		p.send(`{"jsonrpc":"2.0","id":` + strconv.Itoa(i) + `,"method":"initialize","params":{"protocolVersion":` + v + `,"clientCapabilities":{}}}`)
		l := p.expect(`^\{"jsonrpc":"2.0","id":` + strconv.Itoa(i) + `,`)
		if i < len(bad) {
			if gjson.Get(l, "error.code").Int() != -32602 || !strings.Contains(l, "uint16") {
				t.Errorf("protocolVersion %s: %s", v, l)
			}
		} else if gjson.Get(l, "result.protocolVersion").Raw != "1" || gjson.Get(l, "result.agentCapabilities.sessionCapabilities.list").Raw != "{}" {
			t.Errorf("protocolVersion %s: %s", v, l)
		}
	}
	p.send(`{"jsonrpc":"2.0","id":99,"method":"initialize","params":{"clientCapabilities":{}}}`)
	p.expect(`"id":99,"error":\{"code":-32602`)
	p.end()
}

// session/list lists the recording's session, before and after
// session/new, under the directory asked about; it has one page.
func TestList(t *testing.T) {
	p := serve(t, fileOpener(full), Options{})
	list := func(id int, params string) string {
		p.send(`{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"session/list","params":` + params + `}`)
		return p.expect(`^\{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,`)
	}
	p.send(initMsg)
	p.expect(answered(0, ""))
	want := `{"sessions":[{"sessionId":"01JD2W7Q9H3K","cwd":"/home/dev/broker","title":"Why does the broker drop messages under load? Fix it and run the tests."}]}`
	if l := list(1, `{}`); gjson.Get(l, "result").Raw != want {
		t.Errorf("before session/new: %s", l)
	}
	p.send(`{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"/","mcpServers":[]}}`)
	p.expect(answered(2, ""))
	if l := list(3, `{"cwd":"/home/me/proj"}`); gjson.Get(l, "result.sessions.0.cwd").Str != "/home/me/proj" || gjson.Get(l, "result.sessions.#").Int() != 1 ||
		gjson.Get(l, "result.sessions.0.sessionId").Str != fullID {
		t.Errorf("after session/new, with cwd: %s", l)
	}
	if l := list(4, `{"cursor":"x"}`); gjson.Get(l, "error.code").Int() != -32602 {
		t.Errorf("with a cursor: %s", l)
	}
	if l := list(5, `{"cwd":5}`); gjson.Get(l, "error.code").Int() != -32602 {
		t.Errorf("with a bad cwd: %s", l)
	}
	// The listed session loads.
	p.send(loadMsg(6, fullID))
	p.expect(answered(6, `\{\}\}$`))
	p.end()
}

// The commands the recording offers follow the session/new answer, never
// precede it; a prompt sent at once does not wait for the delay.
func TestCommandsAfterTheNewAnswer(t *testing.T) {
	for i := range repeats / 4 {
		p := serve(t, fileOpener(full), Options{})
		p.send(initMsg, newMsg)
		if i%2 == 0 {
			p.send(promptMsg(2, fullID))
		}
		p.expect(`available_commands_update`)
		if a := slicesIndex(p.got, func(l string) bool { return strings.HasPrefix(l, `{"jsonrpc":"2.0","id":1,"result"`) }); a < 0 {
			t.Fatalf("run %d: commands before the session/new answer\n%s", i, strings.Join(p.got, "\n"))
		}
		p.end()
	}
}

// A recording that is not JSON, one that is binary, and an empty one:
// every request is answered (a recording that cannot be read at all with
// a clear error), Serve returns when the input ends, and no goroutine of
// it is left reading.
func TestHostileRecordings(t *testing.T) {
	bin := make([]byte, 4096)
	for i := range bin {
		bin[i] = byte(i*7 + i/13)
	}
	for name, rec := range map[string]string{"hello": "hello\n", "prose": "not json\nat all\n{\n", "binary": string(bin), "empty": "",
		"nul": "\x00\x00\x00", "blank": "\n\n   \n"} {
		t.Run(name, func(t *testing.T) {
			p := serve(t, bytesOpener(rec), Options{Name: "rec.jsonl"})
			sid := acp.DefaultSessionID
			p.send(initMsg, `{"jsonrpc":"2.0","id":1,"method":"session/list","params":{}}`, `{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"/","mcpServers":[]}}`)
			p.answers(0, 1, 2)
			p.send(promptMsg(3, sid))
			p.answers(3)
			p.send(loadMsg(4, sid))
			p.answers(4)
			for id := range 5 {
				l := answerOf(p.got, strconv.Itoa(id))
				t.Log(l)
				e := gjson.Get(l, "error")
				unreadable := e.Get("code").Int() == -32603 && strings.Contains(e.Raw, "the recording cannot be read")
				if e.Exists() && !unreadable && !(id == 3 && e.Get("code").Int() == -32002) {
					t.Errorf("request %d: %s", id, l)
				}
				if id == 3 && !e.Exists() && gjson.Get(l, "result.stopReason").Str != "end_turn" {
					t.Errorf("request %d: %s", id, l)
				}
			}
			p.end()
			leftover(t)
		})
	}
}

// leftover fails if a goroutine of this package outlives Serve.
func leftover(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Second)
	for {
		buf := make([]byte, 1<<20)
		st := string(buf[:runtime.Stack(buf, true)])
		var ours []string
		for _, g := range strings.Split(st, "\n\n") {
			if strings.Contains(g, "adapters/acp/replay.(") && !strings.Contains(g, "_test.go") {
				ours = append(ours, g)
			}
		}
		if len(ours) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("goroutines left after Serve returned:\n%s", strings.Join(ours, "\n\n"))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestMessageOverTheSDKLimit: a client message of 10 MiB or more is
// answered -32600 and the connection reads on. It went to the ACP SDK,
// whose reader stops at 10 MiB: nothing after it was answered, and the
// replay exited 0 after waiting 5 s (hunt-acp2 #4).
func TestMessageOverTheSDKLimit(t *testing.T) {
	p := serve(t, fileOpener(full), Options{})
	p.send(initMsg)
	p.expect(answered(0, ""))
	p.send(`{"jsonrpc":"2.0","id":1,"method":"session/list","params":{"pad":"` + strings.Repeat("x", 10<<20) + `"}}`)
	p.expect(`^\{"jsonrpc":"2.0","id":1,"error":\{"code":-32600,.*longer than 10 MiB`)
	p.send(`{"jsonrpc":"2.0","id":2,"method":"session/list","params":{}}`)
	p.expect(answered(2, ""))
	if !strings.Contains(p.log.String(), "client message 2 is longer than 10 MiB") {
		t.Errorf("log: %s", p.log)
	}
	p.end()
}

// TestTitleIsTheUsersPrompt: a session is titled by the user's first
// prompt (a turn's, where the stream echoes no message), never by a
// subagent's, which its parent wrote: Claude Code's stream-json without
// the user echo was titled by its Task's prompt (hunt-acp2 #7).
func TestTitleIsTheUsersPrompt(t *testing.T) {
	head := `{"seq":0,"type":"session_started","schema":1,"source":{"dialect":"canonical"},"session_id":"s1","workspace":"/w"}` + "\n"
	for _, c := range []struct{ name, body, want string }{
		{"subagent first", `{"seq":1,"type":"user_message","agent_id":"a1","text":"Run cargo test and report."}` + "\n" +
			`{"seq":2,"type":"user_message","text":"Fix the build"}` + "\n", "Fix the build"},
		{"turn prompt", `{"seq":1,"type":"turn_started","turn_id":"t1","prompt":"Why is it slow?"}` + "\n" +
			`{"seq":2,"type":"user_message","agent_id":"a1","text":"sub prompt"}` + "\n", "Why is it slow?"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := serve(t, bytesOpener(head+c.body), Options{Name: "run.jsonl"})
			p.send(initMsg)
			p.expect(answered(0, ""))
			p.send(`{"jsonrpc":"2.0","id":1,"method":"session/list","params":{}}`)
			l := p.expect(`^\{"jsonrpc":"2.0","id":1,`)
			if got := gjson.Get(l, "result.sessions.0.title").Str; got != c.want {
				t.Errorf("title %q, want %q", got, c.want)
			}
			p.end()
		})
	}
}
