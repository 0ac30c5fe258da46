package convert

import (
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/event"
	"github.com/evtool/evtool/internal/jsonenc"
	"github.com/evtool/evtool/ndjson"
)

// The depth guard. A line may nest as deep as evtool reads
// (ndjson.DefaultMaxDepth), and a writer puts the raw values it carries
// (a tool's input, a dialect's residue, an unknown line) a few levels
// down in its own envelope: a line that was just readable would come out
// too deep for evtool's own reader, and a writer must not write what its
// reader refuses. So for every target alike, the raw values of a line
// that nests within depthMargin of the limit are cut at flatAt levels:
// each object or array deeper than that is written as a JSON string of
// its text, and counted as a loss. The line's depth is known from its
// syntax check, at no cost; lines are left alone until one nests that
// deep, and from then on every line's events are walked (cutDeep: a
// decoder may give a line's events with a later line's), which a stream
// with no such line never pays for.

// depthMargin is more than any writer nests a carried value below the top
// of its line.
const depthMargin = 64

// flatAt is how deep a carried value may nest once cut.
const flatAt = ndjson.DefaultMaxDepth - depthMargin

// LossTooDeep counts the values cut at flatAt levels.
var LossTooDeep = dialect.ApproximateKind("convert/too-deep",
	fmt.Sprintf("value nested too deep (its levels past %d written as JSON strings)", flatAt),
	fmt.Sprintf("values nested too deep (their levels past %d written as JSON strings)", flatAt),
	fmt.Sprintf("the target nests a value deeper than its source did, and evtool reads at most %d levels", ndjson.DefaultMaxDepth))

// LossKinds lists the kinds the conversion itself counts, whatever the
// target: a catalogue beside each dialect's (dialect.LossLister).
func LossKinds() []*dialect.LossKind { return []*dialect.LossKind{LossTooDeep} }

// cutDeep cuts the raw values of events that nest past flatAt, and counts
// each value cut. The conversion calls it from the first line that nests
// near the limit on (its depth is known from the syntax check, at no
// cost): the events of that line, and of every line after it, for a
// decoder may give a line's events with a later line's.
func cutDeep(evs []*event.Event, losses *dialect.Losses) {
	for _, ev := range evs {
		cutRaw(reflect.ValueOf(ev), losses)
	}
}

var rawType = reflect.TypeFor[json.RawMessage]()

// cutRaw cuts every json.RawMessage reachable from v. Events are trees
// of exported fields, slices, maps and pointers.
func cutRaw(v reflect.Value, losses *dialect.Losses) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			cutRaw(v.Elem(), losses)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				cutRaw(v.Field(i), losses)
			}
		}
	case reflect.Slice, reflect.Array:
		if v.Type() == rawType {
			if cut, ok := flatten(v.Bytes(), flatAt); ok && v.CanSet() {
				v.SetBytes(cut)
				losses.Add(LossTooDeep)
			}
			return
		}
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return // bytes, not values
		}
		for i := range v.Len() {
			cutRaw(v.Index(i), losses)
		}
	case reflect.Map:
		it := v.MapRange()
		for it.Next() {
			e := reflect.New(it.Value().Type()).Elem()
			e.Set(it.Value())
			cutRaw(e, losses)
			v.SetMapIndex(it.Key(), e)
		}
	}
}

// flatten writes every object and array of raw that stands at levels
// past at as a JSON string of its text; raw is valid JSON. It reports
// whether it cut anything.
func flatten(raw []byte, at int) ([]byte, bool) {
	var out []byte
	depth, last := 0, 0
	for i := 0; i < len(raw); i++ {
		switch raw[i] {
		case '"':
			i = stringEnd(raw, i)
		case '{', '[':
			if depth < at {
				depth++
				continue
			}
			end := valueEnd(raw, i)
			out = append(out, raw[last:i]...)
			out = jsonenc.String(out, string(raw[i:end]))
			last = end
			i = end - 1
		case '}', ']':
			depth--
		}
	}
	if out == nil {
		return raw, false
	}
	return append(out, raw[last:]...), true
}

// stringEnd returns the index of the quote that ends the string opening
// at i.
func stringEnd(raw []byte, i int) int {
	for i++; i < len(raw); i++ {
		switch raw[i] {
		case '\\':
			i++
		case '"':
			return i
		}
	}
	return len(raw)
}

// valueEnd returns the index just past the object or array opening at i.
func valueEnd(raw []byte, i int) int {
	depth := 0
	for ; i < len(raw); i++ {
		switch raw[i] {
		case '"':
			i = stringEnd(raw, i)
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return i + 1
			}
		}
	}
	return len(raw)
}
