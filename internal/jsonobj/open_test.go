package jsonobj

import (
	"errors"
	"slices"
	"testing"

	"github.com/tidwall/gjson"
)

func TestOpen(t *testing.T) {
	for _, c := range []struct{ line, typ, err string }{
		{`{"type":"a","x":1}`, "a", ""},
		{`[1]`, "", ": a test line must be a JSON object"},
		{`{"x":1}`, "", "/type: missing event type"},
		{`{"type":""}`, "", "/type: missing event type"},
		{`{"type":3}`, "", "/type: must be a string"},
	} {
		var o Object
		typ, err := o.Open(gjson.Parse(c.line), "a test line")
		msg := ""
		if err != nil {
			msg = err.Error()
			var fe *FieldError
			if !errors.As(err, &fe) {
				t.Errorf("%s: %T, want a *FieldError", c.line, err)
			}
		}
		if typ != c.typ || msg != c.err {
			t.Errorf("%s: %q, %q; want %q, %q", c.line, typ, msg, c.typ, c.err)
		}
	}
}

func TestKeepUnknownAndAbsent(t *testing.T) {
	var o Object
	o.Reset(gjson.Parse(`{"type":"a","x":1,"y":[2],"x":3}`))
	var res Residue
	o.KeepUnknown(&res, func(k string) bool { return k == "type" || k == "y" })
	o.KeepAbsent(&res, []string{"y", "z"})
	if got, want := string(res.Bytes()), `{"x":1,"x":3,"`+AbsentKey+`":["z"]}`; got != want {
		t.Errorf("residue %s, want %s", got, want)
	}
}

func TestMembers(t *testing.T) {
	ms := Members(gjson.Parse(`{"b":1,"a":"s","b":2}`))
	var keys, raws []string
	for _, m := range ms {
		keys, raws = append(keys, m.Key), append(raws, m.Val.Raw)
	}
	if !slices.Equal(keys, []string{"b", "a", "b"}) || !slices.Equal(raws, []string{"1", `"s"`, "2"}) {
		t.Errorf("Members: %q %q", keys, raws)
	}
	if ms := Members(gjson.Parse(`{}`)); len(ms) != 0 {
		t.Errorf("Members of {}: %v", ms)
	}
}
