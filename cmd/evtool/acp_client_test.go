package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/internal/testkit/teststreams"
	"github.com/rogpeppe/go-internal/testscript"
	"github.com/tidwall/gjson"
)

// acpStreams are the test streams of every dialect that the real clients
// replay: the bundled streams, the ACP goldens' inputs, and the bundled
// streams and real captures of every wire dialect in the registry, so that
// a new dialect's projection onto ACP is replayed too.
func acpStreams(t *testing.T) []string {
	var files []string
	globs := []string{"../../testdata/streams/*/*.jsonl", "../../testdata/acp/*.jsonl"}
	for _, d := range registered() {
		if d == "acp" || d == "canonical" {
			continue
		}
		for _, dir := range []string{"../../../shared/corpus/", "../../../shared/dialects-next/captures/"} {
			globs = append(globs, dir+d+"/*.jsonl")
		}
		// Every adapter's own streams too: the Claude turn-model defect of
		// issue 20 showed only on streams that lived there.
		globs = append(globs, "../../adapters/"+teststreams.Folder(d)+"/testdata/*.jsonl")
	}
	for _, g := range globs {
		m, _ := filepath.Glob(g)
		for _, f := range m {
			if !strings.HasSuffix(f, ".acp.jsonl") && !strings.HasSuffix(f, ".transcript.jsonl") {
				files = append(files, f)
			}
		}
	}
	if len(files) < 15 {
		t.Fatalf("only %d test streams", len(files))
	}
	return files
}

// promptShown reports whether a Gemini CLI user record shows the user
// something other than function responses (its displayContent, else its
// content).
func promptShown(r gjson.Result) bool {
	shown := r.Get("displayContent")
	if !shown.Exists() {
		shown = r.Get("content")
	}
	if shown.Type == gjson.String {
		return shown.Str != ""
	}
	for _, p := range shown.Array() {
		if !p.Get("functionResponse").Exists() {
			return true
		}
	}
	return false
}

// codexContext reports whether a user item of a mid-2025 rollout is the
// context Codex sends as the user (its instructions, its environment),
// not a prompt: its only text is one <user_instructions> or
// <environment_context> element.
func codexContext(r gjson.Result) bool {
	c := r.Get("content").Array()
	if len(c) != 1 {
		return false
	}
	t := strings.TrimSpace(c[0].Get("text").Str)
	return strings.HasPrefix(t, "<user_instructions>") || strings.HasPrefix(t, "<environment_context>")
}

// sourceTurns counts the user turns of a stream from the source itself,
// by each producer's own rule (one turnCounter per dialect, in
// turnCounters): a mermaid run is one turn, a basis turn begins at each
// user_message, a muse turn at each accepted command, a codex turn at each
// turn.started, a Claude Code turn ends at each result, an opencode or
// Gemini CLI turn begins at each user message. A run with events but no
// turn marker is one turn. -1 means the source's turns are not counted
// here (a forked Codex rollout: see codexRolloutTurns).
func sourceTurns(t *testing.T, file string) int {
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSpace(b), []byte("\n"))
	d, ok := dialect.Detect(lines[0])
	if !ok {
		t.Fatalf("%s: dialect not detected", file)
	}
	newCounter, ok := turnCounters[d.Name()]
	if !ok {
		t.Fatalf("%s: no turn rule for %s", file, d.Name())
	}
	c := newCounter()
	var tc turnCount
	for _, l := range lines {
		if !c.line(gjson.ParseBytes(l), &tc) {
			return -1
		}
	}
	if tc.turns == 0 && tc.other > 0 {
		return 1 // a run without a prompt is still one turn
	}
	return tc.turns
}

// turnCount is what a turnCounter has counted: turns, and other events
// (a run with events but no turn marker is one turn).
type turnCount struct{ turns, other int }

// A turnCounter reads a source's lines in order and counts its turns by
// its producer's rule; line returns false when the source's turns are not
// to be counted here.
type turnCounter interface {
	line(r gjson.Result, c *turnCount) bool
}

