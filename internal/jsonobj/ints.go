package jsonobj

import (
	"math"
	"strconv"

	"github.com/tidwall/gjson"
)

// IntType is a producer's Rust integer type, as the JSON integers it
// accepts. serde_json reads a number with a fraction or an exponent, or
// "-0", as a float, so none of those is an integer, whatever its value.
type IntType struct {
	Name string
	Min  int64 // 0 for unsigned types
	Max  uint64
}

// The integer types producers use. usize is taken as 64 bits: the
// producers are built for 64-bit hosts.
var (
	U32   = IntType{Name: "u32", Max: math.MaxUint32}
	U64   = IntType{Name: "u64", Max: math.MaxUint64}
	USize = IntType{Name: "usize", Max: math.MaxUint64}
	I32   = IntType{Name: "i32", Min: math.MinInt32, Max: math.MaxInt32}
	I64   = IntType{Name: "i64", Min: math.MinInt64, Max: math.MaxInt64}
)

// TypeName names the JSON type of a value, for messages.
func TypeName(v gjson.Result) string {
	switch v.Type {
	case gjson.String:
		return "string"
	case gjson.True, gjson.False:
		return "boolean"
	case gjson.Null:
		return "null"
	case gjson.Number:
		return "number"
	}
	if v.IsArray() {
		return "array"
	}
	if v.IsObject() {
		return "object"
	}
	return "nothing"
}

// IsIntLiteral reports whether raw is a JSON integer literal: digits, with
// a minus sign only before a non-zero value, no fraction, no exponent.
func IsIntLiteral(raw string) bool {
	s := raw
	if len(s) > 0 && s[0] == '-' {
		s = s[1:]
		if s == "0" {
			return false
		}
	}
	if s == "" || (s[0] == '0' && len(s) > 1) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// ParseInt reads v as an integer of a signed type t, exactly, from its literal text,
// never through a float. When v does not fit it returns a message saying
// what was found and what is wanted, e.g. "got 1e0, want an integer
// literal (u64)".
func ParseInt(v gjson.Result, t IntType) (int64, string) {
	if v.Type != gjson.Number {
		return 0, "got " + TypeName(v) + ", want an integer (" + t.Name + ")"
	}
	if !IsIntLiteral(v.Raw) {
		return 0, "got " + v.Raw + ", want an integer literal (" + t.Name + ")"
	}
	n, err := strconv.ParseInt(v.Raw, 10, 64)
	if err != nil || n < t.Min || (n > 0 && uint64(n) > t.Max) {
		return 0, t.outOfRange(v.Raw)
	}
	return n, ""
}

// ParseUint reads v as an unsigned integer of type t; see ParseInt.
func ParseUint(v gjson.Result, t IntType) (uint64, string) {
	if v.Type != gjson.Number {
		return 0, "got " + TypeName(v) + ", want an integer (" + t.Name + ")"
	}
	if !IsIntLiteral(v.Raw) {
		return 0, "got " + v.Raw + ", want an integer literal (" + t.Name + ")"
	}
	n, err := strconv.ParseUint(v.Raw, 10, 64)
	if err != nil || n > t.Max {
		return 0, t.outOfRange(v.Raw)
	}
	return n, ""
}

func (t IntType) outOfRange(raw string) string {
	return "got " + raw + ", want " + strconv.FormatInt(t.Min, 10) + " to " + strconv.FormatUint(t.Max, 10) + " (" + t.Name + ")"
}
