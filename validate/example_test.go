package validate_test

import (
	"fmt"
	"strings"

	_ "github.com/evtool/evtool/adapters" // registers every dialect
	"github.com/evtool/evtool/validate"
)

// Validating one stream: each diagnostic names its line, column, JSON
// pointer and rule; the summary counts them.
func ExampleStream() {
	in := strings.Join([]string{
		`{"seq":0,"type":"run_started","schema":2,"basis":"0.6.2","session_id":"s1","workspace":"/w","model":"m","provider":"p","context_files":[]}`,
		`{"seq":1,"type":"tool_completed","tool_call_id":"c9","tool_name":"shell","summary":"ok","is_error":false}`,
		`{"seq":2,"type":"run_finished","status":"ok"}`,
	}, "\n")
	sum, err := validate.Stream(strings.NewReader(in), "run.jsonl", validate.Options{}, func(d validate.Diagnostic) {
		fmt.Println(d)
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s: %d errors, %d warnings in %d lines\n", sum.Dialect, sum.Errors, sum.Warnings, sum.Lines)
	// Output:
	// run.jsonl:2:49: error: /tool_call_id: tool_completed for tool call "c9", which was never queued [basis/tool-not-queued]
	// basis: 1 errors, 0 warnings in 3 lines
}
