package stream_test

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	_ "github.com/evtool/evtool/adapters"
	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/event"
	"github.com/evtool/evtool/stream"
)

const head = `{"seq":0,"type":"run_started","schema":2,"basis":"0.6.2","session_id":"s","workspace":"/r","model":"m","provider":"p","context_files":[]}`

// TestNext reads a basis stream through the pull API: events in order, a
// bad line as a *LineError in its place, and io.EOF at the end.
func TestNext(t *testing.T) {
	in := strings.Join([]string{
		head,
		`{"seq":1,"type":"user_message","text":"hi"}`,
		`{"seq":2,"type":"assistant_delta","text":"a","text":"b"}`,
		`{"seq":3,"type":"usage","agent_id":"a","input_tokens":1e0,"output_tokens":1,"cache_read_tokens":0,"cache_creation_tokens":0}`,
		`{"seq":4,"type":"run_finished","status":"ok"}`,
	}, "\n")
	rd := stream.NewReader(strings.NewReader(in), "in.jsonl", stream.Options{})
	var got []string
	for {
		ev, err := rd.Next()
		if err == io.EOF {
			break
		}
		var le *stream.LineError
		if errors.As(err, &le) {
			got = append(got, "line "+le.Diags[0].Rule)
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, string(ev.Type()))
	}
	want := []string{"session_started", "turn_started", "user_message", "line json/duplicate-key", "line basis/decode", "unknown", "session_finished"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("got  %v\nwant %v", got, want)
	}
	if rd.Dialect() == nil || rd.Dialect().Name() != "basis" || rd.Lines() != 5 {
		t.Errorf("dialect %v, %d lines", rd.Dialect(), rd.Lines())
	}
	if _, err := rd.Next(); err != io.EOF {
		t.Errorf("after the end: %v, want io.EOF", err)
	}
}

// TestReadLine gives each line its verdict, and a named dialect that does
// not fit stops the stream.
func TestReadLine(t *testing.T) {
	rd := stream.NewReader(strings.NewReader(head+"\n[1,\n"), "x", stream.Options{})
	l, err := rd.ReadLine()
	if err != nil || !l.OK() || !l.JSON || l.N != 1 || len(l.Events) != 1 || l.Events[0].Type() != event.TypeSessionStarted {
		t.Fatalf("line 1: %+v, %v", l, err)
	}
	l, err = rd.ReadLine()
	if err != nil || l.OK() || l.JSON || l.Diags[0].Rule != stream.RuleSyntax || l.Diags[0].Col != 4 || len(l.Events) != 0 {
		t.Fatalf("line 2: %+v, %v", l, err)
	}
	if _, err := rd.ReadLine(); err != io.EOF {
		t.Fatalf("end: %v", err)
	}

	mermaid, _ := dialect.Lookup("mermaid")
	rd = stream.NewReader(strings.NewReader(head+"\n"), "x", stream.Options{Dialect: mermaid})
	_, err = rd.ReadLine()
	var se *stream.StreamError
	if !errors.As(err, &se) || !errors.Is(err, stream.ErrMismatch) || se.Usage || se.Rule != stream.RuleMismatch {
		t.Fatalf("mismatch: %v", err)
	}

	rd = stream.NewReader(strings.NewReader(`{"hello":"world"}`+"\n"), "x", stream.Options{})
	_, err = rd.ReadLine()
	if !errors.As(err, &se) || !errors.Is(err, stream.ErrUndetected) || !se.Usage {
		t.Fatalf("undetected: %v", err)
	}
}

// TestRulesAreData checks the reading's catalogue: ids unique, each with
// a purpose.
func TestRulesAreData(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range stream.Rules() {
		if seen[r.ID] || r.Summary == "" {
			t.Errorf("rule %q: duplicate or without a purpose", r.ID)
		}
		seen[r.ID] = true
	}
	for _, id := range []string{stream.RuleSyntax, stream.RuleUTF8, stream.RuleDuplicateKey, stream.RuleDepth, stream.RuleMismatch, stream.RuleUndetected} {
		if !seen[id] {
			t.Errorf("rule %s is not in the catalogue", id)
		}
	}
}

// TestForeignLinesBeforeTheHeader: lines of no dialect before a stream's
// first line (a banner that is not JSON, a wrapper's JSON log line) are
// held until a line tells the dialect, then returned in input order, each
// with its own verdict; the JSON one is marked Foreign, and the dialect is
// the one the real first line tells.
func TestForeignLinesBeforeTheHeader(t *testing.T) {
	in := strings.Join([]string{
		`{"level":"info","msg":"starting"}`,
		`Loaded cached credentials.`,
		`{"level":"info","msg":"still starting"}`,
		head,
		`{"seq":1,"type":"run_finished","status":"ok"}`,
	}, "\n")
	for _, workers := range []int{0, 2} {
		rd := stream.NewReader(strings.NewReader(in), "in.jsonl", stream.Options{Workers: workers})
		var got []string
		for {
			l, err := rd.ReadLine()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			var rules []string
			for _, d := range l.Diags {
				rules = append(rules, d.Rule)
			}
			var types []string
			for _, ev := range l.Events {
				types = append(types, string(ev.Type()))
			}
			got = append(got, fmt.Sprintf("%d json=%v foreign=%v %s %s", l.N, l.JSON, l.Foreign, strings.Join(rules, ","), strings.Join(types, ",")))
		}
		if rd.Dialect() == nil || rd.Dialect().Name() != "basis" {
			t.Fatalf("dialect %v", rd.Dialect())
		}
		want := []string{
			"1 json=true foreign=true basis/schema unknown",
			"2 json=false foreign=false json/syntax ",
			"3 json=true foreign=true basis/schema unknown",
			"4 json=true foreign=false  session_started",
			"5 json=true foreign=false  session_finished",
		}
		if g, w := strings.Join(got, "\n"), strings.Join(want, "\n"); g != w {
			t.Errorf("workers %d: got\n%s\nwant\n%s", workers, g, w)
		}
	}
}

// TestForeignLinesBound: a stream that no line within the bound tells
// is undetected at its first JSON line, as a stream of one line is.
func TestForeignLinesBound(t *testing.T) {
	for _, n := range []int{1, 10, 200} {
		in := "not json\n" + strings.Repeat(`{"level":"info"}`+"\n", n) + head + "\n"
		rd := stream.NewReader(strings.NewReader(in), "in.jsonl", stream.Options{})
		var err error
		lines := 0
		for err == nil {
			_, err = rd.ReadLine()
			lines++
		}
		var se *stream.StreamError
		detected := n <= 64
		switch {
		case detected && err != io.EOF:
			t.Errorf("%d foreign lines: %v, want the dialect told by the header", n, err)
		case !detected && (!errors.As(err, &se) || se.Line != 2 || !errors.Is(err, stream.ErrUndetected)):
			t.Errorf("%d foreign lines: %v, want undetected at line 2", n, err)
		}
	}
}
