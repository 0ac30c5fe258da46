package schemacheck

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"regexp"
	"strconv"
	"strings"

	"github.com/evtool/evtool/internal/jsonobj"
	"github.com/tidwall/gjson"
)

// The compiler: a schema document into the tree of nodes that check walks.

type pendingRef struct {
	n   *node
	ref string
}

type compiler struct {
	root  any
	byPtr map[string]*node
	refs  []pendingRef
}

// annotations are keywords that do not constrain a value.
var annotations = map[string]bool{
	"$schema": true, "$id": true, "$comment": true, "$defs": true, "title": true, "description": true,
	"examples": true, "default": true, "deprecated": true, "readOnly": true, "writeOnly": true,
	"format": true, // an annotation in 2020-12 unless a validator asserts formats
}

func (c *compiler) compile(v any, ptr string) (*node, error) {
	if n, ok := c.byPtr[ptr]; ok {
		return n, nil
	}
	n := &node{}
	c.byPtr[ptr] = n
	switch s := v.(type) {
	case bool:
		n.never = !s
		return n, nil
	case map[string]any:
		if id, ok := s["$id"]; ok && ptr != "#" {
			return nil, fmt.Errorf("%w: $id at %s (%v)", ErrUnsupported, ptr, id)
		}
		for k, kv := range s {
			if err := c.keyword(n, k, kv, ptr); err != nil {
				return nil, err
			}
		}
		return n, nil
	}
	return nil, fmt.Errorf("schemacheck: %s is not a schema", ptr)
}

func (c *compiler) sub(v any, ptr string) (*node, error) { return c.compile(v, ptr) }

func (c *compiler) subs(v any, ptr string) ([]*node, error) {
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("schemacheck: %s is not an array", ptr)
	}
	out := make([]*node, len(list))
	for i, e := range list {
		n, err := c.sub(e, ptr+"/"+strconv.Itoa(i))
		if err != nil {
			return nil, err
		}
		out[i] = n
	}
	return out, nil
}

func (c *compiler) keyword(n *node, k string, v any, ptr string) error {
	if annotations[k] {
		return nil
	}
	p := ptr + "/" + escape(k)
	var err error
	switch k {
	case "type":
		n.types, err = typeBits(v)
	case "const":
		n.konst = &set{}
		n.konst.add(v)
	case "enum":
		list, ok := v.([]any)
		if !ok {
			return fmt.Errorf("schemacheck: enum at %s is not an array", ptr)
		}
		n.enum = &set{}
		for _, e := range list {
			n.enum.add(e)
		}
	case "required":
		list, ok := v.([]any)
		if !ok {
			return fmt.Errorf("schemacheck: required at %s is not an array", ptr)
		}
		for _, e := range list {
			s, ok := e.(string)
			if !ok {
				return fmt.Errorf("schemacheck: required at %s holds a non-string", ptr)
			}
			n.required = append(n.required, s)
		}
	case "properties":
		m, ok := v.(map[string]any)
		if !ok {
			return fmt.Errorf("schemacheck: properties at %s is not an object", ptr)
		}
		n.props = map[string]*node{}
		for name, sv := range m {
			if n.props[name], err = c.sub(sv, p+"/"+escape(name)); err != nil {
				return err
			}
		}
	case "additionalProperties":
		n.additional, err = c.sub(v, p)
	case "items":
		n.items, err = c.sub(v, p)
	case "allOf":
		if n.allOf, err = c.subs(v, p); err == nil {
			n.dispatch = dispatchOf(v, n.allOf)
		}
	case "anyOf":
		n.anyOf, err = c.subs(v, p)
	case "oneOf":
		n.oneOf, err = c.subs(v, p)
	case "not":
		n.not, err = c.sub(v, p)
	case "if":
		n.ifN, err = c.sub(v, p)
	case "then":
		n.thenN, err = c.sub(v, p)
	case "else":
		n.elseN, err = c.sub(v, p)
	case "$ref":
		s, ok := v.(string)
		if !ok || !strings.HasPrefix(s, "#") {
			return fmt.Errorf("%w: $ref %v at %s", ErrUnsupported, v, ptr)
		}
		c.refs = append(c.refs, pendingRef{n, s})
	case "minimum":
		n.min, err = boundOf(v, ptr)
	case "maximum":
		n.max, err = boundOf(v, ptr)
	case "minLength":
		num, ok := v.(json.Number)
		m, perr := strconv.Atoi(string(num))
		if !ok || perr != nil || m < 0 {
			return fmt.Errorf("schemacheck: minLength at %s", ptr)
		}
		n.minLength, n.hasMinLen = m, true
	case "pattern":
		s, ok := v.(string)
		if !ok {
			return fmt.Errorf("schemacheck: pattern at %s", ptr)
		}
		n.hasPattern = true
		n.pattern, _ = regexp.Compile(s) // nil: unsure
	default:
		return fmt.Errorf("%w: %q at %s", ErrUnsupported, k, ptr)
	}
	return err
}

