package schema_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	_ "github.com/evtool/evtool/adapters"
	"github.com/evtool/evtool/convert"
	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/internal/testkit/teststreams"
	"github.com/evtool/evtool/validate"
)

type crossCase struct {
	Schema string `json:"schema"`
	File   string `json:"file"`
	Expect string `json:"expect"`
}

// Lines each schema must reject, in any implementation.
var broken = map[string][]string{
	"basis": {
		`{"seq":2,"type":"tool_completed","tool_call_id":"c1","tool_name":"shell","summary":"ok","is_error":"no"}`,
		`{"seq":-1,"type":"assistant_delta","text":"hi"}`,
		`{"seq":3,"type":"task_updated","task_id":"t1","kind":"subagent","status":"running","title":"work","detail":5}`,
		`{"seq":4,"type":"usage","agent_id":"a","input_tokens":18446744073709551616,"output_tokens":0,"cache_read_tokens":0,"cache_creation_tokens":0}`,
		`{"seq":5,"type":"run_finished","status":"maybe"}`,
		`{"type":"assistant_delta","text":"no seq"}`,
	},
	"mermaid": {
		`{"type":"tool_finished","call_id":"tool#3","name":"execute_command","status":5,"summary":"x","error":null}`,
		`{"type":"turn_done","total_tokens":-1,"stop_reason":null}`,
		`{"type":"tasks_updated","tasks":[{"id":1,"subject":"s","status":"pending"}],"completed":0,"total":1}`,
		`{"type":"result","response":"x","reasoning":null,"total_tokens":1,"errors":"none"}`,
		`{"type":"session_started","protocol_version":1,"cli_version":"9","model":"m","task_id":5}`,
		`{"type":"text"}`,
	},
	"muse": {
		`{"schema_version":1,"id":"x","stream":{"kind":"session","id":"s"},"sequence":1,"recorded_at":-1,"record_type":"event","durability":"durable","causation_id":"c","payload_type":"session.run.linked","payload_schema_version":1,"payload":{"kind":"session_run_linked","command_id":"c","run_stream":{"kind":"run","id":"c"}}}`,
		`{"schema_version":1,"id":"x","stream":{"kind":"galaxy","id":"s"},"sequence":1,"recorded_at":1,"record_type":"event","durability":"durable","causation_id":"c","payload_type":"session.run.linked","payload_schema_version":1,"payload":{"kind":"session_run_linked","command_id":"c","run_stream":{"kind":"run","id":"c"}}}`,
		`{"schema_version":1,"id":"x","stream":{"kind":"session","id":"s"},"sequence":1,"recorded_at":1,"record_type":"event","durability":"durable","causation_id":"c","payload_type":"task.lifecycle.scheduled","payload_schema_version":1,"payload":{"kind":"task_lifecycle","command_id":"c","run_stream":{"kind":"run","id":"c"},"task_stream":{"kind":"task","id":"t"},"task_id":5,"event":{}}}`,
		`{"schema_version":1,"id":"x","stream":{"kind":"session","id":"s"},"sequence":1,"recorded_at":1,"record_type":"log","durability":"durable","causation_id":"c","payload_type":"x.y","payload_schema_version":1,"payload":{"kind":"y"}}`,
		`{"schema_version":1,"id":"x","stream":{"kind":"session","id":"s"},"sequence":1,"recorded_at":1,"record_type":"event","durability":"durable","causation_id":"c","payload_type":"run.terminal.completed","payload_schema_version":1,"payload":{"kind":"run_terminal","command_id":"c","run_stream":{"kind":"run","id":"c"},"terminal":7}}`,
		`{"schema_version":1,"id":"x","sequence":1}`,
	},
	"codex": {
		`{"type":"item.completed","item":{"id":"item_9","type":"command_execution","command":"true","aggregated_output":"","exit_code":0,"status":5}}`,
		`{"type":"item.completed","item":{"id":"item_9","type":"file_change","changes":[{"path":"a","kind":7}],"status":"completed"}}`,
		`{"type":"turn.completed","usage":"lots"}`,
		`{"type":"item.started","item":{"id":"item_9","type":"collab_tool_call","tool":"wait","sender_thread_id":"a","receiver_thread_ids":["b"],"prompt":null,"agents_states":{"b":{"status":true,"message":null}},"status":"in_progress"}}`,
	},
	"opencode": {
		`{"type":"text","timestamp":"1","sessionID":"s","part":{"id":"p2","sessionID":"s","messageID":"m","type":"text","text":"x"}}`,
		`{"type":"step_finish","timestamp":2,"sessionID":"s","part":{"id":"p2","sessionID":"s","messageID":"m","type":"step-finish","reason":"tool-calls","cost":0,"tokens":{"input":-1,"output":1,"reasoning":0,"cache":{"read":0,"write":0}}}}`,
		`{"type":"tool_use","timestamp":2,"sessionID":"s","part":{"id":"p2","sessionID":"s","messageID":"m","type":"tool","callID":"c","tool":"bash","state":{"status":"done","input":{},"output":"","title":"","metadata":{},"time":{"start":1,"end":2}}}}`,
		`{"type":"tool_use","timestamp":2,"sessionID":"s","part":{"id":"p2","sessionID":"s","messageID":"m","type":"tool","callID":"c","tool":"bash","state":{"status":"completed","input":{},"title":"","metadata":{},"time":{"start":1,"end":2}}}}`,
		`{"type":"error","timestamp":2,"sessionID":"s","error":"boom"}`,
		`{"type":"step_finish","timestamp":2,"sessionID":"s","part":{"id":"p2","sessionID":"s","messageID":"m","type":"step-finish","reason":"tool-calls","cost":0,"tokens":{"input":1,"output":1,"reasoning":0}}}`,
		`{"type":"text","timestamp":2,"sessionID":"s","part":{"sessionID":"s","messageID":"m","type":"text","text":"x"}}`,
		`{"type":"step_finish","timestamp":2,"sessionID":"s","part":{"id":"p2","sessionID":"s","messageID":"m","type":"step-finish","reason":"tool-calls","cost":"0.01","tokens":{"input":1,"output":1,"reasoning":0,"cache":{"read":0,"write":0}}}}`,
	},
	"claude": {
		`{"type":"system","subtype":"init","cwd":"/w","session_id":"5f0c2a9e-1b3d-4e5f-8a7b-9c0d1e2f3a4b","tools":"Bash","mcp_servers":[],"model":"claude-sonnet-4-6","permissionMode":"default","slash_commands":[],"apiKeySource":"none","claude_code_version":"2.1.333","output_style":"default","skills":[],"plugins":[],"uuid":"00000000-0000-4000-8000-000000000001"}`,
		`{"type":"system","subtype":"init","cwd":"/w","session_id":"5f0c2a9e-1b3d-4e5f-8a7b-9c0d1e2f3a4b","tools":["Bash"],"mcp_servers":[],"model":"claude-sonnet-4-6","permissionMode":"yolo","slash_commands":[],"apiKeySource":"none","claude_code_version":"2.1.333","output_style":"default","skills":[],"plugins":[],"uuid":"00000000-0000-4000-8000-000000000001"}`,
		`{"type":"assistant","message":{"model":"claude-sonnet-4-6","id":"msg_p1","type":"message","role":"assistant","content":[{"type":"text","text":"x"}],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":-3,"output_tokens":5}},"parent_tool_use_id":null,"session_id":"5f0c2a9e-1b3d-4e5f-8a7b-9c0d1e2f3a4b","uuid":"00000000-0000-4000-8000-000000000002"}`,
		`{"type":"result","subtype":"success","is_error":"false","duration_ms":10,"duration_api_ms":9,"num_turns":1,"result":"hi","stop_reason":"end_turn","session_id":"5f0c2a9e-1b3d-4e5f-8a7b-9c0d1e2f3a4b","total_cost_usd":0.001,"usage":{"input_tokens":3,"cache_creation_input_tokens":0,"cache_read_input_tokens":100,"output_tokens":5},"modelUsage":{"claude-sonnet-4-6":{"inputTokens":3,"outputTokens":5,"cacheReadInputTokens":100,"cacheCreationInputTokens":0,"webSearchRequests":0,"costUSD":0.001}},"permission_denials":[],"uuid":"00000000-0000-4000-8000-000000000004"}`,
		`{"type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_p1","type":"tool_result","content":"a\nb","is_error":"yes"}]},"parent_tool_use_id":null,"session_id":"5f0c2a9e-1b3d-4e5f-8a7b-9c0d1e2f3a4b","uuid":"00000000-0000-4000-8000-000000000003"}`,
		`{"type":5,"uuid":"u","session_id":"5f0c2a9e-1b3d-4e5f-8a7b-9c0d1e2f3a4b"}`,
		`{"type":"rate_limit_event","rate_limit_info":{"status":"maybe"},"uuid":"u","session_id":"5f0c2a9e-1b3d-4e5f-8a7b-9c0d1e2f3a4b"}`,
	},
	"gemini": {
		`{"type":"message","timestamp":"2026-10-01T09:00:01.000Z","role":"system","content":"x"}`,
		`{"type":"tool_use","timestamp":"2026-10-01T09:00:01.000Z","tool_name":"x","tool_id":"y","parameters":[]}`,
		`{"type":"tool_result","timestamp":"2026-10-01T09:00:01.000Z","tool_id":"y","status":"error","error":{"type":"t"}}`,
		`{"type":"error","timestamp":"2026-10-01T09:00:01.000Z","severity":"info","message":"m"}`,
		`{"type":"result","timestamp":"2026-10-01T09:00:01.000Z","status":"success","stats":{"total_tokens":1,"input_tokens":0,"output_tokens":0,"duration_ms":0,"tool_calls":18446744073709551616}}`,
		`{"type":"init","timestamp":5,"session_id":"s","model":"m"}`,
	},
	"canonical": {
		`{"seq":1,"type":"tool_call","name":"shell"}`,
		`{"seq":1,"type":"martian"}`,
		`{"seq":1,"type":"usage","input_tokens":-5}`,
		`{"seq":1,"type":"message_delta","text":null}`,
		`{"seq":1,"type":"tool_finished","call_id":"c","status":"exploded"}`,
		`{"seq":1,"type":"turn_started","prompt":"no turn id"}`,
		`{"seq":1,"type":"notice","message":"m","time":"yesterday"}`,
	},
}

