package mermaid

import (
	"math"

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

// optNestedUint reads an Option<u64> of a nested object: absent and null are None.
func optNestedUint(o *jsonobj.Object, ptr string, e gjson.Result, k string, t jsonobj.IntType) *uint64 {
	v := jsonobj.Lookup(e, k)
	if !v.Exists() || v.Type == gjson.Null {
		return nil
	}
	return uintAt(o, ptr+"/"+k, v, t)
}

// nullableUint reads a top-level Option<u64>: absent and null are None.
func nullableUint(o *jsonobj.Object, k string, t jsonobj.IntType) *uint64 {
	v, ok := o.Get(k)
	if !ok || v.Type == gjson.Null {
		return nil
	}
	return uintAt(o, "/"+k, v, t)
}

// addSat adds two counts, saturating at the largest u64 instead of
// wrapping; ok is false when it saturated.
func addSat(a, b uint64) (sum uint64, ok bool) {
	if a > math.MaxUint64-b {
		return math.MaxUint64, false
	}
	return a + b, true
}

// The integer types of this dialect's fields.
var (
	u32 = jsonobj.U32
	u64 = jsonobj.U64
)
