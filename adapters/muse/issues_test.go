package muse_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/evtool/evtool/adapters/muse"
	"github.com/evtool/evtool/convert"
	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/dialecttest"
	"github.com/evtool/evtool/event"
	"github.com/evtool/evtool/validate"
	"github.com/tidwall/gjson"
)

// Tests of the problems users reported, each from Muse's own types and the
// wire reference. Inputs are the real captures (read in place) and the
// hand-written files in testdata/.

// convertTo converts muse bytes to a target dialect and returns the output
// and the line errors that are errors.
func convertTo(t *testing.T, in []byte, to string) ([]byte, []*convert.LineError) {
	t.Helper()
	out, _, les := convertStream(t, in, muse.Dialect{}, lookup(t, to))
	return out, errorsOf(les)
}

// lookup returns the dialect of a name.
func lookup(t *testing.T, name string) dialect.Dialect {
	t.Helper()
	d, err := dialect.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// validateAs validates data as dialect name and returns its diagnostics.
func validateAs(t *testing.T, data []byte, name string) (validate.Summary, []validate.Diagnostic) {
	t.Helper()
	var diags []validate.Diagnostic
	sum, err := validate.Stream(bytes.NewReader(data), name, validate.Options{Dialect: lookup(t, name)}, func(dg validate.Diagnostic) { diags = append(diags, dg) })
	if err != nil {
		t.Fatal(err)
	}
	return sum, diags
}

// targetsAccept converts in to every target and checks each validator
// accepts the result, and that muse → canonical → muse gives in back.
func targetsAccept(t *testing.T, name string, in []byte) {
	t.Helper()
	for _, to := range []string{"canonical", "basis", "mermaid", "acp"} {
		out, errs := convertTo(t, in, to)
		if len(errs) > 0 {
			t.Errorf("%s → %s: %v", name, to, errs)
		}
		sum, diags := validateAs(t, out, to)
		if sum.Errors != 0 {
			t.Errorf("%s → %s: %d errors, first %v\n%s", name, to, sum.Errors, diags[0], out)
		}
	}
	if back := roundTrip(t, in); !bytes.Equal(back, in) {
		t.Errorf("%s: muse → canonical → muse is not byte for byte:\n in: %s\nout: %s", name, in, back)
	}
}

func testdata(t *testing.T, name string) []byte { return read(t, filepath.Join("testdata", name)) }

// rewrite rebuilds every object of a JSON value with its keys reordered.
func rewrite(v gjson.Result, order func([]string) []string) string {
	switch {
	case v.IsObject():
		m := map[string]gjson.Result{}
		var keys []string
		v.ForEach(func(k, val gjson.Result) bool { keys = append(keys, k.Str); m[k.Str] = val; return true })
		var b strings.Builder
		b.WriteByte('{')
		for i, k := range order(keys) {
			if i > 0 {
				b.WriteByte(',')
			}
			kb, _ := json.Marshal(k)
			b.Write(kb)
			b.WriteByte(':')
			b.WriteString(rewrite(m[k], order))
		}
		return b.String() + "}"
	case v.IsArray():
		var parts []string
		for _, e := range v.Array() {
			parts = append(parts, rewrite(e, order))
		}
		return "[" + strings.Join(parts, ",") + "]"
	}
	return v.Raw
}

// eachLine rewrites every line of a stream with f.
func eachLine(in []byte, f func(string) string) []byte {
	var out []string
	for _, l := range dialecttest.Lines(string(in)) {
		out = append(out, f(l))
	}
	return []byte(strings.Join(out, "\n") + "\n")
}

func sortedKeys(k []string) []string { return slices.Sorted(slices.Values(k)) }

func reversedKeys(k []string) []string {
	c := slices.Clone(k)
	slices.Reverse(c)
	return c
}

// Problem 1: key order never matters and unknown keys are kept.
func TestKeyOrderAndUnknownKeys(t *testing.T) {
	for _, f := range captures(t) {
		in := read(t, f)
		wantBasis, _ := convertTo(t, in, "basis")
		variants := map[string][]byte{
			"sorted":   eachLine(in, func(l string) string { return rewrite(gjson.Parse(l), sortedKeys) }),
			"reversed": eachLine(in, func(l string) string { return rewrite(gjson.Parse(l), reversedKeys) }),
			"extra envelope key": eachLine(in, func(l string) string {
				return strings.Replace(l, `{`, `{"shard":{"n":3},`, 1)
			}),
			"extra payload key": eachLine(in, func(l string) string {
				i := strings.Index(l, `"payload":{`) + len(`"payload":{`)
				return l[:i] + `"zz_note":"a<b & c>",` + l[i:]
			}),
		}
		for name, v := range variants {
			t.Run(filepath.Base(f)+"/"+name, func(t *testing.T) {
				if sum, diags := validateAs(t, v, "muse"); sum.Errors != 0 {
					t.Fatalf("the variant does not validate: %v", diags)
				}
				for _, ev := range events(t, toCanonical(t, v)) {
					if ev.Type() == event.TypeUnknown {
						t.Fatalf("a record was read as unknown: %s", ev.Body.(*event.Unknown).Raw)
					}
				}
				got, _ := convertTo(t, v, "basis")
				if len(got) == 0 || !bytes.Equal(got, wantBasis) {
					t.Errorf("basis from the %s capture differs from basis of the capture:\n%s", name, got)
				}
				targetsAccept(t, name, v)
			})
		}
	}
	// An unknown key is kept in ext.muse and comes back.
	in := read(t, filepath.Join(corpus, "meta_tool_use.jsonl"))
	v := eachLine(in, func(l string) string { return strings.Replace(l, `{`, `{"shard":{"n":3},`, 1) })
	if !bytes.Contains(toCanonical(t, v), []byte(`"shard":{"n":3}`)) {
		t.Error("the unknown envelope key is not in ext.muse")
	}
}

// Problem 2: a tool.result joined to no task announces its call.
func TestUnjoinedResultAnnouncesItsCall(t *testing.T) {
	in := testdata(t, "unjoined_result.jsonl")
	evs := events(t, toCanonical(t, in))
	called := map[string]bool{}
	finished := 0
	for _, ev := range evs {
		switch b := ev.Body.(type) {
		case *event.ToolCall:
			if !ev.Synthetic {
				t.Errorf("tool_call %s is not marked synthetic", b.CallID)
			}
			called[b.CallID] = true
		case *event.ToolFinished:
			finished++
			if !called[b.CallID] {
				t.Errorf("tool_finished %s comes without a tool_call", b.CallID)
			}
		}
	}
	if finished != 2 || !called["call_orphan"] || !called["call_bare"] {
		t.Errorf("want both results announced and finished, got %v and %d finished", called, finished)
	}
	targetsAccept(t, "unjoined_result", in)
}

// Problem 3: a call finishes exactly once.
func TestRejectedCallFinishesOnce(t *testing.T) {
	in := testdata(t, "rejected_then_result.jsonl")
	var fins []*event.ToolFinished
	for _, ev := range events(t, toCanonical(t, in)) {
		if b, ok := ev.Body.(*event.ToolFinished); ok {
			fins = append(fins, b)
		}
	}
	if len(fins) != 1 || fins[0].Status != "rejected" || fins[0].Error != "denied by policy" {
		t.Fatalf("want one rejected tool_finished, got %+v", fins)
	}
	targetsAccept(t, "rejected_then_result", in)
}

// Problem 4: every call and task the source ends is finished.
func TestEndedCallsAndTasksFinish(t *testing.T) {
	in := testdata(t, "cancelled_without_result.jsonl")
	evs := events(t, toCanonical(t, in))
	status := map[string]string{}
	var taskEnd event.TaskStatus
	turnEnd := -1
	for i, ev := range evs {
		switch b := ev.Body.(type) {
		case *event.ToolFinished:
			if status[b.CallID] != "" {
				t.Errorf("%s finishes twice", b.CallID)
			}
			status[b.CallID] = string(b.Status) + ":" + b.Error
		case *event.TaskUpdated:
			if b.TaskID == "a0000000-0000-4000-8000-000000000043" {
				taskEnd = b.Status
			}
		case *event.TurnFinished:
			turnEnd = i
			if len(status) != 2 || taskEnd != "cancelled" {
				t.Errorf("at the turn's end: calls %v, reminder task %q", status, taskEnd)
			}
		}
	}
	if status["a0000000-0000-4000-8000-000000000041"] != "cancelled:user interrupt" ||
		!strings.HasPrefix(status["a0000000-0000-4000-8000-000000000042"], "cancelled:the run ended") || turnEnd < 0 {
		t.Errorf("calls finished as %v", status)
	}
	targetsAccept(t, "cancelled_without_result", in)
}

// Problem 5: unknown payload types and lifecycle kinds pass through,
// whatever their payload holds.
func TestUnknownPayloadsPassThrough(t *testing.T) {
	in := testdata(t, "unknown_payloads.jsonl")
	sum, diags := validateAs(t, in, "muse")
	if sum.Errors != 0 {
		t.Errorf("validate: %v", diags)
	}
	var types []string
	for _, ev := range events(t, toCanonical(t, in)) {
		if u, ok := ev.Body.(*event.Unknown); ok {
			types = append(types, u.SourceType)
		}
	}
	want := "subagent.lifecycle.spawned subagent.lifecycle.note approval.pending  task.lifecycle.paused task.lifecycle.completed task.lifecycle.status"
	if strings.Join(types, " ") != want {
		t.Errorf("unknown events %q, want %q", strings.Join(types, " "), want)
	}
	targetsAccept(t, "unknown_payloads", in)
}

// Problem 6: white space inside a line survives the round trip.
func TestWhiteSpaceRoundTrips(t *testing.T) {
	in := testdata(t, "whitespace.jsonl")
	canon := toCanonical(t, in)
	if bytes.Contains(canon, []byte(`"line":`)) {
		t.Error("white space alone should not make the decoder keep whole lines")
	}
	targetsAccept(t, "whitespace", in)
	// A capture spaced out everywhere.
	for _, f := range captures(t) {
		sp := eachLine(read(t, f), func(l string) string {
			return " " + strings.ReplaceAll(strings.ReplaceAll(l, `,"`, `, "`), `":`, `" : `) + "\t"
		})
		if back := roundTrip(t, sp); !bytes.Equal(back, sp) {
			t.Errorf("%s spaced out does not round-trip", f)
		}
	}
}

const base = `{"schema_version":1,"id":"i1","stream":{"kind":"session","id":"s"},"sequence":1,"recorded_at":5,"record_type":"reconciliation","durability":"durable","causation_id":"c","payload_type":"runtime.command.accepted","payload_schema_version":1,"payload":{"kind":"command_accepted","command_id":"c","client_id":null,"command_kind":"turn.submit"}}`

// Problem 7: integers are integer literals within their Rust type.
func TestIntegers(t *testing.T) {
	cases := []struct {
		key, val     string
		schema, deco bool // rejected by the schema, by the decoder
	}{
		{"schema_version", "1", false, false},
		{"schema_version", "4294967295", false, false},
		{"schema_version", "4294967296", true, true},
		{"schema_version", "1.0", false, true},
		{"schema_version", "1e0", false, true},
		{"schema_version", "-0", false, true},
		{"schema_version", "-1", true, true},
		{"payload_schema_version", "4294967296", true, true},
		{"payload_schema_version", "10E-1", false, true},
		{"sequence", "18446744073709551615", false, false},
		{"sequence", "18446744073709551616", true, true},
		{"recorded_at", "1780531400000000.0", false, true},
		{"recorded_at", "18446744073709551615", false, false},
		{"recorded_at", `"5"`, true, true},
	}
	for _, c := range cases {
		line := strings.Replace(base, `"`+c.key+`":`+gjson.Get(base, c.key).Raw, `"`+c.key+`":`+c.val, 1)
		sum, diags := validateAs(t, []byte(line+"\n"), "muse")
		schemaErr, decodeErr := false, false
		for _, d := range diags {
			if d.Rule == "muse/schema" {
				schemaErr = true
			}
			if d.Rule == "muse/decode" {
				decodeErr = true
				if d.Pointer != "/"+c.key || d.Line != 1 || d.Col == 0 {
					t.Errorf("%s=%s: decode diagnostic %+v", c.key, c.val, d)
				}
			}
		}
		if schemaErr != c.schema || (c.deco && !c.schema && !decodeErr) || (!c.deco && (schemaErr || decodeErr)) {
			t.Errorf("%s=%s: schema error %v, decode error %v, %d errors: %v", c.key, c.val, schemaErr, decodeErr, sum.Errors, diags)
		}
		// The decoder alone rejects what Muse rejects, with the pointer.
		_, err := muse.Dialect{}.NewDecoder(dialect.DecodeOptions{}).Decode(nil, []byte(line), 1)
		var pe interface{ Position() string }
		if c.deco != (err != nil) || err != nil && !(errors.As(err, &pe) && pe.Position() == "/"+c.key) {
			t.Errorf("%s=%s: decoder says %v", c.key, c.val, err)
		}
		// convert reports the line and skips it (exit status 1).
		_, errs := convertTo(t, []byte(line+"\n"), "canonical")
		if c.deco != (len(errs) == 1) || len(errs) == 1 && (errs[0].Line != 1 || errs[0].Pointer != "/"+c.key) {
			t.Errorf("%s=%s: convert reports %v", c.key, c.val, errs)
		}
	}
}

// The CommandResult in a bash result's text is lifted only when it is one:
// exit_code an i32 literal, the counts u64 literals.
func TestCommandResultIntegers(t *testing.T) {
	text := func(code, bytes string) string {
		s := `{"chunk_id":"k","command":"ls","description":"d","exit_code":` + code + `,"terminal_status":"exited","output":"out","original_output_bytes":` + bytes + `,"original_output_tokens":1,"truncated":false}`
		b, _ := json.Marshal(s)
		return string(b)
	}
	for _, c := range []struct {
		code, bytes string
		lifted      bool
	}{
		{"0", "2", true}, {"-2147483648", "2", true}, {"2147483647", "18446744073709551615", true},
		{"2147483648", "2", false}, {"1.0", "2", false}, {"-0", "2", false}, {"1e0", "2", false},
		{"0", "18446744073709551616", false}, {"0", "-1", false}, {"0", "2.5", false},
	} {
		line := strings.Replace(base, `"payload_type":"runtime.command.accepted"`, `"payload_type":"tool.result"`, 1)
		line = strings.Replace(line, `{"kind":"command_accepted","command_id":"c","client_id":null,"command_kind":"turn.submit"}`,
			`{"kind":"tool_result","command_id":"c","run_stream":{"kind":"run","id":"c"},"call_id":"x","text":`+text(c.code, c.bytes)+`,"correlation_facts":{"tool_name":"bash"}}`, 1)
		var f *event.ToolFinished
		for _, ev := range events(t, toCanonical(t, []byte(line+"\n"))) {
			if b, ok := ev.Body.(*event.ToolFinished); ok {
				f = b
			}
		}
		if f == nil || (f.ExitCode != nil) != c.lifted || c.lifted && f.Command != "ls" || !c.lifted && (f.Output == nil || !strings.HasPrefix(*f.Output, "{")) {
			t.Errorf("exit_code %s, bytes %s: lifted %+v", c.code, c.bytes, f)
		}
		if back := roundTrip(t, []byte(line+"\n")); string(back) != line+"\n" {
			t.Errorf("exit_code %s: not byte for byte", c.code)
		}
	}
}

// Problem 8: session_started carries the model the source states.
func TestSessionStartedCarriesTheModel(t *testing.T) {
	in := read(t, filepath.Join(corpus, "meta_basic.jsonl"))
	evs := events(t, toCanonical(t, in))
	s, ok := evs[0].Body.(*event.SessionStarted)
	if !ok || s.Model != "muse-spark-1.2-contributor" || s.Provider != "meta" {
		t.Fatalf("session_started: %+v", evs[0].Body)
	}
	basis, _ := convertTo(t, in, "basis")
	first := gjson.Parse(strings.SplitN(string(basis), "\n", 2)[0])
	if first.Get("type").Str != "run_started" || first.Get("model").Str != "muse-spark-1.2-contributor" || first.Get("provider").Str != "meta" {
		t.Errorf("basis run_started: %s", first.Raw)
	}
	// Bounded: a model configured late does not hold the stream back.
	lines := strings.Split(strings.TrimSpace(string(in)), "\n")
	mc := lines[2]
	var late []string
	late = append(late, lines[0], lines[1])
	for i := 0; i < 9; i++ {
		late = append(late, lines[1]) // session.run.linked, repeated
	}
	late = append(late, mc)
	dec := muse.Dialect{}.NewDecoder(dialect.DecodeOptions{})
	var got []*event.Event
	for i, l := range late {
		var err error
		got, err = dec.Decode(got, []byte(l), i+1)
		if err != nil {
			t.Fatal(err)
		}
		if i == 2 && len(got) != 0 {
			t.Errorf("the start of the stream was not held back for the model")
		}
	}
	if len(got) == 0 || got[0].Body.(*event.SessionStarted).Model != "" {
		t.Errorf("a late model must not be waited for: %d events", len(got))
	}
}

// Muse's types, field by field: the schema and the decoder accept exactly
// what MuseRecord and MusePayload accept.
func TestSeedContract(t *testing.T) {
	p := func(pt, payload string) string {
		l := strings.Replace(base, `"payload_type":"runtime.command.accepted"`, `"payload_type":"`+pt+`"`, 1)
		return strings.Replace(l, `{"kind":"command_accepted","command_id":"c","client_id":null,"command_kind":"turn.submit"}`, payload, 1)
	}
	const run = `"kind":"k","command_id":"c","run_stream":{"kind":"run","id":"c"}`
	const lc = run + `,"task_id":"t","task_stream":{"kind":"task","id":"t"}`
	cases := []struct {
		name, line string
		ok         bool
	}{
		{"muse order", base, true},
		{"client_id absent", p("runtime.command.accepted", `{"kind":"x","command_id":"c","command_kind":"k"}`), true},
		{"client_id a number", p("runtime.command.accepted", `{"kind":"x","command_id":"c","command_kind":"k","client_id":5}`), false},
		{"command_kind missing", p("runtime.command.accepted", `{"kind":"x","command_id":"c"}`), false},
		{"payload kind is any string", p("session.run.linked", `{`+run+`}`), true},
		{"payload kind missing", p("session.run.linked", `{"command_id":"c","run_stream":{"kind":"run","id":"c"}}`), false},
		{"stream ref kind unknown", p("session.run.linked", `{"kind":"k","command_id":"c","run_stream":{"kind":"galaxy","id":"c"}}`), false},
		{"stream ref extra key", p("session.run.linked", `{"kind":"k","command_id":"c","run_stream":{"kind":"run","id":"c","x":1}}`), true},
		{"prompt null", p("turn.input.user", `{`+run+`,"prompt":null}`), false},
		// Muse Code 1.0.1 writes null when no profile applies (real
		// captures; muse-codes 0.2.2 made it an Option<String>).
		{"profile_id null", p("run.model.configured", `{`+run+`,"model_id":"m","display_label":"l","profile_id":null,"provider_id":"p","source":"s"}`), true},
		{"profile_id absent", p("run.model.configured", `{`+run+`,"model_id":"m","display_label":"l","provider_id":"p","source":"s"}`), true},
		{"profile_id a number", p("run.model.configured", `{`+run+`,"model_id":"m","display_label":"l","profile_id":1,"provider_id":"p","source":"s"}`), false},
		{"model configured complete", p("run.model.configured", `{`+run+`,"model_id":"m","display_label":"l","profile_id":"x","provider_id":"p","source":"s"}`), true},
		{"display_label missing", p("run.model.configured", `{`+run+`,"model_id":"m","profile_id":"x","provider_id":"p","source":"s"}`), false},
		{"terminal without text and reason", p("run.terminal.completed", `{`+run+`,"terminal":"completed"}`), true},
		{"terminal text null", p("run.terminal.failed", `{`+run+`,"terminal":"failed","text":null,"reason":"x"}`), true},
		{"terminal reason a number", p("run.terminal.failed", `{`+run+`,"terminal":"failed","reason":1}`), false},
		{"tool result facts null", p("tool.result", `{`+run+`,"call_id":"x","text":"t","correlation_facts":null,"edit_facts":null}`), true},
		{"tool result tool_name null", p("tool.result", `{`+run+`,"call_id":"x","text":"t","correlation_facts":{"tool_name":null,"outcome":"odd","more":1}}`), true},
		{"tool result outcome a number", p("tool.result", `{`+run+`,"call_id":"x","text":"t","correlation_facts":{"outcome":3}}`), false},
		{"tool result facts an array", p("tool.result", `{`+run+`,"call_id":"x","text":"t","correlation_facts":[]}`), false},
		{"tool result edit facts any", p("tool.result", `{`+run+`,"call_id":"x","text":"t","edit_facts":[1,"a"]}`), true},
		{"tool result text missing", p("tool.result", `{`+run+`,"call_id":"x"}`), false},
		{"lifecycle event any value", p("task.lifecycle.x", `{`+lc+`,"event":7}`), true},
		{"lifecycle event null", p("task.lifecycle.completed", `{`+lc+`,"event":null}`), true},
		{"lifecycle event missing", p("task.lifecycle.completed", `{`+lc+`}`), false},
		{"lifecycle task_id a number", p("task.lifecycle.completed", `{`+run+`,"task_id":5,"task_stream":{"kind":"task","id":"t"},"event":{"kind":"completed","task_id":"t"}}`), false},
		{"status without details is unknown", p("task.lifecycle.status", `{`+lc+`,"event":{"kind":"status","task_id":"t","message":"m"}}`), true},
		{"task stream linked", p("task.stream.linked", `{`+lc+`}`), true},
		{"known payload not an object", p("turn.input.user", `[1]`), false},
		{"unknown payload a string", p("x.y", `"s"`), true},
		{"empty payload type", p("", `{}`), true},
		{"record_type unknown", strings.Replace(base, `"reconciliation"`, `"log"`, 1), false},
		{"durability unknown", strings.Replace(base, `"durable"`, `"volatile"`, 1), false},
		{"id a number", strings.Replace(base, `"id":"i1"`, `"id":1`, 1), false},
		{"payload missing", strings.Replace(base, `,"payload":{"kind":"command_accepted","command_id":"c","client_id":null,"command_kind":"turn.submit"}`, ``, 1), false},
		{"envelope extra key", strings.Replace(base, `{"schema_version"`, `{"x":null,"schema_version"`, 1), true},
	}
	for _, c := range cases {
		sum, diags := validateAs(t, []byte(c.line+"\n"), "muse")
		schemaErr := false
		for _, d := range diags {
			schemaErr = schemaErr || d.Rule == "muse/schema"
		}
		_, err := muse.Dialect{}.NewDecoder(dialect.DecodeOptions{}).Decode(nil, []byte(c.line), 1)
		if c.ok && (schemaErr || err != nil) || !c.ok && (!schemaErr || err == nil) {
			t.Errorf("%s: want ok=%v; schema error %v, decoder %v (%d errors: %v)", c.name, c.ok, schemaErr, err, sum.Errors, diags)
		}
		if c.ok {
			if back := roundTrip(t, []byte(c.line+"\n")); string(back) != c.line+"\n" {
				t.Errorf("%s: not byte for byte:\n in: %s\nout: %s", c.name, c.line, back)
			}
		}
	}
}

// A run that ends before any turn (it failed before its prompt, or did
// nothing) still becomes a muse journal its validator accepts: a turn is
// synthesised and ended with the session's outcome, and each synthesised
// record is counted. The journal was empty before, which exited 0 with
// output muse's validator rejects.
func TestRunWithoutTurn(t *testing.T) {
	head := `{"seq":0,"type":"session_started","schema":1,"source":{"dialect":"basis"},"session_id":"s1"}` + "\n"
	for _, c := range []struct {
		name, body, terminal, reason string
		lost                         []string
	}{
		{"failed", `{"seq":1,"type":"error","message":"Overloaded"}` + "\n" +
			`{"seq":2,"type":"session_finished","status":"error","message":"Overloaded"}` + "\n",
			"failed", `"Overloaded"`, []string{"muse/no-such-record"}},
		{"empty", `{"seq":1,"type":"session_finished","status":"ok"}` + "\n",
			"completed", "null", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, losses := fromCanonical(t, []byte(head+c.body))
			sum, diags := validateAs(t, out, "muse")
			if sum.Errors != 0 || sum.Warnings != 0 || sum.Lines != 3 {
				t.Fatalf("%d lines, %d errors, %d warnings %v:\n%s", sum.Lines, sum.Errors, sum.Warnings, diags, out)
			}
			lines := strings.Split(strings.TrimSpace(string(out)), "\n")
			var types []string
			for _, l := range lines {
				types = append(types, gjson.Get(l, "payload_type").Str)
				if s := gjson.Get(l, "stream.id").Str; s != "s1" {
					t.Errorf("session %q, want s1: %s", s, l)
				}
			}
			want := []string{"runtime.command.accepted", "session.run.linked", "run.terminal." + c.terminal}
			if strings.Join(types, " ") != strings.Join(want, " ") {
				t.Errorf("records %v, want %v", types, want)
			}
			if r := gjson.Get(lines[2], "payload.reason").Raw; r != c.reason {
				t.Errorf("reason %s, want %s", r, c.reason)
			}
			got := map[string]int{}
			for _, l := range losses.List() {
				got[l.ID] = l.Count
			}
			for _, id := range append([]string{"muse/synthesized-command-accepted", "muse/synthesized-run-linked", "muse/synthesized-run-terminal"}, c.lost...) {
				if got[id] != 1 {
					t.Errorf("loss %s counted %d times, want 1: %v", id, got[id], losses.List())
				}
				delete(got, id)
			}
			if len(got) != 0 {
				t.Errorf("other losses: %v", got)
			}
		})
	}
}

