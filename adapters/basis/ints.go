package basis

import (
	"github.com/evtool/evtool/internal/jsonobj"
	"github.com/tidwall/gjson"
)

// uintAt reads the integer v at ptr, recording a field error when it does
// not fit t; nil then.
func uintAt(o *jsonobj.Object, ptr string, v gjson.Result, t jsonobj.IntType) *uint64 {
	n, msg := jsonobj.ParseUint(v, t)
	if msg != "" {
		o.Fail(ptr, "%s", msg)
		return nil
	}
	return &n
}

// uintField reads a top-level integer field; nil when absent.
func uintField(o *jsonobj.Object, k string, t jsonobj.IntType) *uint64 {
	v, ok := o.Get(k)
	if !ok {
		return nil
	}
	return uintAt(o, "/"+k, v, t)
}

// nestedUint reads an integer key of a nested object e at ptr; nil when
// absent.
func nestedUint(o *jsonobj.Object, ptr string, e gjson.Result, k string, t jsonobj.IntType) *uint64 {
	v := jsonobj.Lookup(e, k)
	if !v.Exists() {
		return nil
	}
	return uintAt(o, ptr+"/"+k, v, t)
}

// optString reads an Option<String> field: absent and null are None, and a
// null (or a present "", which the canonical model cannot tell from
// absence) is kept in the residue so that it comes back as written.
func optString(o *jsonobj.Object, k string, res *jsonobj.Residue) string {
	v, ok := o.Get(k)
	switch {
	case !ok:
		return ""
	case v.Type == gjson.Null:
		res.Add(k, []byte("null"))
		return ""
	case v.Type != gjson.String:
		o.Fail("/"+k, "got %s, want a string or null", jsonobj.TypeName(v))
		return ""
	case v.Str == "":
		res.Add(k, []byte(`""`))
	}
	return v.Str
}

// The integer types of this dialect's fields.
var (
	u32   = jsonobj.U32
	u64   = jsonobj.U64
	usize = jsonobj.USize
)
