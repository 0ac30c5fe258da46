package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestRealACPClient has the official TypeScript SDK (clients/acp) spawn
// `evtool acp replay` on a stream, initialize, open a session, prompt once
// per recorded turn and answer every permission request. What it receives
// must be exactly the updates and permission requests `evtool convert --to
// acp` writes for the same stream.
func TestRealACPClient(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("node is needed for the ACP client test")
	}
	client, _ := filepath.Abs("../../clients/acp/replay-client.mjs")
	if _, err := os.Stat(filepath.Join(filepath.Dir(client), "node_modules", "@agentclientprotocol", "sdk")); err != nil {
		t.Fatal("the ACP SDK is not installed: run npm ci --prefix clients/acp (make test does)")
	}
	bin := filepath.Join(t.TempDir(), "evtool")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	streams := []string{
		"../../testdata/streams/basis/full_schema2.jsonl",
		"../../testdata/streams/basis/denied_and_failed.jsonl",
		"../../testdata/streams/mermaid/full_run.jsonl",
		"../../testdata/acp/basis_cut_mid_tool.jsonl",
		"../../../shared/corpus/muse/meta_tool_use.jsonl",
	}
	// Every wire dialect in the registry is served at least once: one the
	// streams above do not cover adds its bundled streams and real captures.
	for _, d := range registered() {
		if d == "acp" || d == "canonical" || slices.ContainsFunc(streams, func(f string) bool { return strings.Contains(f, "/"+d+"/") }) {
			continue
		}
		for _, dir := range []string{"../../testdata/streams/", "../../../shared/corpus/", "../../../shared/dialects-next/captures/"} {
			m, _ := filepath.Glob(dir + d + "/*.jsonl")
			streams = append(streams, m...)
		}
	}
	for _, profile := range []string{"stable", "basis"} {
		for _, f := range streams {
			t.Run(profile+"/"+filepath.Base(f), func(t *testing.T) {
				transcript, _, code := evtool(t, nil, "convert", "--to", "acp", "--acp-profile", profile, "--transcript", f)
				if code != 0 {
					t.Fatalf("transcript exit %d", code)
				}
				prompts := strings.Count(transcript, `"method":"session/prompt"`)
				log, _, _ := evtool(t, nil, "convert", "--to", "acp", "--acp-profile", profile, f)
				var wantUpdates, wantPerms []any
				for _, l := range strings.Split(strings.TrimSpace(log), "\n") {
					var m struct {
						Method string `json:"method"`
						Params any    `json:"params"`
					}
					if err := json.Unmarshal([]byte(l), &m); err != nil {
						t.Fatal(err)
					}
					switch m.Method {
					case "session/update":
						wantUpdates = append(wantUpdates, m.Params)
					case "session/request_permission":
						wantPerms = append(wantPerms, m.Params)
					}
				}
				cmd := exec.Command(node, client, bin, f, itoa(prompts), "--acp-profile", profile)
				var stderr bytes.Buffer
				cmd.Stderr = &stderr
				out, err := cmd.Output()
				if err != nil {
					t.Fatalf("the ACP client failed: %v\n%s", err, stderr.String())
				}
				var got struct {
					Updates     []any    `json:"updates"`
					Permissions []any    `json:"permissions"`
					StopReasons []string `json:"stopReasons"`
				}
				if err := json.Unmarshal(out, &got); err != nil {
					t.Fatalf("%v: %s", err, out)
				}
				if len(got.StopReasons) != prompts {
					t.Errorf("%d stop reasons for %d prompts", len(got.StopReasons), prompts)
				}
				if len(got.Updates) != len(wantUpdates) {
					t.Fatalf("the client received %d updates, --to acp writes %d", len(got.Updates), len(wantUpdates))
				}
				for i := range wantUpdates {
					if !reflect.DeepEqual(got.Updates[i], wantUpdates[i]) {
						g, _ := json.Marshal(got.Updates[i])
						w, _ := json.Marshal(wantUpdates[i])
						t.Fatalf("update %d differs:\n got %s\nwant %s", i, g, w)
					}
				}
				if len(got.Permissions)+len(wantPerms) > 0 && !reflect.DeepEqual(got.Permissions, wantPerms) {
					t.Errorf("permission requests differ: got %d, want %d", len(got.Permissions), len(wantPerms))
				}
			})
		}
	}
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}
