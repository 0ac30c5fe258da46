package stream_test

import (
	"errors"
	"fmt"
	"io"
	"strings"

	_ "github.com/evtool/evtool/adapters" // registers every dialect
	"github.com/evtool/evtool/stream"
)

// Reading a stream event by event, in the manner of json.Decoder: the
// dialect is told from the first line, a bad line is a *LineError in its
// place, and the reading goes on after it.
func ExampleReader_Next() {
	in := strings.Join([]string{
		`{"seq":0,"type":"run_started","schema":2,"basis":"0.6.2","session_id":"s1","workspace":"/w","model":"m","provider":"p","context_files":[]}`,
		`{"seq":1,"type":"user_message","text":"hi"}`,
		`not json`,
		`{"seq":2,"type":"run_finished","status":"ok"}`,
	}, "\n")
	rd := stream.NewReader(strings.NewReader(in), "run.jsonl", stream.Options{})
	for {
		ev, err := rd.Next()
		if err == io.EOF {
			break
		}
		var le *stream.LineError
		if errors.As(err, &le) {
			fmt.Println("line", le.Line, le.Diags[0].Rule)
			continue
		}
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(ev.Type())
	}
	fmt.Println("dialect:", rd.Dialect().Name())
	// Output:
	// session_started
	// turn_started
	// user_message
	// line 3 json/syntax
	// session_finished
	// dialect: basis
}
