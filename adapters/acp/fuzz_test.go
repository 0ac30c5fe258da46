package acp_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evtool/evtool/adapters/acp"
	"github.com/evtool/evtool/adapters/canonical"
	"github.com/evtool/evtool/convert"
	"github.com/evtool/evtool/dialect"
)

// FuzzInvariants writes arbitrary canonical streams as ACP, in every
// profile and mode, and requires that the output never panics and never
// breaks an invariant the ACP checker knows: the invariants hold by
// construction, whatever the source did.
func FuzzInvariants(f *testing.F) {
	files, _ := filepath.Glob("../../testdata/streams/*/*.jsonl")
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		var canon bytes.Buffer
		convert.Run(bytes.NewReader(data), &canon, file, convert.Options{To: canonical.Dialect{}}, func(*convert.LineError) {})
		// Small seeds keep the fuzzer fast: a few events of each stream.
		lines := strings.SplitAfter(canon.String(), "\n")
		for i := 0; i+6 <= len(lines); i += 6 {
			f.Add(strings.Join(lines[i:i+6], ""), uint8(i))
		}
	}
	// Events after a turn or the session ended, and tool events out of order.
	f.Add(`{"seq":0,"type":"session_started","schema":1,"source":{"dialect":"canonical"}}
{"seq":1,"type":"turn_started","turn_id":"t1","prompt":"hi"}
{"seq":2,"type":"turn_finished","turn_id":"t1","status":"ok"}
{"seq":3,"type":"permission_requested","request_id":"r","call_id":"c"}
{"seq":4,"type":"tool_output","call_id":"c","chunk":"x"}
{"seq":5,"type":"session_finished","status":"ok"}
{"seq":6,"type":"tool_finished","call_id":"c","status":"success"}
`, uint8(4))
	f.Fuzz(func(t *testing.T, stream string, mode uint8) {
		profile := []string{acp.Stable, acp.Unstable, acp.Basis}[mode%3]
		transcript := fmt.Sprint(mode&4 != 0)
		var out bytes.Buffer
		_, err := convert.Run(strings.NewReader(stream), &out, "f", convert.Options{From: canonical.Dialect{}, To: acp.Dialect{},
			Config: &acp.Config{Profile: profile, Transcript: transcript == "true"}}, func(*convert.LineError) {})
		if err != nil {
			return
		}
		c := acp.Dialect{}.NewChecker(dialect.CheckOptions{})
		n := 0
		report := func(fd dialect.Finding) {
			if fd.Severity == dialect.Error {
				t.Fatalf("%s %s: %s (line %d)\nstream:\n%s\nacp:\n%s", profile, fd.Rule, fd.Message, fd.Line, stream, out.String())
			}
		}
		for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
			if l == "" {
				continue
			}
			n++
			c.Line([]byte(l), n, report)
		}
		if n > 0 {
			c.End(n, report)
		}
	})
}