// wireDialects returns the registered dialects whose lines are a
// producer's own wire format: every one but canonical (the target the
// streams are converted to, checked as such) and acp (a projection, whose
// messages acp_test.go checks against the official ACP schema).
func wireDialects() []string {
	var out []string
	for _, d := range dialect.All() {
		if n := d.Name(); n != "canonical" && n != "acp" {
			out = append(out, n)
		}
	}
	return out
}

// TestCrossCheck validates every wire dialect's test streams
// (teststreams.Valid), the examples of its wire reference, the canonical
// output of every stream and the stream converted into every other wire
// dialect with python-jsonschema, and proves broken lines fail there too.
// It loops over the registry, so a new dialect is covered once it has
// streams, a reference and broken lines.
func TestCrossCheck(t *testing.T) {
	name := os.Getenv("EVTOOL_PYTHON") // set by make test
	if name == "" {
		name = "python3"
	}
	py, err := exec.LookPath(name)
	if err != nil {
		t.Fatalf("%s is needed for the schema cross-check (.ci/run installs it): %v", name, err)
	}
	dir := t.TempDir()
	var cases []crossCase
	abs := func(p string) string {
		a, err := filepath.Abs(p)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	canonSchema := abs("canonical.schema.json")
	write := func(name string, lines []string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}

	toCanon, _ := dialect.Lookup("canonical")
	conv := func(f string, to dialect.Dialect, prov bool) string {
		in, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		defer in.Close()
		var out bytes.Buffer
		if _, err := convert.Run(in, &out, f, convert.Options{To: to, Provenance: prov}, func(le *convert.LineError) { t.Error(le) }); err != nil {
			t.Fatal(err)
		}
		return out.String()
	}
	canonical := func(f string, prov bool) string { return conv(f, toCanon, prov) }
	lines := 0
	examples := 0
	wire := wireDialects()
	for _, d := range wire {
		sch := abs(d + ".schema.json")
		files := teststreams.Valid(d)
		if len(files) == 0 {
			t.Fatalf("no %s streams", d)
		}
		for _, f := range files {
			cases = append(cases, crossCase{sch, abs(f), "valid"})
			base := d + "." + strings.TrimSuffix(filepath.Base(f), ".jsonl")
			// With provenance too, so src is checked as well.
			c := canonical(f, false)
			lines += strings.Count(c, "\n")
			cases = append(cases,
				crossCase{canonSchema, write(base+".canonical.jsonl", strings.Split(strings.TrimSpace(c), "\n")), "valid"},
				crossCase{canonSchema, write(base+".provenance.jsonl", strings.Split(strings.TrimSpace(canonical(f, true)), "\n")), "valid"})
			// The stream converted to each other dialect validates there too.
			for _, other := range wire {
				od, _ := dialect.Lookup(other)
				if other == d || !dialect.Writable(od) {
					continue
				}
				out := strings.Split(strings.TrimSpace(conv(f, od, false)), "\n")
				cases = append(cases, crossCase{abs(other + ".schema.json"), write(base+".to-"+other+".jsonl", out), "valid"})
			}
		}
		ref, err := os.ReadFile("../../shared/dialects/" + d + ".md")
		if errors.Is(err, fs.ErrNotExist) {
			ref, err = os.ReadFile("../../shared/dialects-next/" + d + ".md")
		}
		if dd, _ := dialect.Lookup(d); errors.Is(err, fs.ErrNotExist) && !dialect.Writable(dd) {
			continue // an agent's on-disk format: ../shared/ondisk has notes, not example lines
		}
		if err != nil {
			t.Fatalf("the %s reference is needed beside the repository: %v", d, err)
		}
		var ex []string
		for _, l := range strings.Split(string(ref), "\n") {
			if strings.HasPrefix(l, `{"seq":`) || strings.HasPrefix(l, `{"type":`) || strings.HasPrefix(l, `{"schema_version":`) {
				ex = append(ex, l)
			}
		}
		examples += len(ex)
		if len(ex) > 0 {
			cases = append(cases, crossCase{sch, write(d+".reference.jsonl", ex), "valid"})
		}
		if len(broken[d]) == 0 {
			t.Errorf("no broken %s lines: add lines its schema must reject to broken", d)
		}
		cases = append(cases, crossCase{sch, write(d+".broken.jsonl", broken[d]), "invalid"})
	}
	cases = append(cases, crossCase{canonSchema, write("broken.canonical.jsonl", broken["canonical"]), "invalid"})
	manifest, _ := json.Marshal(cases)
	mpath := write("manifest.json", []string{string(manifest)})

	cmd := exec.Command(py, "testdata/crosscheck.py", mpath)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("python-jsonschema cross-check failed: %v\n%s", err, out)
	}
	m := regexp.MustCompile(`crosscheck: (\d+) passed, (\d+) failed`).FindSubmatch(out)
	if m == nil {
		t.Fatalf("no summary from the cross-check:\n%s", out)
	}
	passed, _ := strconv.Atoi(string(m[1]))
	want := examples + 2*lines
	for _, b := range broken {
		want += len(b)
	}
	if passed < want {
		t.Errorf("only %d lines checked, expected at least %d", passed, want)
	}
	t.Logf("%s", bytes.TrimSpace(out))
}

