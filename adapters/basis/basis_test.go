package basis_test

import (
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/evtool/evtool/adapters/basis"
	"github.com/evtool/evtool/adapters/internal/adaptertest"
	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/dialecttest"
	"github.com/evtool/evtool/event"
	"github.com/evtool/evtool/internal/testkit/jsoneq"
	"github.com/tidwall/gjson"
)

const streams = "../../testdata/streams/basis"

// referenceLines returns the example lines of the basis wire reference.
func referenceLines(t *testing.T) []string {
	return adaptertest.ReferenceLines(t, "../../../shared/dialects/basis.md", `{"seq":`, 8, nil)
}

func streamFiles(t *testing.T) []string {
	return adaptertest.Glob(t, filepath.Join(streams, "*.jsonl"), 1, "basis test streams")
}

// roundTrip decodes basis lines, writes them as canonical text, reads that
// text back and encodes it as basis again: nothing may be lost. It returns
// the canonical text and the lines written back.
func roundTrip(t *testing.T, lines []string) (canon string, back []string) {
	t.Helper()
	c, back, losses := dialecttest.RoundTrip(t, basis.Dialect{}, lines...)
	if !losses.Empty() {
		t.Errorf("basis → canonical → basis lost something: %v", losses.List())
	}
	return strings.Join(c, "\n") + "\n", back
}

// declaredOrder reports whether a line's top-level keys follow basis's
// declared order: seq, type, then the type's fields in order, with keys
// basis does not know (newer fields) only after them.
func declaredOrder(line string) bool {
	r := gjson.Parse(line)
	typ := r.Get("type").Str
	order := append([]string{"seq", "type"}, basis.Fields(typ)...)
	if basis.Fields(typ) == nil {
		return true // an unknown type is kept verbatim
	}
	i := 0
	ok, unknownSeen := true, false
	r.ForEach(func(k, _ gjson.Result) bool {
		j := i
		for j < len(order) && order[j] != k.Str {
			j++
		}
		switch {
		case j < len(order) && !unknownSeen:
			i = j
		case j == len(order) && !slices.Contains(order, k.Str):
			unknownSeen = true
		default:
			ok = false
		}
		return ok
	})
	return ok
}

// Streams whose lines are not in basis's own serialisation (reordered keys,
// escapes basis does not write) are JSON-equal only.
var jsonEqualOnly = map[string]bool{
	"reordered_keys.jsonl":      true,
	"escapes_and_numbers.jsonl": true,
}

func TestRoundTrip(t *testing.T) {
	cases := map[string][]string{"reference examples": referenceLines(t)}
	for _, f := range streamFiles(t) {
		cases[filepath.Base(f)] = dialecttest.ReadLines(t, f)
	}
	for name, lines := range cases {
		t.Run(name, func(t *testing.T) {
			_, back := roundTrip(t, lines)
			if len(back) != len(lines) {
				t.Fatalf("got %d lines back, want %d", len(back), len(lines))
			}
			for i := range lines {
				if !jsoneq.Equal(lines[i], back[i]) {
					t.Errorf("line %d is not JSON-equal:\n in: %s\nout: %s", i+1, lines[i], back[i])
					continue
				}
				if jsonEqualOnly[name] {
					continue
				}
				if !declaredOrder(lines[i]) {
					t.Errorf("line %d: test stream %s claims declared key order but is not", i+1, name)
				}
				if lines[i] != back[i] {
					t.Errorf("line %d is not byte-identical:\n in: %s\nout: %s", i+1, lines[i], back[i])
				}
			}
		})
	}
}