// turnCounters has a counter for each dialect, by name.
var turnCounters = map[string]func() turnCounter{
	"mermaid": func() turnCounter { return mermaidTurns{} },
	"basis": func() turnCounter {
		return typeTurns{turn: "user_message", quiet: []string{"run_started", "run_finished"}}
	},
	"codex":             func() turnCounter { return typeTurns{turn: "turn.started", quiet: []string{"thread.started"}} },
	"claude":            func() turnCounter { return typeTurns{turn: "result", quiet: []string{"system"}} },
	"muse":              func() turnCounter { return museTurns{} },
	"opencode":          func() turnCounter { return &opencodeTurns{users: map[string]bool{}} },
	"gemini":            func() turnCounter { return geminiTurns{} },
	"gemini-chat":       func() turnCounter { return &geminiChatTurns{users: map[string]bool{}} },
	"claude-transcript": func() turnCounter { return &transcriptTurns{seen: map[string]bool{}} },
	"codex-rollout":     func() turnCounter { return &codexRolloutTurns{} },
	"opencode-storage":  func() turnCounter { return opencodeStorageTurns{} },
}

// mermaidTurns: a mermaid run is one turn.
type mermaidTurns struct{}

func (mermaidTurns) line(_ gjson.Result, c *turnCount) bool {
	c.turns, c.other = 1, 0
	return true
}

// typeTurns counts a turn at each line of type turn; lines of a quiet type
// are neither turns nor other events.
type typeTurns struct {
	turn  string
	quiet []string
}

func (tt typeTurns) line(r gjson.Result, c *turnCount) bool {
	switch typ := r.Get("type").Str; {
	case typ == tt.turn:
		c.turns++
	case slices.Contains(tt.quiet, typ):
	default:
		c.other++
	}
	return true
}

// museTurns: a muse turn begins at each accepted command.
type museTurns struct{}

func (museTurns) line(r gjson.Result, c *turnCount) bool {
	if r.Get("payload_type").Str == "runtime.command.accepted" {
		c.turns++
	}
	return true
}

// opencodeTurns: an opencode turn begins at each user message, counted
// once per message id (message.updated repeats).
type opencodeTurns struct{ users map[string]bool }

func (o *opencodeTurns) line(r gjson.Result, c *turnCount) bool {
	switch typ := r.Get("type").Str; {
	case typ == "message.updated" && r.Get("properties.info.role").Str == "user":
		if id := r.Get("properties.info.id").Str; !o.users[id] {
			o.users[id] = true
			c.turns++
		}
	case strings.HasPrefix(typ, "server.") || strings.HasPrefix(typ, "session."):
	default:
		c.other++
	}
	return true
}

// geminiTurns: a Gemini CLI turn begins at each user message.
type geminiTurns struct{}

func (geminiTurns) line(r gjson.Result, c *turnCount) bool {
	switch typ := r.Get("type").Str; {
	case typ == "message" && r.Get("role").Str == "user":
		c.turns++
	case typ == "init":
	default:
		c.other++
	}
	return true
}

// geminiChatTurns: a user record whose shown content holds more than
// function responses is a prompt, counted once per id (a record written
// again replaces itself); a subagent's chat, after a metadata line of kind
// subagent, has no prompts of the session's.
type geminiChatTurns struct {
	users map[string]bool
	sub   bool // within a subagent's chat
}

func (g *geminiChatTurns) prompt(r gjson.Result, c *turnCount) {
	if id := r.Get("id").Str; !g.users[id] && promptShown(r) {
		g.users[id] = true
		c.turns++
	}
}

func (g *geminiChatTurns) line(r gjson.Result, c *turnCount) bool {
	switch typ := r.Get("type").Str; {
	case r.Get("kind").Str == "subagent":
		g.sub = true
	case r.Get("sessionId").Exists() && r.Get("projectHash").Exists():
		g.sub = false
		// A legacy chat on one line holds its records.
		for _, m := range r.Get("messages").Array() {
			if m.Get("type").Str == "user" {
				g.prompt(m, c)
			}
		}
	case typ == "user" && !g.sub:
		g.prompt(r, c)
	case typ == "user" || typ == "":
	default:
		c.other++
	}
	return true
}

