package dialect_test

import (
	"strings"
	"testing"

	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/event"
)

var (
	kindRisk = dialect.DropKind("t/risk", "permission risk", "permission risks", "no risk field")
	kindType = dialect.DropKind("t/no-such-event", "%[1]s event", "%[1]s events", "no such event")
)

// TestLosses counts kinds with and without a detail, and requires the
// wording of each count, the first line, the id and the order.
func TestLosses(t *testing.T) {
	var ls dialect.Losses
	if !ls.Empty() {
		t.Fatal("new Losses not empty")
	}
	ls.SetLine(3)
	ls.Add(kindRisk)
	ls.AddDetail(kindType, "usage")
	ls.SetLine(7)
	ls.Add(kindRisk)
	ls.AddDetail(kindType, "branched")
	ls.AddDetail(kindType, "usage")
	var ext event.Ext
	ext.Set("t", []byte(`{"x":1}`))
	ext.Set("other", []byte(`{"x":1}`))
	ext.Set("seqonly", []byte(`{"seq":2,"@n":1}`))
	ls.Foreign(ext, "t")
	var got []string
	for _, l := range ls.List() {
		got = append(got, l.String()+" ["+l.ID+"] first "+string(rune('0'+l.FirstLine)))
	}
	want := []string{
		"dropped 1 branched event (no such event) [t/no-such-event] first 7",
		"dropped 1 event's ext.other fields (another dialect's residue has no place in the target) [ext/other-dialect] first 7",
		"dropped 2 permission risks (no risk field) [t/risk] first 3",
		"dropped 2 usage events (no such event) [t/no-such-event] first 3",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("losses:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestCheckLossKinds(t *testing.T) {
	for _, c := range []struct {
		kinds []*dialect.LossKind
		err   string
	}{
		{[]*dialect.LossKind{kindRisk, kindType}, ""},
		{[]*dialect.LossKind{kindRisk, kindRisk}, "declared twice"},
		{[]*dialect.LossKind{dialect.DropKind("u/x", "a", "b", "c")}, `must start with "t/"`},
		{[]*dialect.LossKind{dialect.DropKind("t/x", "a", "", "c")}, "must be set"},
		{[]*dialect.LossKind{dialect.DropKind("t/x", "a", "%[1]s b", "c")}, "both wordings"},
	} {
		err := dialect.CheckLossKinds("t/", c.kinds)
		if (err == nil) != (c.err == "") || err != nil && !strings.Contains(err.Error(), c.err) {
			t.Errorf("CheckLossKinds: %v, want %q", err, c.err)
		}
	}
}
