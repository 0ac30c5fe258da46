// Package jsonkeys rewrites the key order of JSON values, for tests that
// prove a reader does not depend on it (as `jq -S -c .` would reorder a
// recording).
package jsonkeys

import (
	"slices"
	"strings"

	"github.com/tidwall/gjson"
)

// Order says how Reorder arranges the keys of every object.
type Order int

// Key orders.
const (
	Sorted   Order = iota // by key, as jq -S does
	Reversed              // last key first
)

// Reorder returns the JSON value raw with the keys of every object, at
// every depth, in the given order. Values are kept as written; white space
// between tokens is dropped, as jq -c does.
func Reorder(raw []byte, o Order) []byte {
	var b strings.Builder
	write(&b, gjson.ParseBytes(raw), o)
	return []byte(b.String())
}

type member struct {
	key  string
	rawK string
	val  gjson.Result
}

func write(b *strings.Builder, v gjson.Result, o Order) {
	switch {
	case v.IsObject():
		var ms []member
		v.ForEach(func(k, val gjson.Result) bool {
			ms = append(ms, member{k.Str, k.Raw, val})
			return true
		})
		if o == Sorted {
			slices.SortStableFunc(ms, func(a, b member) int { return strings.Compare(a.key, b.key) })
		} else {
			slices.Reverse(ms)
		}
		b.WriteByte('{')
		for i, m := range ms {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(m.rawK)
			b.WriteByte(':')
			write(b, m.val, o)
		}
		b.WriteByte('}')
	case v.IsArray():
		b.WriteByte('[')
		i := 0
		v.ForEach(func(_, e gjson.Result) bool {
			if i > 0 {
				b.WriteByte(',')
			}
			write(b, e, o)
			i++
			return true
		})
		b.WriteByte(']')
	default:
		b.WriteString(strings.TrimSpace(v.Raw))
	}
}