// transcriptTurns: a prompt is a main-thread user line the user wrote:
// not meta, a compaction summary, a tool result, an interruption or a
// local command's output; a resumed session's replayed lines are read once
// (by uuid).
type transcriptTurns struct{ seen map[string]bool }

func (tr *transcriptTurns) line(r gjson.Result, c *turnCount) bool {
	uuid := r.Get("uuid").Str
	if uuid != "" && tr.seen[uuid] {
		return true
	}
	tr.seen[uuid] = true
	switch typ := r.Get("type").Str; {
	case typ == "user" && transcriptPrompt(r):
		c.turns++
	case typ == "user" || typ == "assistant":
		c.other++
	}
	return true
}

// transcriptPrompt reports whether a transcript's user line is a prompt
// the user wrote (see transcriptTurns).
func transcriptPrompt(r gjson.Result) bool {
	if r.Get("isMeta").Bool() || r.Get("isCompactSummary").Bool() || r.Get("isSidechain").Bool() || r.Get("agentId").Exists() {
		return false
	}
	content := r.Get("message.content")
	if strings.Contains(content.Raw, `"tool_result"`) {
		return false
	}
	text := content.Str
	for _, b := range content.Array() {
		if b.Get("type").Str == "text" {
			text = b.Get("text").Str
			break
		}
	}
	return (text != "" || len(content.Array()) > 0) &&
		!strings.HasPrefix(text, "[Request interrupted by user") && !strings.HasPrefix(text, "<local-command-std")
}

// codexRolloutTurns: task_started opens a turn; a user message outside
// one opens one of its own (events in newer rollouts, bare user items in
// the mid-2025 format, which has no events). A fork copies its parent's
// history, turns and all; telling the copy from the fork's own lines is the
// decoder's rule (docs/dialects/codex-rollout.md), which this count does
// not repeat: its turns are not counted.
type codexRolloutTurns struct {
	explicit bool // within a turn task_started opened
	seenMeta bool // a session_meta was read
}

func (cr *codexRolloutTurns) line(r gjson.Result, c *turnCount) bool {
	typ, pt := r.Get("type").Str, r.Get("payload.type").Str
	switch {
	case typ == "event_msg" && pt == "task_started":
		c.turns++
		cr.explicit = true
	case typ == "event_msg" && (pt == "task_complete" || pt == "turn_aborted"):
		cr.explicit = false
	case typ == "session_meta" && (r.Get("payload.forked_from_id").Str != "" || cr.seenMeta):
		return false
	case typ == "event_msg" && pt == "user_message",
		typ == "message" && r.Get("role").Str == "user" && !r.Get("payload").Exists() && !codexContext(r):
		if !cr.explicit {
			c.turns++
		}
	case typ == "session_meta" || typ == "turn_context" || r.Get("record_type").Exists():
		cr.seenMeta = cr.seenMeta || typ == "session_meta"
	default:
		c.other++
	}
	return true
}

// opencodeStorageTurns: an opencode session's turn begins at each user
// message.
type opencodeStorageTurns struct{}

func (opencodeStorageTurns) line(r gjson.Result, c *turnCount) bool {
	switch typ := r.Get("type").Str; {
	case typ == "message" && r.Get("data.role").Str == "user":
		c.turns++
	case typ == "session":
	default:
		c.other++
	}
	return true
}

// agentSide returns, from a transcript or log, the params of its
// session/update notifications and permission requests and the results of
// its prompt responses.
func agentSide(t *testing.T, out string) (updates, perms, results []json.RawMessage) {
	t.Helper()
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		m := gjson.Parse(sc.Text())
		switch {
		case m.Get("method").Str == "session/update":
			updates = append(updates, json.RawMessage(m.Get("params").Raw))
		case m.Get("method").Str == "session/request_permission":
			perms = append(perms, json.RawMessage(m.Get("params").Raw))
		case m.Get("result.stopReason").Exists():
			results = append(results, json.RawMessage(m.Get("result").Raw))
		}
	}
	return
}

