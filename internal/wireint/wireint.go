// Package wireint reads the integer fields of a dialect line whose producer
// types them as Rust integers (u32, u64, usize): a value is an integer
// literal within its type, or the line's jsonobj.Object records a field
// error that says where and why. basis and mermaid share it; both are
// serde_json producers with flat lines.
package wireint

import (
	"github.com/evtool/evtool/internal/jsonobj"
	"github.com/tidwall/gjson"
)

// At reads the integer v at ptr, recording a field error on o when it does
// not fit t; nil then.
func At(o *jsonobj.Object, ptr string, v gjson.Result, t jsonobj.IntType) *uint64 {
	n, msg := jsonobj.ParseUint(v, t)
	if msg != "" {
		o.Fail(ptr, "%s", msg)
		return nil
	}
	return &n
}

// Field reads a top-level integer field; nil when absent.
func Field(o *jsonobj.Object, k string, t jsonobj.IntType) *uint64 {
	v, ok := o.Get(k)
	if !ok {
		return nil
	}
	return At(o, "/"+k, v, t)
}

// NullableField reads a top-level Option<integer>: absent and null are
// None, nil.
func NullableField(o *jsonobj.Object, k string, t jsonobj.IntType) *uint64 {
	v, ok := o.Get(k)
	if !ok || v.Type == gjson.Null {
		return nil
	}
	return At(o, "/"+k, v, t)
}

// Nested reads an integer key of the nested object e at ptr; nil when
// absent.
func Nested(o *jsonobj.Object, ptr string, e gjson.Result, k string, t jsonobj.IntType) *uint64 {
	v := jsonobj.Lookup(e, k)
	if !v.Exists() {
		return nil
	}
	return At(o, ptr+"/"+k, v, t)
}

// NullableNested reads an Option<integer> key of the nested object e at
// ptr: absent and null are None, nil.
func NullableNested(o *jsonobj.Object, ptr string, e gjson.Result, k string, t jsonobj.IntType) *uint64 {
	v := jsonobj.Lookup(e, k)
	if !v.Exists() || v.Type == gjson.Null {
		return nil
	}
	return At(o, ptr+"/"+k, v, t)
}

// Value is the count p points at, or 0 for an absent one: what a writer
// puts in a field its dialect requires.
func Value(p *uint64) uint64 {
	if p == nil {
		return 0
	}
	return *p
}
