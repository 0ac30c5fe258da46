package dialect

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/tidwall/gjson"
)

// Losses counts, per kind, the facts an encoder dropped or approximated
// because its target cannot carry them.
type Losses struct {
	m map[string]*Loss
}

// Loss is one kind of loss and how often it happened.
type Loss struct {
	// Kind names what was lost, e.g. "usage events".
	Kind string
	// Verb is "dropped" or "approximated".
	Verb string
	// Why says why the target cannot carry it.
	Why   string
	Count int
}

// String renders a loss as the summary line evtool prints on stderr.
func (l *Loss) String() string {
	return fmt.Sprintf("%s %d %s (%s)", l.Verb, l.Count, l.Kind, l.Why)
}

// Drop counts one fact of a kind that the target cannot say at all.
func (ls *Losses) Drop(kind, why string) { ls.add("dropped", kind, why) }

// Approximate counts one fact that the target can say only approximately.
func (ls *Losses) Approximate(kind, why string) { ls.add("approximated", kind, why) }

func (ls *Losses) add(verb, kind, why string) {
	if ls.m == nil {
		ls.m = map[string]*Loss{}
	}
	key := verb + "\x00" + kind
	l := ls.m[key]
	if l == nil {
		l = &Loss{Kind: kind, Verb: verb, Why: why}
		ls.m[key] = l
	}
	l.Count++
}

// List returns the losses sorted by verb and kind.
func (ls *Losses) List() []*Loss {
	out := make([]*Loss, 0, len(ls.m))
	for _, l := range ls.m {
		out = append(out, l)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Verb != out[j].Verb {
			return out[i].Verb < out[j].Verb
		}
		return out[i].Kind < out[j].Kind
	})
	return out
}

// Empty reports whether nothing was lost.
func (ls *Losses) Empty() bool { return len(ls.m) == 0 }

// Synthesize counts one line the target needs that no source line stands
// behind, built from canonical facts or defaults.
func (ls *Losses) Synthesize(kind, why string) { ls.add("synthesized", kind, why) }

// Foreign counts the residue another dialect left on an event, which a
// target of a different dialect cannot write. evtool's own bookkeeping keys
// (starting with '@') and source line numbering ("seq") are not facts of
// the run and are not counted.
func (ls *Losses) Foreign(ext map[string]json.RawMessage, self string) {
	for d, raw := range ext {
		if d == self {
			continue
		}
		facts := false
		gjson.ParseBytes(raw).ForEach(func(k, _ gjson.Result) bool {
			if k.Str != "seq" && !strings.HasPrefix(k.Str, "@") {
				facts = true
			}
			return !facts
		})
		if facts {
			ls.Drop(d+"-only fields (ext."+d+")", self+" has no place for them")
		}
	}
}