// received is what either test client prints.
type received struct {
	Updates      []json.RawMessage `json:"updates"`
	Permissions  []json.RawMessage `json:"permissions"`
	Results      []json.RawMessage `json:"results"`
	TypedUpdates *int              `json:"typedUpdates"`
	InitMs       float64           `json:"initMs"`
	LoadSession  bool              `json:"loadSession"`
	ListSessions bool              `json:"listSessions"`
	Listed       []json.RawMessage `json:"listed"`
}

// sameJSON compares two lists of JSON values. exact compares numbers as
// their text; otherwise as float64, which is all a JavaScript client has.
func sameJSON(t *testing.T, what string, got, want []json.RawMessage, exact bool) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: the client received %d, --to acp writes %d", what, len(got), len(want))
	}
	for i := range want {
		g, w := decodeJSON(t, got[i], exact), decodeJSON(t, want[i], exact)
		if !reflect.DeepEqual(g, w) {
			t.Fatalf("%s %d differs:\n got %s\nwant %s", what, i, got[i], want[i])
		}
	}
}

func decodeJSON(t *testing.T, b []byte, exact bool) any {
	dec := json.NewDecoder(bytes.NewReader(b))
	if exact {
		dec.UseNumber()
	}
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	return v
}

// acpClients builds evtool and the Go SDK client, checks that the
// TypeScript SDK is installed, and returns a function that runs either
// client ("ts", "go") with ARGS and returns what it received.
func acpClients(t *testing.T) func(t *testing.T, name string, args ...string) received {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("node is needed for the ACP client test")
	}
	tsClient, _ := filepath.Abs("../../clients/acp/replay-client.mjs")
	if _, err := os.Stat(filepath.Join(filepath.Dir(tsClient), "node_modules", "@agentclientprotocol", "sdk")); err != nil {
		t.Fatal("the ACP SDK is not installed: run npm ci --prefix clients/acp (make test does)")
	}
	dir := t.TempDir()
	bin, goClient := filepath.Join(dir, "evtool"), filepath.Join(dir, "acpgo")
	for _, b := range [][2]string{{bin, "."}, {goClient, "../../clients/acpgo"}} {
		if out, err := exec.Command("go", "build", "-o", b[0], b[1]).CombinedOutput(); err != nil {
			t.Fatalf("go build %s: %v\n%s", b[1], err, out)
		}
	}
	clients := map[string]func(args ...string) *exec.Cmd{
		"ts": func(args ...string) *exec.Cmd { return exec.Command(node, append([]string{tsClient, bin}, args...)...) },
		"go": func(args ...string) *exec.Cmd { return exec.Command(goClient, append([]string{bin}, args...)...) },
	}
	return func(t *testing.T, name string, args ...string) received {
		t.Helper()
		cmd := clients[name](args...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("the %s client failed: %v\n%s", name, err, stderr.String())
		}
		var got received
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		if !got.LoadSession {
			t.Error("initialize does not offer session/load")
		}
		if !got.ListSessions {
			t.Error("initialize does not offer session/list")
		}
		if got.TypedUpdates != nil && *got.TypedUpdates != len(got.Updates) {
			t.Errorf("the Go SDK's typed client accepted %d of %d updates", *got.TypedUpdates, len(got.Updates))
		}
		return got
	}
}

// TestRealACPClientsCancel has both official SDKs, as editors, send a
// prompt and session/cancel right after it, in 20 new sessions each: every
// turn must end cancelled. The recording's turn waits for a permission,
// which the client answers, allowing it, only once its cancel is sent: a
// lost cancel would end the turn end_turn. A call the turn opened before
// the cancel is closed as failed.
func TestRealACPClientsCancel(t *testing.T) {
	runClient := acpClients(t)
	const runs = 20
	for _, name := range []string{"ts", "go"} {
		t.Run(name, func(t *testing.T) {
			got := runClient(t, name, "../../testdata/streams/basis/denied_and_failed.jsonl", "cancel", strconv.Itoa(runs))
			if len(got.Results) != runs {
				t.Fatalf("%d prompt results, want %d", len(got.Results), runs)
			}
			for i, r := range got.Results {
				if gjson.GetBytes(r, "stopReason").Str != "cancelled" {
					t.Errorf("run %d: the turn ended %s, not cancelled", i+1, r)
				}
			}
			opened, closed := 0, 0
			for _, u := range got.Updates {
				up := gjson.GetBytes(u, "update")
				switch {
				case up.Get("sessionUpdate").Str == "tool_call":
					opened++
				case up.Get("status").Str == "failed" && strings.Contains(up.Raw, "the replay of this turn was stopped"):
					closed++
				case up.Get("sessionUpdate").Str == "tool_call_update":
					t.Errorf("a cancelled turn went on: %s", u)
				}
			}
			if opened != closed {
				t.Errorf("%d calls opened, %d closed by the cancel", opened, closed)
			}
		})
	}
}