// set is the members of an enum or a const, by kind. Members it cannot
// compare exactly (objects, arrays, numbers with a fraction or exponent)
// only make it unsure.
type set struct {
	strs  map[string]bool
	ints  []*big.Int
	bools [2]bool // false, true
	null  bool
	other bool
}

func (m *set) add(v any) {
	switch x := v.(type) {
	case string:
		if m.strs == nil {
			m.strs = map[string]bool{}
		}
		m.strs[x] = true
		return
	case bool:
		if x {
			m.bools[1] = true
		} else {
			m.bools[0] = true
		}
		return
	case nil:
		m.null = true
		return
	case json.Number:
		if plainInt(string(x)) {
			if i, ok := new(big.Int).SetString(string(x), 10); ok {
				m.ints = append(m.ints, i)
				return
			}
		}
	}
	m.other = true
}

// has judges whether v is a member.
func (m *set) has(v gjson.Result) Verdict {
	found := false
	switch {
	case v.Type == gjson.String:
		found = m.strs[jsonobj.Text(v)]
	case v.Type == gjson.True:
		found = m.bools[1]
	case v.Type == gjson.False:
		found = m.bools[0]
	case v.Type == gjson.Null:
		found = m.null
	case v.Type == gjson.Number:
		if !plainInt(v.Raw) || len(v.Raw) > 4096 {
			if m.ints != nil || m.other {
				return Unsure // 1.0 equals 1 to JSON Schema; let the engine judge
			}
			return Invalid
		}
		x, _ := new(big.Int).SetString(v.Raw, 10)
		for _, i := range m.ints {
			if x != nil && x.Cmp(i) == 0 {
				found = true
			}
		}
	}
	if found {
		return Valid
	}
	if m.other {
		return Unsure
	}
	return Invalid
}

func (c *compiler) resolve(ref string) (*node, error) {
	if n, ok := c.byPtr[ref]; ok {
		return n, nil
	}
	// Walk the document to the referenced value and compile it there.
	var cur any = c.root
	if ref != "#" {
		if !strings.HasPrefix(ref, "#/") {
			return nil, fmt.Errorf("%w: $ref %s", ErrUnsupported, ref)
		}
		for _, tok := range strings.Split(ref[2:], "/") {
			tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
			m, ok := cur.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("schemacheck: $ref %s does not resolve", ref)
			}
			if cur, ok = m[tok]; !ok {
				return nil, fmt.Errorf("schemacheck: $ref %s does not resolve", ref)
			}
		}
	}
	return c.compile(cur, ref)
}

func escape(k string) string {
	return strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
}

func typeBits(v any) (int, error) {
	one := func(s string) (int, error) {
		switch s {
		case "null":
			return tNull, nil
		case "boolean":
			return tBool, nil
		case "integer":
			return tInteger, nil
		case "number":
			return tNumber, nil
		case "string":
			return tString, nil
		case "array":
			return tArray, nil
		case "object":
			return tObject, nil
		}
		return 0, fmt.Errorf("schemacheck: unknown type %q", s)
	}
	switch t := v.(type) {
	case string:
		return one(t)
	case []any:
		bits := 0
		for _, e := range t {
			s, ok := e.(string)
			if !ok {
				return 0, errors.New("schemacheck: type list holds a non-string")
			}
			b, err := one(s)
			if err != nil {
				return 0, err
			}
			bits |= b
		}
		return bits, nil
	}
	return 0, errors.New("schemacheck: type is neither a string nor a list")
}

func boundOf(v any, ptr string) (*bound, error) {
	num, ok := v.(json.Number)
	if !ok {
		return nil, fmt.Errorf("schemacheck: bound at %s is not a number", ptr)
	}
	r, ok := new(big.Rat).SetString(string(num))
	if !ok {
		return nil, fmt.Errorf("schemacheck: bound at %s", ptr)
	}
	b := &bound{r: r}
	if r.IsInt() && r.Sign() >= 0 && r.Num().IsUint64() {
		b.u64, b.ok = r.Num().Uint64(), true
	}
	if r.IsInt() && r.Num().IsInt64() {
		b.i64, b.iok = r.Num().Int64(), true
	}
	if f, ok := shortFloat(string(num)); ok {
		b.f64, b.fok = f, true
	}
	return b, nil
}

// dispatchOf recognises an allOf whose every entry picks a branch by the
// const value of one property.
func dispatchOf(v any, compiled []*node) *dispatch {
	list, _ := v.([]any)
	d := &dispatch{branches: map[string]*node{}}
	for i, e := range list {
		m, _ := e.(map[string]any)
		cond, _ := m["if"].(map[string]any)
		props, _ := cond["properties"].(map[string]any)
		if len(m) != 2 || len(cond) != 1 || len(props) != 1 || m["then"] == nil {
			return nil
		}
		for p, pv := range props {
			c, _ := pv.(map[string]any)
			s, isStr := c["const"].(string)
			if len(c) != 1 || !isStr || (d.prop != "" && d.prop != p) {
				return nil
			}
			if _, dup := d.branches[s]; dup {
				return nil
			}
			d.prop = p
			d.branches[s] = compiled[i].thenN
		}
	}
	if d.prop == "" {
		return nil
	}
	return d
}
