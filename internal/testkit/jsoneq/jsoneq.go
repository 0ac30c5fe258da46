// Package jsoneq compares JSON texts as values, for tests of round trips.
package jsoneq

import (
	"encoding/json"
	"reflect"
	"strings"

	"github.com/tidwall/gjson"
)

// Equal reports whether two JSON texts hold the same value, numbers
// compared by their exact text (so 9007199254740993 is not 9007199254740992).
func Equal(a, b string) bool {
	var va, vb any
	da, db := json.NewDecoder(strings.NewReader(a)), json.NewDecoder(strings.NewReader(b))
	da.UseNumber()
	db.UseNumber()
	if da.Decode(&va) != nil || db.Decode(&vb) != nil {
		return false
	}
	return reflect.DeepEqual(va, vb)
}

// DuplicateKeys reports whether any object in the text repeats a key;
// which duplicate a reader keeps is not a round-trip promise.
func DuplicateKeys(text string) bool {
	dup := false
	var walk func(r gjson.Result)
	walk = func(r gjson.Result) {
		switch {
		case r.IsObject():
			seen := map[string]bool{}
			r.ForEach(func(k, v gjson.Result) bool {
				dup = dup || seen[k.Str]
				seen[k.Str] = true
				walk(v)
				return !dup
			})
		case r.IsArray():
			r.ForEach(func(_, v gjson.Result) bool { walk(v); return !dup })
		}
	}
	walk(gjson.Parse(text))
	return dup
}