// TestModelChangeAfterTurn: a model change after a turn's end opens a run
// of its own instead of writing after the run's terminal record, and a
// source without a profile gets "profile_id": null, as Muse Code 1.0.1
// writes it when no profile applies (no loss: it is Muse's own word for
// "none").
func TestModelChangeAfterTurn(t *testing.T) {
	in := strings.Join([]string{
		`{"seq":0,"type":"session_started","schema":1,"source":{"dialect":"canonical"},"session_id":"s"}`,
		`{"seq":1,"type":"turn_started","turn_id":"t1","prompt":"hi"}`,
		`{"seq":2,"type":"model_configured","turn_id":"t1","model":"m"}`,
		`{"seq":3,"type":"message","turn_id":"t1","text":"a"}`,
		`{"seq":4,"type":"turn_finished","turn_id":"t1","status":"ok"}`,
		`{"seq":5,"type":"model_configured","turn_id":"t1","model":"m2"}`,
		`{"seq":6,"type":"session_finished","status":"ok"}`,
	}, "\n") + "\n"
	out, losses := fromCanonical(t, []byte(in))
	sum, diags := validateAs(t, out, "muse")
	if sum.Errors != 0 {
		t.Fatalf("%d errors %v:\n%s", sum.Errors, diags, out)
	}
	if n := strings.Count(string(out), `"profile_id":null`); n != 2 {
		t.Errorf("%d null profile_ids, want 2:\n%s", n, out)
	}
	for _, l := range losses.List() {
		if strings.Contains(l.ID, "profile") {
			t.Errorf("a profile counted as lost: %v", l)
		}
	}
}
