package basis_test

import (
	"os"
	"strings"

	"github.com/evtool/evtool/adapters/basis"
	"github.com/tidwall/gjson"
)

var osReadFile = os.ReadFile

func splitLines(s string) []string { return strings.Split(strings.TrimSuffix(s, "\n"), "\n") }

// hasDuplicateKeys reports whether any object in the line repeats a key.
func hasDuplicateKeys(line string) bool {
	dup := false
	var walk func(r gjson.Result)
	walk = func(r gjson.Result) {
		if r.IsObject() {
			seen := map[string]bool{}
			r.ForEach(func(k, v gjson.Result) bool {
				if seen[k.Str] {
					dup = true
				}
				seen[k.Str] = true
				walk(v)
				return !dup
			})
		} else if r.IsArray() {
			r.ForEach(func(_, v gjson.Result) bool { walk(v); return !dup })
		}
	}
	walk(gjson.Parse(line))
	return dup
}

// missingRequired reports whether a known-type line lacks one of its
// fields that basis always writes; the encoder writes those back, so such
// (invalid) lines gain a key on the way through.
func missingRequired(line string) bool {
	r := gjson.Parse(line)
	typ := r.Get("type").Str
	if basis.Fields(typ) == nil {
		return false
	}
	if !r.Get("seq").Exists() {
		return true
	}
	for _, k := range basis.Required(typ) {
		if !r.Get(gjson.Escape(k)).Exists() {
			return true
		}
	}
	return false
}
