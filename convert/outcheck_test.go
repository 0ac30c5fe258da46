package convert_test

import (
	"strings"
	"testing"

	"github.com/evtool/evtool/convert"
	"github.com/evtool/evtool/dialect"
)

// TestOutputCheck: what a source carries verbatim for the target is
// checked by the target's validator as it is written, and a stream cut
// short is said to be so (hunt-hostile D1c, D12: exit 0 with output that
// validate rejects).
func TestOutputCheck(t *testing.T) {
	basis, _ := dialect.Lookup("basis")
	canonical, _ := dialect.Lookup("canonical")
	canon, _, err := convertIt(t, []byte(basisRun), convert.Options{To: canonical})
	if err != nil {
		t.Fatal(err)
	}
	// Back to basis, from its own residue: checked, and clean.
	_, res, err := convertIt(t, []byte(canon), convert.Options{To: basis})
	if err != nil || res.OutputErrors != 0 || res.Unfinished {
		t.Fatalf("clean round trip: err %v, output errors %d %v, unfinished %v", err, res.OutputErrors, res.OutputDiags, res.Unfinished)
	}
	// The user message's ext.basis makes it a run_finished without status.
	bad := strings.Replace(canon, `"ext":{"basis":{"seq":1}}`, `"ext":{"basis":{"seq":1,"type":"run_finished","text":5}}`, 1)
	if bad == canon {
		t.Fatalf("no ext.basis of seq 1 in\n%s", canon)
	}
	_, res, err = convertIt(t, []byte(bad), convert.Options{To: basis})
	if err != nil || res.Errors != 0 {
		t.Fatalf("err %v, input errors %d", err, res.Errors)
	}
	if res.OutputErrors == 0 || len(res.OutputDiags) == 0 || res.OutputDiags[0].Rule != "basis/schema" || res.OutputDiags[0].Line != 2 {
		t.Fatalf("output errors %d, diags %v; want basis/schema on line 2 first", res.OutputErrors, res.OutputDiags)
	}
	// Cut short: the last line dropped.
	cut := basisRun[:strings.LastIndex(strings.TrimSuffix(basisRun, "\n"), "\n")+1]
	_, res, err = convertIt(t, []byte(cut), convert.Options{To: canonical})
	if err != nil || !res.Unfinished || res.OutputErrors != 0 {
		t.Fatalf("cut: err %v, unfinished %v, output errors %d (basis → canonical carries no residue: not checked)", err, res.Unfinished, res.OutputErrors)
	}
	_, res, _ = convertIt(t, []byte(basisRun), convert.Options{To: canonical})
	if res.Unfinished {
		t.Fatal("a whole run is said to be cut short")
	}
}
