package muse

import (
	"encoding/json"
	"reflect"
	"testing"
)

// TestResidueJSON: the hand-written form reads back what it writes, and
// is what encoding/json makes of the same struct.
func TestResidueJSON(t *testing.T) {
	x := museExt{
		Before: []json.RawMessage{json.RawMessage(`{"line":{"a":1}}`)},
		residue: residue{
			Env:    map[string]json.RawMessage{"z": json.RawMessage(`1`), "a": json.RawMessage(`"x"`)},
			P:      map[string]json.RawMessage{"k": json.RawMessage(`[1,{"b":null}]`)},
			Absent: []string{"q"}, Order: "sorted", Keys: []string{"b", "a"},
			Line: json.RawMessage(`{"x":"y"}`), EOrder: "sorted", EKeys: []string{"id"},
			WS: []gap{{At: 0, S: " "}, {At: 7, S: "\t\n"}}, Task: "t1", TaskKind: "job \u2028",
		},
	}
	got := x.appendJSON(nil)
	var back museExt
	if err := parseMuseExt(got, &back); err != nil {
		t.Fatalf("%s: %v", got, err)
	}
	if !reflect.DeepEqual(back, x) {
		t.Fatalf("read back\n%+v\nwant\n%+v", back, x)
	}
	want := `{"before":[{"line":{"a":1}}],"env":{"a":"x","z":1},"p":{"k":[1,{"b":null}]},"@absent":["q"],"@order":"sorted","@keys":["b","a"],"line":{"x":"y"},"@eorder":"sorted","@ekeys":["id"],"@ws":[[0," "],[7,"\t\n"]],"@task":"t1","task_kind":"job ` + "\u2028" + `"}`
	if string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	for _, bad := range []string{
		`[]`, `{"before":{}}`, `{"env":[]}`, `{"@keys":[1]}`, `{"@order":1}`,
		`{"@ws":[[1]]}`, `{"@ws":[[-1," "]]}`, `{"@ws":[[1.5," "]]}`, `{"@ws":[[1,"x"]]}`,
	} {
		if err := parseMuseExt([]byte(bad), &back); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}