func TestStreamsCoverEveryType(t *testing.T) {
	seen := map[string]bool{}
	schemas := map[int64]bool{}
	adaptertest.EachLine(t, streamFiles(t), func(r gjson.Result) {
		seen[r.Get("type").Str] = true
		if r.Get("type").Str == "run_started" {
			schemas[r.Get("schema").Int()] = true
		}
	})
	for _, typ := range basis.Types() {
		if !seen[typ] {
			t.Errorf("no test stream has a %s line", typ)
		}
	}
	if len(basis.Types()) != 22 {
		t.Errorf("basis has %d known types, want 22", len(basis.Types()))
	}
	if !schemas[1] || !schemas[2] {
		t.Errorf("test streams cover schemas %v, want 1 and 2", schemas)
	}
}

func decodeAll(t *testing.T, lines []string) []*event.Event {
	t.Helper()
	dec := basis.Dialect{}.NewDecoder(dialect.DecodeOptions{Provenance: true})
	var out []*event.Event
	for i, l := range lines {
		var err error
		out, err = dec.Decode(out, []byte(l), i+1)
		if err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
	}
	return out
}

func TestKnownTypesAreNotUnknown(t *testing.T) {
	for _, f := range streamFiles(t) {
		for _, ev := range decodeAll(t, dialecttest.ReadLines(t, f)) {
			if u, ok := ev.Body.(*event.Unknown); ok && u.SourceType != "hook_fired" {
				t.Errorf("%s: %s decoded as unknown", f, u.SourceType)
			}
		}
	}
}

func TestExactIntegers(t *testing.T) {
	evs := decodeAll(t, dialecttest.ReadLines(t, filepath.Join(streams, "escapes_and_numbers.jsonl")))
	var u *event.Usage
	for _, ev := range evs {
		if b, ok := ev.Body.(*event.Usage); ok {
			u = b
		}
	}
	if u == nil {
		t.Fatal("no usage event")
	}
	if *u.InputTokens != 9007199254740993 || *u.OutputTokens != 18446744073709551615 || *u.CacheReadTokens != 9007199254740992 {
		t.Errorf("integers changed: %d %d %d", *u.InputTokens, *u.OutputTokens, *u.CacheReadTokens)
	}
	canon, _ := roundTrip(t, dialecttest.ReadLines(t, filepath.Join(streams, "escapes_and_numbers.jsonl")))
	for _, want := range []string{`"input_tokens":9007199254740993`, `"output_tokens":18446744073709551615`, `"retries":9007199254740993`} {
		if !strings.Contains(canon, want) {
			t.Errorf("canonical output lacks %s", want)
		}
	}
}

func TestDecodeMapping(t *testing.T) {
	evs := decodeAll(t, dialecttest.ReadLines(t, filepath.Join(streams, "full_schema2.jsonl")))
	byType := map[event.Type][]*event.Event{}
	for _, ev := range evs {
		byType[ev.Type()] = append(byType[ev.Type()], ev)
	}
	// A synthetic turn_started precedes each user_message and carries its text.
	turns := byType[event.TypeTurnStarted]
	if len(turns) != 2 || !turns[0].Synthetic || turns[0].TurnID != "turn-1" || turns[1].TurnID != "turn-2" || turns[0].Src != nil {
		t.Fatalf("turns: %+v", turns)
	}
	if p := turns[0].Body.(*event.TurnStarted).Prompt; p == nil || !strings.HasPrefix(*p, "Why does the broker") {
		t.Errorf("turn prompt: %v", p)
	}
	calls := byType[event.TypeToolCall]
	wantKinds := []event.ToolKind{event.KindRead, event.KindEdit, event.KindExecute}
	for i, ev := range calls {
		if k := ev.Body.(*event.ToolCall).Kind; k != wantKinds[i] {
			t.Errorf("tool_call %d kind %q, want %q", i, k, wantKinds[i])
		}
	}
	fin := byType[event.TypeToolFinished]
	if s := fin[2].Body.(*event.ToolFinished).Status; s != "error" {
		t.Errorf("is_error true decoded as %q", s)
	}
	if ev := byType[event.TypeUsage][0]; ev.AgentID != "agent-0" || ev.Src == nil || ev.Src.Line != 11 || ev.Src.Type != "usage" {
		t.Errorf("usage envelope: agent %q src %+v", ev.AgentID, ev.Src)
	}
	start := evs[0].Body.(*event.SessionStarted)
	if start.Source.Dialect != "basis" || *start.Source.Version != 2 || start.Agent.Version != "0.6.2" || len(*start.ContextFiles) != 2 {
		t.Errorf("session_started: %+v", start)
	}
	if end := evs[len(evs)-1].Body.(*event.SessionFinished); *end.Usage.ModelResponses != 2 {
		t.Errorf("session_finished usage: %+v", end.Usage)
	}
}

