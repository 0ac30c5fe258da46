// Package fingerprint describes the vocabulary of streams, each event
// type with the sorted set of its fields, so that a producer's drift (a
// type or a field added or removed) shows as a difference against a
// snapshot kept in a repository.
//
// The text form is the one of muse's upstream drift fingerprint
// (muse_stream_fingerprint.txt), for every dialect: one line per name,
// sorted,
//
//	<name>: <field>, <field>, …
//
// where a name is a type; "__envelope__" for the keys around the body,
// in a dialect whose lines carry their type's fields in a member of their
// own; and "<type>::<member>[<kind>]" for an object inside a body that
// has a kind of its own (muse's lifecycle events).
package fingerprint

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/stream"
	"github.com/tidwall/gjson"
)

// Envelope names the keys around the body.
const Envelope = "__envelope__"

// Untyped names the keys of lines without a type.
const Untyped = "__untyped__"

// Shape says where a dialect's lines keep their type and its fields.
type Shape struct {
	// Type is the member that names a line's type.
	Type string
	// Body is the member that holds the type's fields; "" when they are
	// the line's own keys. With a body, the keys of the lines themselves
	// are the envelope.
	Body string
	// Nested lists objects inside a body that have a kind of their own.
	Nested []Nested
}

// Nested is an object inside a body fingerprinted by its own kind, as
// "<type>::<Member>[<kind>]".
type Nested struct {
	Prefix string // the types whose body holds it start with Prefix
	Member string // its member in the body
	Kind   string // its member that names its kind
}

// Shaper is implemented by a dialect whose lines do not keep their type
// in a top-level "type" member with their fields beside it.
type Shaper interface {
	FingerprintShape() Shape
}

// builtin holds the shapes of the dialects that do not declare their own
// yet; a dialect's own FingerprintShape wins.
var builtin = map[string]Shape{
	"muse": {Type: "payload_type", Body: "payload", Nested: []Nested{{Prefix: "task.lifecycle.", Member: "event", Kind: "kind"}}},
	"acp":  {Type: "method", Body: "params", Nested: []Nested{{Prefix: "session/update", Member: "update", Kind: "sessionUpdate"}}},
}

// ShapeOf returns the shape of a dialect's lines.
func ShapeOf(d dialect.Dialect) Shape {
	if s, ok := d.(Shaper); ok {
		return s.FingerprintShape()
	}
	if s, ok := builtin[d.Name()]; ok {
		return s
	}
	return Shape{Type: "type"}
}

// Fingerprint is the vocabulary of one or more streams of one dialect.
type Fingerprint struct {
	// Dialect is the streams' dialect; "" for a fingerprint read from text.
	Dialect string
	names   map[string]map[string]bool
}

// New returns an empty fingerprint.
func New() *Fingerprint { return &Fingerprint{names: map[string]map[string]bool{}} }

// LineError is a line that is not one JSON value: it has no fields to
// tell, and a fingerprint without it would be silently incomplete.
type LineError struct {
	File string
	Line int
	Msg  string
}

func (e *LineError) Error() string { return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg) }

// Add reads a stream through package stream and adds its vocabulary. d
// names its dialect; nil detects it from the first line. Every stream of
// a fingerprint must be of one dialect. Lines that break the schema are
// taken as they are: drift is what the fingerprint is for.
func (f *Fingerprint) Add(r io.Reader, file string, d dialect.Dialect) error {
	rd := stream.NewReader(r, file, stream.Options{Dialect: d})
	var shape Shape
	var errs []error
	for {
		l, err := rd.ReadLine()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		if !l.JSON {
			// Before the dialect is told (a line that is not JSON comes
			// first) as after it.
			msg := "not JSON"
			if len(l.Diags) > 0 {
				msg = l.Diags[0].Message + " [" + l.Diags[0].Rule + "]"
			}
			errs = append(errs, &LineError{File: file, Line: l.N, Msg: msg})
			continue
		}
		if f.Dialect == "" {
			f.Dialect = rd.Dialect().Name()
		} else if name := rd.Dialect().Name(); name != f.Dialect {
			return fmt.Errorf("%s is %s, and the streams before it %s: fingerprint each dialect on its own", file, name, f.Dialect)
		}
		if shape.Type == "" {
			shape = ShapeOf(rd.Dialect())
		}
		f.line(gjson.ParseBytes(l.Raw), shape)
	}
	return errors.Join(errs...)
}

// line adds the vocabulary of one line.
func (f *Fingerprint) line(v gjson.Result, s Shape) {
	if !v.IsObject() {
		return
	}
	typ := member(v, s.Type)
	if typ.Type != gjson.String {
		f.add(Untyped, v)
		return
	}
	name := typ.Str
	if s.Body == "" {
		f.add(name, v)
		return
	}
	f.add(Envelope, v)
	body := member(v, s.Body)
	f.add(name, body)
	for _, n := range s.Nested {
		if !strings.HasPrefix(name, n.Prefix) {
			continue
		}
		obj := member(body, n.Member)
		kind := member(obj, n.Kind)
		if obj.IsObject() && kind.Type == gjson.String {
			f.add(name+"::"+n.Member+"["+kind.Str+"]", obj)
		}
	}
}

