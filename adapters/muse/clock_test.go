package muse_test

import (
	"bytes"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/evtool/evtool/adapters/muse"
	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/dialecttest"
	"github.com/tidwall/gjson"
)

// Issue 20: the muse writer moved recorded_at backwards (11 of 13
// conversions from Gemini and opencode streams). The records muse needs
// around an event (task.stream.linked, accepted, scheduled, …) were
// stamped 2 µs after the previous record, so the next event, stated to
// the millisecond, came out earlier than them.

// convertFrom converts a stream of dialect from into muse and returns the
// muse bytes and the losses; no line may fail.
func convertFrom(t *testing.T, from string, in []byte) ([]byte, *dialect.Losses) {
	t.Helper()
	out, losses, les := convertStream(t, in, lookup(t, from), muse.Dialect{})
	for _, le := range errorsOf(les) {
		t.Error(le)
	}
	return out, losses
}

// recordedAt returns every recorded_at of a muse stream, read exactly.
func recordedAt(t *testing.T, out []byte) []uint64 {
	t.Helper()
	var at []uint64
	for _, l := range dialecttest.Lines(string(out)) {
		v, err := strconv.ParseUint(gjson.Get(l, "recorded_at").Raw, 10, 64)
		if err != nil {
			t.Fatalf("recorded_at of %s: %v", l, err)
		}
		at = append(at, v)
	}
	return at
}

func lossCount(ls *dialect.Losses, id string) int {
	n := 0
	for _, l := range ls.List() {
		if l.ID == id {
			n += l.Count
		}
	}
	return n
}

// TestWriterClockFromOtherDialects converts the Gemini and opencode
// streams (written ones and the real opencode captures) into muse: every
// written recorded_at is at least the one before it, muse's own checker
// finds nothing to say about recorded_at, and since these sources' times
// never go back, no time is moved.
func TestWriterClockFromOtherDialects(t *testing.T) {
	var files []struct{ from, path string }
	for _, g := range []struct{ from, glob string }{
		{"gemini", "../gemini/testdata/written_*.jsonl"},
		{"opencode", "../opencode/testdata/written_*.jsonl"},
		{"opencode", "../../../shared/dialects-next/captures/opencode/*.jsonl"},
		{"claude", "../claude/testdata/written_*.jsonl"},
	} {
		m, _ := filepath.Glob(g.glob)
		for _, f := range m {
			files = append(files, struct{ from, path string }{g.from, f})
		}
	}
	if len(files) < 13 {
		t.Fatalf("found %d gemini, opencode and claude streams, want at least 13", len(files))
	}
	for _, f := range files {
		out, losses := convertFrom(t, f.from, read(t, f.path))
		at := recordedAt(t, out)
		for i := 1; i < len(at); i++ {
			if at[i] < at[i-1] {
				t.Errorf("%s: record %d recorded_at %d is before record %d's %d", f.path, i+1, at[i], i, at[i-1])
				break
			}
		}
		_, diags := validateAs(t, out, "muse")
		for _, d := range diags {
			if d.Rule == "muse/recorded-at" {
				t.Errorf("%s: %v", f.path, d)
			}
		}
		if n := lossCount(losses, "muse/recorded-at-moved"); n != 0 {
			t.Errorf("%s: %d times moved, though the source's times never go back", f.path, n)
		}
	}
}