// TestRealACPClientsList has both official SDKs, as editors building their
// history, list the sessions for a project of theirs (session/list) and
// load the one listed: the recording's, with its whole history.
func TestRealACPClientsList(t *testing.T) {
	runClient := acpClients(t)
	f := "../../testdata/streams/basis/full_schema2.jsonl"
	log, _, _ := evtool(t, nil, "convert", "--to", "acp", f)
	wantHistory, _, _ := agentSide(t, log)
	for _, name := range []string{"ts", "go"} {
		t.Run(name, func(t *testing.T) {
			got := runClient(t, name, f, "list", "-")
			if len(got.Listed) != 1 || gjson.GetBytes(got.Listed[0], "sessionId").Str != "01JD2W7Q9H3K" ||
				gjson.GetBytes(got.Listed[0], "cwd").Str != "/work/project" || gjson.GetBytes(got.Listed[0], "title").Str == "" {
				t.Fatalf("listed: %s", got.Listed)
			}
			sameJSON(t, "history update", got.Updates, wantHistory, name == "go")
		})
	}
}

// TestRealACPClients has both official SDKs, as editors, replay every test
// stream of every dialect with `evtool acp replay`: the TypeScript SDK
// (clients/acp) and the Go SDK (clients/acpgo). Each prompts once per user
// turn of the source (counted from the source) and must receive exactly
// the updates, permission requests and prompt results of `--to acp
// --transcript`; each loads the recorded session and must receive exactly
// the updates of `--to acp`, the whole history.
func TestRealACPClients(t *testing.T) {
	runClient := acpClients(t)
	for _, f := range acpStreams(t) {
		profiles := []string{"stable"}
		if strings.Contains(f, "basis") {
			profiles = append(profiles, "basis")
		}
		turns := sourceTurns(t, f)
		for _, profile := range profiles {
			transcript, _, code := evtool(t, nil, "convert", "--to", "acp", "--acp-profile", profile, "--transcript", f)
			if code != 0 {
				t.Fatalf("%s: transcript exit %d", f, code)
			}
			prompts := strings.Count(transcript, `"method":"session/prompt"`)
			if turns >= 0 && prompts != turns {
				t.Errorf("%s: %d prompts in the transcript, the source has %d user turns", f, prompts, turns)
			}
			log, _, _ := evtool(t, nil, "convert", "--to", "acp", "--acp-profile", profile, f)
			wantUpdates, wantPerms, wantResults := agentSide(t, transcript)
			wantHistory, _, _ := agentSide(t, log)
			session := gjson.Get(strings.SplitN(log, "\n", 2)[0], "params.sessionId").Str
			for _, name := range []string{"ts", "go"} {
				exact := name == "go"
				t.Run(name+"/"+profile+"/"+filepath.Base(f), func(t *testing.T) {
					if turns < 0 && prompts == 0 {
						// A fork whose own part has no turn: its one notice
						// precedes any prompt, and no prompt has a result to
						// compare. The history (load) is still compared.
						if session == "" {
							t.Skip("no turn to prompt and no session to load")
						}
						got := runClient(t, name, f, "load", session, "--acp-profile", profile)
						sameJSON(t, "history update", got.Updates, wantHistory, exact)
						return
					}
					got := runClient(t, name, f, "prompt", strconv.Itoa(prompts), "--acp-profile", profile)
					sameJSON(t, "update", got.Updates, wantUpdates, exact)
					sameJSON(t, "permission request", got.Permissions, wantPerms, exact)
					sameJSON(t, "prompt result", got.Results, wantResults, exact)
					if session == "" {
						return
					}
					got = runClient(t, name, f, "load", session, "--acp-profile", profile)
					sameJSON(t, "history update", got.Updates, wantHistory, exact)
					if len(got.Permissions) > 0 {
						t.Errorf("loading the history asked %d permissions again", len(got.Permissions))
					}
				})
			}
		}
	}
}