// add records name with the keys of obj (none if it is not an object).
func (f *Fingerprint) add(name string, obj gjson.Result) {
	keys := f.names[name]
	if keys == nil {
		keys = map[string]bool{}
		f.names[name] = keys
	}
	if obj.IsObject() {
		obj.ForEach(func(k, _ gjson.Result) bool {
			keys[k.Str] = true
			return true
		})
	}
}

// member returns the value of an object's member, compared as written
// (gjson paths would read dots and wildcards in a name).
func member(obj gjson.Result, name string) gjson.Result {
	var out gjson.Result
	if !obj.IsObject() {
		return out
	}
	obj.ForEach(func(k, v gjson.Result) bool {
		if k.Str == name {
			out = v
			return false
		}
		return true
	})
	return out
}

// Names returns the fingerprint's names, sorted.
func (f *Fingerprint) Names() []string { return slices.Sorted(maps.Keys(f.names)) }

// Fields returns the sorted fields of a name.
func (f *Fingerprint) Fields(name string) []string { return slices.Sorted(maps.Keys(f.names[name])) }

// WriteTo writes the text form.
func (f *Fingerprint) WriteTo(w io.Writer) (int64, error) {
	var b strings.Builder
	for _, name := range f.Names() {
		b.WriteString(token(name))
		b.WriteByte(':')
		for i, k := range f.Fields(name) {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteByte(' ')
			b.WriteString(field(k))
		}
		b.WriteByte('\n')
	}
	n, err := io.WriteString(w, b.String())
	return int64(n), err
}

// quote quotes a name or field that would not read back as itself: one
// that is empty, starts with a quote, holds sep (": " after a name, ","
// between fields), ends with sep's first byte, starts or ends with a
// space, or holds a character that is not printable.
func quote(s, sep string) string {
	if s == "" || strings.HasPrefix(s, `"`) || strings.Contains(s, sep) || strings.HasSuffix(s, sep[:1]) ||
		strings.TrimSpace(s) != s || strings.IndexFunc(s, func(r rune) bool { return !strconv.IsPrint(r) }) >= 0 {
		return strconv.Quote(s)
	}
	return s
}

func token(name string) string { return quote(name, ": ") }

func field(k string) string { return quote(k, ",") }

// Parse reads the text form.
func Parse(r io.Reader) (*Fingerprint, error) {
	f := New()
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimSuffix(sc.Text(), "\r")
		if strings.TrimSpace(line) == "" {
			continue
		}
		name, rest, err := readToken(line, ": ")
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
		if _, dup := f.names[name]; dup {
			return nil, fmt.Errorf("line %d: %s appears twice", n, name)
		}
		keys := map[string]bool{}
		f.names[name] = keys
		rest = strings.TrimPrefix(rest, ":")
		for rest != "" {
			rest = strings.TrimPrefix(rest, " ")
			var k string
			if k, rest, err = readToken(rest, ","); err != nil {
				return nil, fmt.Errorf("line %d: %w", n, err)
			}
			keys[k] = true
			rest = strings.TrimPrefix(rest, ",")
		}
	}
	return f, sc.Err()
}

// readToken reads a name or field up to stop, unquoting a quoted one.
func readToken(s, stop string) (tok, rest string, err error) {
	if strings.HasPrefix(s, `"`) {
		q, err := strconv.QuotedPrefix(s)
		if err != nil {
			return "", "", fmt.Errorf("bad quoted name in %q", s)
		}
		tok, _ = strconv.Unquote(q)
		return tok, s[len(q):], nil
	}
	i := strings.Index(s, stop)
	if i < 0 && stop == ": " && strings.HasSuffix(s, ":") {
		i = len(s) - 1 // a name without fields
	}
	if i < 0 {
		if stop == ": " {
			return "", "", fmt.Errorf("no ':' after the name in %q", s)
		}
		return s, "", nil
	}
	return s[:i], s[i:], nil
}

// Diff lists how got differs from want: names added and removed, then,
// for names in both, fields added and removed. It is empty when they
// match.
func Diff(want, got *Fingerprint) []string {
	var out []string
	for _, name := range got.Names() {
		if _, ok := want.names[name]; !ok {
			out = append(out, fmt.Sprintf("type added: %s: %s", token(name), list(got.Fields(name))))
		}
	}
	for _, name := range want.Names() {
		if _, ok := got.names[name]; !ok {
			out = append(out, fmt.Sprintf("type removed: %s: %s", token(name), list(want.Fields(name))))
		}
	}
	for _, name := range want.Names() {
		g, ok := got.names[name]
		if !ok {
			continue
		}
		var added, removed []string
		for _, k := range got.Fields(name) {
			if !want.names[name][k] {
				added = append(added, k)
			}
		}
		for _, k := range want.Fields(name) {
			if !g[k] {
				removed = append(removed, k)
			}
		}
		if added != nil {
			out = append(out, fmt.Sprintf("fields added to %s: %s", token(name), list(added)))
		}
		if removed != nil {
			out = append(out, fmt.Sprintf("fields removed from %s: %s", token(name), list(removed)))
		}
	}
	return out
}

func list(ks []string) string {
	if len(ks) == 0 {
		return "(no fields)"
	}
	q := make([]string, len(ks))
	for i, k := range ks {
		q[i] = field(k)
	}
	return strings.Join(q, ", ")
}