func TestDecodeErrors(t *testing.T) {
	tests := []struct {
		line, ptr string
	}{
		{`{"seq":"0","type":"run_started"}`, "/seq"},
		{`{"seq":-1,"type":"user_message","text":"x"}`, "/seq"},
		{`{"seq":1,"type":"usage","agent_id":"a","input_tokens":1.5}`, "/input_tokens"},
		{`{"seq":1,"type":"usage","agent_id":"a","input_tokens":18446744073709551616}`, "/input_tokens"},
		{`{"seq":1,"type":"user_message","text":7}`, "/text"},
		{`{"seq":1,"type":"tool_completed","tool_call_id":"c","tool_name":"x","summary":"","is_error":"no"}`, "/is_error"},
		{`{"seq":0,"type":"run_started","context_files":[{"path":3,"scope":"w"}]}`, "/context_files/0/path"},
		{`{"seq":9,"type":"run_finished","status":"ok","usage":{"input_tokens":-4}}`, "/usage/input_tokens"},
		{`{"seq":1,"text":"no type"}`, "/type"},
		{`[1,2]`, ""},
	}
	for _, tt := range tests {
		dec := basis.Dialect{}.NewDecoder(dialect.DecodeOptions{})
		_, err := dec.Decode(nil, []byte(tt.line), 1)
		var de *basis.DecodeError
		if err == nil {
			t.Errorf("%s: no error", tt.line)
			continue
		}
		if !errors.As(err, &de) || de.Pointer != tt.ptr {
			t.Errorf("%s: got %v, want an error at %q", tt.line, err, tt.ptr)
		}
	}
}

func TestToolKind(t *testing.T) {
	tests := []struct {
		name, mut, input, want string
	}{
		{"spawn", "mutating", `{"input":"!cargo test"}`, "execute"},
		{"spawn", "mutating", `{"input":"  !ls"}`, "execute"},
		{"spawn", "mutating", `{"input":"!!delegate this"}`, "other"},
		{"spawn", "mutating", `{"input":"write the docs"}`, "other"},
		{"spawn", "mutating", `{"input":42}`, "execute"},
		{"spawn", "mutating", `{}`, "execute"},
		{"spawn", "mutating", `"!ls"`, "execute"},
		{"shell", "read_only", `{}`, "execute"},
		{"read_file", "read_only", `{}`, "read"},
		{"files", "mutating", `{}`, "edit"},
		{"apply_patch", "unknown", `{}`, "edit"},
		{"remove", "mutating", `{}`, "delete"},
		{"rename", "mutating", `{}`, "move"},
		{"glob", "read_only", `{}`, "search"},
		{"http", "read_only", `{}`, "fetch"},
		{"load_skill", "read_only", `{}`, "think"},
		{"mystery", "read_only", `{}`, "read"},
		{"mystery", "mutating", `{}`, "edit"},
		{"mystery", "unknown", `{}`, "other"},
	}
	for _, tt := range tests {
		if got := basis.ToolKind(tt.name, event.Mutability(tt.mut), []byte(tt.input)); string(got) != tt.want {
			t.Errorf("ToolKind(%s, %s, %s) = %s, want %s", tt.name, tt.mut, tt.input, got, tt.want)
		}
	}
}