// TestACPReplayScripts runs the JSON-RPC cases of `evtool acp replay` in
// testdata/acp-script with acpclient, an interactive scripted client.
func TestACPReplayScripts(t *testing.T) {
	streams, _ := filepath.Abs("../../testdata/streams")
	acpdata, _ := filepath.Abs("../../testdata/acp")
	testscript.Run(t, testscript.Params{
		Dir: "testdata/acp-script",
		Setup: func(env *testscript.Env) error {
			env.Setenv("STREAMS", streams)
			env.Setenv("ACPDATA", acpdata)
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){"acpclient": acpClient},
	})
}

// acpClient runs `evtool acp replay ARGS...` and plays the script file
// SCRIPT against it, one step a line:
//
//	send JSON        write the line to the agent as it is
//	expect REGEXP    read the agent's messages until one matches (10 s)
//	answer OPTION    wait for a permission request and answer it with
//	                 optionId OPTION, or cancelled
//	close            close the agent's input
//
// Every message the agent wrote goes to stdout, its stderr to stderr.
// usage: acpclient SCRIPT ARGS...
func acpClient(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: acpclient SCRIPT ARGS...")
	}
	var bin string
	for _, d := range filepath.SplitList(ts.Getenv("PATH")) {
		if _, err := os.Stat(filepath.Join(d, "evtool")); err == nil {
			bin = filepath.Join(d, "evtool")
			break
		}
	}
	cmd := exec.Command(bin, append([]string{"acp", "replay"}, args[1:]...)...)
	cmd.Dir = ts.MkAbs(".")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	in, err := cmd.StdinPipe()
	ts.Check(err)
	out, err := cmd.StdoutPipe()
	ts.Check(err)
	ts.Check(cmd.Start())
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	var got strings.Builder
	var asks []string // permission requests read and not yet answered
	read := func(match func(string) bool, what string) string {
		timeout := time.After(10 * time.Second)
		for {
			select {
			case l, ok := <-lines:
				if !ok {
					ts.Fatalf("the agent ended before %s\n%s", what, got.String())
				}
				got.WriteString(l + "\n")
				if strings.Contains(l, `"method":"session/request_permission"`) {
					asks = append(asks, l)
				}
				if match(l) {
					return l
				}
			case <-timeout:
				ts.Fatalf("no %s in 10 s\n%s", what, got.String())
			}
		}
	}
	for _, step := range strings.Split(ts.ReadFile(args[0]), "\n") {
		verb, arg, _ := strings.Cut(step, " ")
		switch verb {
		case "", "#":
		case "send":
			_, err := io.WriteString(in, arg+"\n")
			ts.Check(err)
		case "expect":
			re := regexp.MustCompile(arg)
			read(re.MatchString, "message matching "+arg)
		case "answer":
			if len(asks) == 0 {
				read(func(l string) bool { return strings.Contains(l, `"method":"session/request_permission"`) }, "permission request")
			}
			l := asks[0]
			asks = asks[1:]
			outcome := `{"outcome":"cancelled"}`
			if arg != "cancelled" {
				outcome = `{"outcome":"selected","optionId":"` + arg + `"}`
			}
			_, err := io.WriteString(in, `{"jsonrpc":"2.0","id":`+gjson.Get(l, "id").Raw+`,"result":{"outcome":`+outcome+"}}\n")
			ts.Check(err)
		case "close":
			in.Close()
		default:
			ts.Fatalf("acpclient: unknown step %q", step)
		}
	}
	in.Close()
	for l := range lines {
		got.WriteString(l + "\n")
	}
	err = cmd.Wait()
	ts.Stdout().Write([]byte(got.String()))
	ts.Stderr().Write(stderr.Bytes())
	if err != nil {
		ts.Fatalf("evtool acp replay: %v", err)
	}
}
