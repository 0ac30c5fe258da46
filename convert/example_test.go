package convert_test

import (
	"fmt"
	"os"
	"strings"

	_ "github.com/evtool/evtool/adapters" // registers every dialect
	"github.com/evtool/evtool/convert"
	"github.com/evtool/evtool/dialect"
)

// Converting a Codex stream into basis: the source dialect is told from
// the first line, Codex's nested usage (cached inside input) becomes
// basis's disjoint counts, and what basis cannot carry is counted, not
// dropped silently.
func ExampleRun() {
	in := strings.Join([]string{
		`{"type":"thread.started","thread_id":"019c8143-abe2-7722-9bd1-fd70f687175b"}`,
		`{"type":"turn.started"}`,
		`{"type":"item.completed","item":{"id":"item_0","type":"agent_message","text":"Done."}}`,
		`{"type":"turn.completed","usage":{"input_tokens":120,"cached_input_tokens":100,"output_tokens":7}}`,
	}, "\n") + "\n"
	to, _ := dialect.Lookup("basis")
	res, err := convert.Run(strings.NewReader(in), os.Stdout, "run.jsonl", convert.Options{To: to}, func(le *convert.LineError) {
		fmt.Println(le)
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.From, res.Lines, "lines,", res.Errors, "with problems")
	for _, l := range res.Losses.List() {
		fmt.Println(l.ID, l.Count)
	}
	// Output:
	// {"seq":0,"type":"run_started","schema":2,"basis":"","session_id":"019c8143-abe2-7722-9bd1-fd70f687175b","workspace":"","model":"","provider":"","context_files":[]}
	// {"seq":1,"type":"assistant_message","text":"Done."}
	// {"seq":2,"type":"run_finished","status":"ok","usage":{"input_tokens":20,"output_tokens":7,"cache_read_tokens":100,"cache_creation_tokens":0}}
	// codex 4 lines, 0 with problems
	// basis/run-token-count-unstated 1
	// basis/message-id 1
	// basis/run-token-total 1
	// basis/no-such-event 1
	// basis/turn-started 1
	// basis/synthesized-line 1
}
