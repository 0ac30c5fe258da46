package basis_test

import (
	"github.com/evtool/evtool/adapters/basis"
	"github.com/tidwall/gjson"
)

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