// TestWriterClockBackwardsAndMissing: a source whose times go back, and
// that states none in places. An event earlier than a record already
// written takes that record's time, counted once per event (not per
// record written for it); an event without a time holds the clock; every
// other event keeps its own time to the microsecond.
func TestWriterClockBackwardsAndMissing(t *testing.T) {
	in := strings.Join([]string{
		`{"seq":0,"type":"session_started","time":"2026-10-02T14:00:00.000000Z","schema":1,"source":{"dialect":"gemini"},"session_id":"s"}`,
		`{"seq":1,"type":"turn_started","time":"2026-10-02T14:00:00.002000Z","turn_id":"turn-1","prompt":"go"}`,
		`{"seq":2,"type":"user_message","time":"2026-10-02T14:00:00.002000Z","turn_id":"turn-1","text":"go"}`,
		// A tool call stated later than its start: the start goes back.
		`{"seq":3,"type":"tool_call","time":"2026-10-02T14:00:01.900000Z","turn_id":"turn-1","call_id":"c1","name":"read_file","kind":"read"}`,
		`{"seq":4,"type":"tool_started","time":"2026-10-02T14:00:01.802000Z","turn_id":"turn-1","call_id":"c1","name":"read_file"}`,
		// No time at all (a synthetic event of the source).
		`{"seq":5,"type":"message_delta","turn_id":"turn-1","text":"reading"}`,
		`{"seq":6,"type":"tool_finished","time":"2026-10-02T14:00:01.950000Z","turn_id":"turn-1","call_id":"c1","name":"read_file","status":"success","output":"x"}`,
		// Back again, below the time of every record so far but the first.
		`{"seq":7,"type":"message_delta","time":"2026-10-02T14:00:00.500000Z","turn_id":"turn-1","text":" done"}`,
		`{"seq":8,"type":"turn_finished","time":"2026-10-02T14:00:02.000000Z","turn_id":"turn-1","status":"ok"}`,
		`{"seq":9,"type":"session_finished","time":"2026-10-02T14:00:02.000000Z","status":"ok"}`,
	}, "\n") + "\n"
	out, losses := fromCanonical(t, []byte(in))
	at := recordedAt(t, out)
	for i := 1; i < len(at); i++ {
		if at[i] < at[i-1] {
			t.Fatalf("record %d recorded_at %d is before record %d's %d:\n%s", i+1, at[i], i, at[i-1], out)
		}
	}
	if sum, diags := validateAs(t, out, "muse"); sum.Errors != 0 || sum.Warnings != 0 {
		t.Errorf("%d errors, %d warnings: %v\n%s", sum.Errors, sum.Warnings, diags, out)
	}
	if n := lossCount(losses, "muse/recorded-at-moved"); n != 2 {
		t.Errorf("moved %d times, want 2 (the tool start and the late delta): %v", n, losses.List())
	}
	// Each record's time, by payload type and text where types repeat.
	const base = 1790949600000000 // 2026-10-02T14:00:00Z
	want := map[string]uint64{
		"turn.input.user":         base + 2000,
		"task.lifecycle.proposed": base + 1900000,
		"task.lifecycle.started":  base + 1900000, // moved up from 1.802 s
		"delta:reading":           base + 1900000, // no time: held
		"tool.result":             base + 1950000,
		"delta: done":             base + 1950000, // moved up from 0.5 s
		"run.terminal.completed":  base + 2000000,
	}
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	for i, l := range lines {
		key := gjson.Get(l, "payload_type").Str
		if key == "run.output.delta" {
			key = "delta:" + gjson.Get(l, "payload.text").Str
		}
		if w, ok := want[key]; ok && at[i] != w {
			t.Errorf("%s at %d, want %d", key, at[i], w)
		}
	}
	// The source's own times come back where they were not moved.
	back := toCanonical(t, out)
	if !bytes.Contains(back, []byte(`"time":"2026-10-02T14:00:01.950000Z"`)) {
		t.Errorf("the tool finish lost its time:\n%s", back)
	}
}

// TestNativeClockKeepsTheSource: a muse journal whose own recorded_at goes
// back (a second turn restamped, as the probe stream has it) is written
// back byte for byte, with nothing counted; the writer's clock never
// overrides what the source wrote.
func TestNativeClockKeepsTheSource(t *testing.T) {
	in := read(t, "../../testdata/probe/muse/ambiguous/second_turn_sequence_restart_truncated.jsonl")
	canon := toCanonical(t, in)
	back, losses := fromCanonical(t, canon)
	if !bytes.Equal(back, in) {
		t.Errorf("not byte for byte:\n in: %s\nout: %s", in, back)
	}
	if n := lossCount(losses, "muse/recorded-at-moved"); n != 0 {
		t.Errorf("moved %d times in a native round trip", n)
	}
	// The same canonical events with their residue removed are written on
	// the writer's clock: it does not go back, and each move is counted.
	var stripped []string
	for _, l := range strings.Split(strings.TrimSuffix(string(canon), "\n"), "\n") {
		if gjson.Get(l, "type").Str == "unknown" {
			continue
		}
		if e := gjson.Get(l, "ext"); e.Exists() {
			l = strings.Replace(l, `,"ext":`+e.Raw, "", 1)
		}
		stripped = append(stripped, l)
	}
	out, losses := fromCanonical(t, []byte(strings.Join(stripped, "\n")+"\n"))
	at := recordedAt(t, out)
	for i := 1; i < len(at); i++ {
		if at[i] < at[i-1] {
			t.Fatalf("record %d recorded_at %d is before record %d's %d:\n%s", i+1, at[i], i, at[i-1], out)
		}
	}
	if n := lossCount(losses, "muse/recorded-at-moved"); n == 0 {
		t.Errorf("the moves were not counted: %v", losses.List())
	}
}
