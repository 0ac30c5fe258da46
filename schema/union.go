package schema

import (
	"encoding/json"
	"strings"
)

// Union is the shape of a dialect's schema: a root oneOf of $refs, one per
// event type, each holding the tag (a property, "type" mostly) to a const
// (or, for muse's run.terminal.*, to a pattern), and at most one for any
// other type.
type Union struct {
	Tag      string            // the property that tells the branches apart
	Branches map[string]string // the $ref of the branch of each tag value
	Patterns map[string]string // the $ref of the branch of each pattern of tag values
	Other    string            // the $ref of the "any other type" branch; "" for a closed union
}

// UnionOf reads the tagged union at the root of a schema document, and
// reports false when the root is not one (codex-rollout's and
// gemini-chat's lines are told apart by the keys they hold).
//
// A validator may check a line against the branch of its tag alone: a
// line whose tag is a key of Branches satisfies the whole schema exactly
// when it satisfies that branch; one whose tag matches a pattern of
// Patterns, that branch; one whose tag is any other string, Other (and
// none when Other is ""). A line with no tag, or a tag that is not a
// string, satisfies no branch.
func UnionOf(doc []byte) (*Union, bool) {
	var root struct {
		OneOf []ref           `json:"oneOf"`
		Defs  map[string]*def `json:"$defs"`
	}
	if json.Unmarshal(doc, &root) != nil || len(root.OneOf) < 2 {
		return nil, false
	}
	u := &Union{Branches: map[string]string{}, Patterns: map[string]string{}}
	for _, b := range root.OneOf {
		d := root.Defs[b.name()]
		if d == nil {
			return nil, false
		}
		tags := d.tags(root.Defs, 0)
		switch {
		case len(tags) == 1 && tags[0].value != "":
			t := tags[0]
			if u.Tag != "" && u.Tag != t.prop {
				return nil, false
			}
			if _, dup := u.Branches[t.value]; dup {
				return nil, false
			}
			u.Tag, u.Branches[t.value] = t.prop, b.Ref
		case len(tags) == 1 && tags[0].pattern != "":
			t := tags[0]
			if u.Tag != "" && u.Tag != t.prop {
				return nil, false
			}
			u.Tag, u.Patterns[t.pattern] = t.prop, b.Ref
		case len(tags) == 1 && tags[0].other && u.Other == "":
			if u.Tag != "" && u.Tag != tags[0].prop {
				return nil, false
			}
			u.Tag, u.Other = tags[0].prop, b.Ref
		default:
			return nil, false
		}
	}
	if u.Tag == "" || len(u.Branches) == 0 {
		return nil, false
	}
	return u, true
}

type ref struct {
	Ref string `json:"$ref"`
}

func (r ref) name() string {
	n, ok := strings.CutPrefix(r.Ref, "#/$defs/")
	if !ok || strings.ContainsAny(n, "~%") {
		return ""
	}
	return n
}

type def struct {
	OneOf      []ref    `json:"oneOf"`
	Required   []string `json:"required"`
	Properties map[string]struct {
		Const   any    `json:"const"`
		Type    any    `json:"type"`
		Pattern string `json:"pattern"`
		Not     *struct {
			Enum  []any `json:"enum"`
			AnyOf []any `json:"anyOf"`
		} `json:"not"`
	} `json:"properties"`
}

// tag is how a branch holds its tag: to a value, a pattern, or out of a
// list (the "other" branch).
type tag struct {
	prop, value, pattern string
	other                bool
}

// tags returns how a branch may hold its tag: a required property held to
// a string const, to a pattern, or out of a list. A nested union holds it
// as all its branches do.
func (d *def) tags(defs map[string]*def, depth int) []tag {
	if len(d.OneOf) > 0 && d.Properties == nil && depth < 8 {
		var common []tag
		for i, b := range d.OneOf {
			m := defs[b.name()]
			if m == nil {
				return nil
			}
			ts := m.tags(defs, depth+1)
			if i == 0 {
				common = ts
				continue
			}
			var keep []tag
			for _, t := range common {
				for _, o := range ts {
					if t.value != "" && t == o {
						keep = append(keep, t)
					}
				}
			}
			common = keep
		}
		return common
	}
	var out []tag
	for p, s := range d.Properties {
		required := false
		for _, r := range d.Required {
			required = required || r == p
		}
		switch c, isStr := s.Const.(string); {
		case isStr && required:
			out = append(out, tag{prop: p, value: c})
		case s.Type == "string" && s.Pattern != "" && s.Not == nil && required:
			out = append(out, tag{prop: p, pattern: s.Pattern})
		case s.Not != nil && (len(s.Not.Enum) > 0 || len(s.Not.AnyOf) > 0):
			out = append(out, tag{prop: p, other: true})
		}
	}
	return out
}