// TestSchemasAreValidJSON checks the embedded files parse and carry $id.
func TestSchemasAreValidJSON(t *testing.T) {
	for _, d := range dialect.All() {
		name := d.Name() + ".schema.json"
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Schema string         `json:"$schema"`
			ID     string         `json:"$id"`
			Defs   map[string]any `json:"$defs"`
		}
		if err := json.Unmarshal(data, &doc); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if doc.Schema != "https://json-schema.org/draft/2020-12/schema" || !strings.HasSuffix(doc.ID, "/"+name) {
			t.Errorf("%s: $schema %q $id %q", name, doc.Schema, doc.ID)
		}
	}
}

// TestGoAgrees checks that evtool's own validator rejects the same broken
// lines by schema, so the Go and Python readings of the files agree.
func TestGoAgrees(t *testing.T) {
	for name, lines := range broken {
		d, err := dialect.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range lines {
			schemaErr := false
			in := l + "\n"
			if name == "canonical" {
				// A first line of its own, so that the broken line is
				// judged as canonical and not taken for another dialect.
				in = `{"seq":0,"type":"session_started","schema":1,"source":{"dialect":"canonical"}}` + "\n" + in
			}
			_, err := validate.Stream(strings.NewReader(in), "x", validate.Options{Dialect: d}, func(diag validate.Diagnostic) {
				if diag.Rule == name+"/schema" {
					schemaErr = true
				}
			})
			if err != nil {
				t.Fatal(err)
			}
			if !schemaErr {
				t.Errorf("%s schema accepts a line python rejects: %s", name, l)
			}
		}
	}
}
