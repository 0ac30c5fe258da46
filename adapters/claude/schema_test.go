package claude_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/evtool/evtool/adapters/claude"
	"github.com/evtool/evtool/dialecttest"
	"github.com/evtool/evtool/internal/testkit/schematest"
)

// brokenLines are lines Claude Code's types refuse, each with one fault
// the schema sees.
var brokenLines = []string{
	`{"type":"system","subtype":"init","cwd":"/w","session_id":"s","tools":[],"mcp_servers":[],"model":"m","permissionMode":"yolo","apiKeySource":"none","uuid":"u"}`,
	`{"type":"system","subtype":"init","cwd":"/w","session_id":"s","tools":"all","mcp_servers":[],"model":"m","permissionMode":"default","apiKeySource":"none","uuid":"u"}`,
	`{"type":"system","subtype":"init","session_id":"s","tools":[],"mcp_servers":[],"model":"m","permissionMode":"default","apiKeySource":"none","uuid":"u"}`,
	`{"type":"assistant","message":{"model":"m","id":"x","type":"message","role":"assistant","content":[{"type":"text"}],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":1,"output_tokens":1}},"parent_tool_use_id":null,"session_id":"s","uuid":"u"}`,
	`{"type":"assistant","message":{"model":"m","id":"x","type":"message","role":"assistant","content":[],"stop_reason":"done","stop_sequence":null,"usage":{"input_tokens":1,"output_tokens":1}},"parent_tool_use_id":null,"session_id":"s","uuid":"u"}`,
	`{"type":"assistant","message":{"model":"m","id":"x","type":"message","role":"assistant","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":-1,"output_tokens":1}},"parent_tool_use_id":null,"session_id":"s","uuid":"u"}`,
	`{"type":"assistant","message":{"model":"m","id":"x","type":"message","role":"assistant","content":[{"type":"tool_use","id":"t","name":"Bash","input":"ls"}],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":1,"output_tokens":1}},"parent_tool_use_id":null,"session_id":"s","uuid":"u"}`,
	`{"type":"assistant","message":{"model":"m","id":"x","type":"message","role":"assistant","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":1,"output_tokens":1}},"parent_tool_use_id":null,"session_id":"s","uuid":"u","error":"kaput"}`,
	`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","content":"x"}]},"parent_tool_use_id":null}`,
	`{"type":"user","message":{"role":"user","content":"x"},"parent_tool_use_id":null,"isReplay":true}`,
	`{"type":"result","subtype":"success","is_error":false,"duration_ms":1,"duration_api_ms":1,"num_turns":1,"stop_reason":null,"session_id":"s","total_cost_usd":0,"usage":{"input_tokens":0,"output_tokens":0},"permission_denials":[],"uuid":"u"}`,
	`{"type":"result","subtype":"success","is_error":"no","duration_ms":1,"duration_api_ms":1,"num_turns":1,"result":"","session_id":"s","total_cost_usd":0,"usage":{"input_tokens":0,"output_tokens":0},"permission_denials":[],"uuid":"u"}`,
	`{"type":"result","subtype":"success","is_error":false,"duration_ms":1,"duration_api_ms":1,"num_turns":1,"result":"","session_id":"s","total_cost_usd":0,"usage":{"input_tokens":0,"output_tokens":0},"permission_denials":[],"terminal_reason":"bored","uuid":"u"}`,
	`{"type":"rate_limit_event","rate_limit_info":{"status":"maybe"},"uuid":"u","session_id":"s"}`,
	`{"type":"tool_progress","tool_use_id":"t","tool_name":"Bash","parent_tool_use_id":null,"elapsed_time_seconds":"3","uuid":"u","session_id":"s"}`,
	`{"type":"system","subtype":"task_updated","task_id":"t","patch":{"status":"exploded"},"uuid":"u","session_id":"s"}`,
	`{"type":"system","subtype":"task_notification","task_id":"t","status":"completed","output_file":"","uuid":"u","session_id":"s"}`,
	`{"type":"system","subtype":"api_retry","attempt":1,"max_retries":2,"retry_delay_ms":5,"error_status":null,"error":"gremlins","uuid":"u","session_id":"s"}`,
	`{"type":"system","subtype":"informational","content":"x","level":"loud","uuid":"u","session_id":"s"}`,
	`{"type":"control_request","request_id":"r","request":{"subtype":"can_use_tool","tool_name":"Bash","input":{}}}`,
	`{"type":"system","session_id":"s","uuid":"u"}`,
	`{"type":""}`,
}

// TestSchema checks that the schema accepts every line of every valid
// test stream and rejects each broken line.
func TestSchema(t *testing.T) {
	s := schematest.Compile(t, claude.Dialect{})
	for _, f := range streams(t) {
		for i, l := range dialecttest.ReadLines(t, f) {
			if err := schematest.Check(s, l); err != nil {
				t.Errorf("%s line %d: %v", filepath.Base(f), i+1, err)
			}
		}
	}
	for _, l := range brokenLines {
		if schematest.Check(s, l) == nil {
			t.Errorf("the schema accepts a broken line:\n%s", l)
		}
	}
	var doc struct {
		Schema string `json:"$schema"`
		ID     string `json:"$id"`
	}
	if err := json.Unmarshal(claude.Dialect{}.Schema(), &doc); err != nil || doc.Schema != "https://json-schema.org/draft/2020-12/schema" ||
		doc.ID != "https://evtool.github.io/schema/claude.schema.json" {
		t.Errorf("$schema %q $id %q (%v)", doc.Schema, doc.ID, err)
	}
	published, err := os.ReadFile("../../schema/claude.schema.json")
	if err != nil || !bytes.Equal(published, claude.Dialect{}.Schema()) {
		t.Errorf("schema/claude.schema.json is not the embedded schema (%v)", err)
	}
}

// TestSchemaInPython validates the same lines with python-jsonschema, as
// a tool in another language would read the published file. make test
// sets EVTOOL_PYTHON; without it the test runs when python3 has
// jsonschema.
func TestSchemaInPython(t *testing.T) {
	py := os.Getenv("EVTOOL_PYTHON")
	if py == "" {
		py = "python3"
		if exec.Command(py, "-c", "import jsonschema").Run() != nil {
			t.Skip("python3 has no jsonschema module; make test runs this")
		}
	}
	cc := schematest.NewCrossCheck(t)
	schema := cc.Abs("claude.schema.json")
	for _, f := range streams(t) {
		cc.Valid(schema, cc.Abs(f))
	}
	cc.Invalid(schema, cc.WriteLines(brokenLines))
	if _, failed := cc.Run(py, schematest.Script); failed != 0 {
		t.Fatalf("%d lines failed the cross-check", failed)
	}
}
