package dialect

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/evtool/evtool/event"

	"github.com/evtool/evtool/internal/jsonobj"
	"github.com/tidwall/gjson"
)

// LossVerb says what an encoder did to a fact its target cannot carry as is.
type LossVerb string

// The loss verbs.
const (
	// Dropped: the target cannot say the fact at all.
	Dropped LossVerb = "dropped"
	// Approximated: the target can say it only approximately.
	Approximated LossVerb = "approximated"
	// Synthesized: the target needs a line that no source line stands
	// behind, built from canonical facts or defaults.
	Synthesized LossVerb = "synthesized"
)

// LossKind is one entry of a loss catalogue, as a Rule is one entry of a
// rule catalogue: a stable id, what is lost (worded for a count of one and
// for any other count) and why. Each adapter declares the kinds its encoder
// counts in its own folder and publishes them through LossLister; the kinds
// every encoder shares are declared here.
type LossKind struct {
	// ID is "<dialect>/<name>", or "ext/<name>" for a shared kind.
	ID   string
	Verb LossVerb
	// One and Many name what is lost for a count of one and for any other
	// count: "usage event", "usage events". A kind with a detail (an event
	// type, a status) writes it where %[1]s stands.
	One, Many string
	// Why says why the target cannot carry it.
	Why string
}

// DropKind declares a kind of fact the target cannot say at all.
func DropKind(id, one, many, why string) *LossKind {
	return &LossKind{ID: id, Verb: Dropped, One: one, Many: many, Why: why}
}

// ApproximateKind declares a kind of fact the target can say only
// approximately.
func ApproximateKind(id, one, many, why string) *LossKind {
	return &LossKind{ID: id, Verb: Approximated, One: one, Many: many, Why: why}
}

// SynthesizeKind declares a kind of line the target needs that no source
// line stands behind.
func SynthesizeKind(id, one, many, why string) *LossKind {
	return &LossKind{ID: id, Verb: Synthesized, One: one, Many: many, Why: why}
}

// HasDetail reports whether the kind's wording takes a detail.
func (k *LossKind) HasDetail() bool { return strings.Contains(k.Many, "%[1]s") }

// noun words n facts of the kind.
func (k *LossKind) noun(n int, detail string) string {
	w := k.Many
	if n == 1 {
		w = k.One
	}
	if k.HasDetail() {
		return fmt.Sprintf(w, detail)
	}
	return w
}

// LossLister is implemented by dialects that publish their loss catalogue:
// every kind their encoder counts.
type LossLister interface {
	LossKinds() []*LossKind
}

// LossForeign is the shared kind every encoder counts for the residue
// another dialect left on an event (ext.<dialect>).
var LossForeign = DropKind("ext/other-dialect",
	"event's ext.%[1]s fields", "events' ext.%[1]s fields",
	"another dialect's residue has no place in the target")

// SharedLossKinds lists the kinds declared here, which any encoder may count.
func SharedLossKinds() []*LossKind { return []*LossKind{LossForeign} }

// Losses counts, per kind (and detail), the facts an encoder dropped,
// approximated or synthesized because its target cannot carry them as
// they are. The converter tells it the input line being converted
// (SetLine), so that each loss knows the first line it happened on.
type Losses struct {
	mu   sync.Mutex
	m    map[lossKey]*Loss
	line int
}

type lossKey struct {
	kind   *LossKind
	detail string
}

// Loss is one kind of loss and how often it happened.
type Loss struct {
	// ID is the kind's catalogue id.
	ID string
	// Verb is "dropped", "approximated" or "synthesized" (a LossVerb).
	Verb string
	// Kind names what was lost, worded for Count: "1 usage event",
	// "2 usage events".
	Kind string
	// Detail is what a kind with a detail was counted for (an event type,
	// a status), else "".
	Detail string
	// Why says why the target cannot carry it.
	Why   string
	Count int
	// FirstLine is the input line whose conversion first counted it; the
	// last line for what the end of the stream implied; 0 when no line
	// was told.
	FirstLine int

	kind *LossKind
}

// String renders a loss as the summary line evtool prints on stderr.
func (l *Loss) String() string {
	return fmt.Sprintf("%s %d %s (%s)", l.Verb, l.Count, l.Kind, l.Why)
}

// LossKind returns the catalogue entry the loss was counted under.
func (l *Loss) LossKind() *LossKind { return l.kind }

// SetLine says which input line the events encoded next come from.
func (ls *Losses) SetLine(n int) {
	ls.mu.Lock()
	ls.line = n
	ls.mu.Unlock()
}

// Add counts one fact of a kind.
func (ls *Losses) Add(k *LossKind) { ls.AddDetail(k, "") }

// AddDetail counts one fact of a kind whose wording takes a detail (an
// event type, a status); each detail is counted apart.
func (ls *Losses) AddDetail(k *LossKind, detail string) {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	if ls.m == nil {
		ls.m = map[lossKey]*Loss{}
	}
	key := lossKey{k, detail}
	l := ls.m[key]
	if l == nil {
		l = &Loss{ID: k.ID, Verb: string(k.Verb), Detail: detail, Why: k.Why, FirstLine: ls.line, kind: k}
		ls.m[key] = l
	}
	l.Count++
}

// List returns the losses sorted by verb, then by what was lost.
func (ls *Losses) List() []*Loss {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	out := make([]*Loss, 0, len(ls.m))
	for _, l := range ls.m {
		l.Kind = l.kind.noun(l.Count, l.Detail)
		out = append(out, l)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Verb != out[j].Verb {
			return out[i].Verb < out[j].Verb
		}
		ni, nj := out[i].kind.noun(2, out[i].Detail), out[j].kind.noun(2, out[j].Detail)
		if ni != nj {
			return ni < nj
		}
		// Two kinds may share a noun ("turn end"): the id decides, so
		// the report is the same bytes every time.
		if out[i].ID != out[j].ID {
			return out[i].ID < out[j].ID
		}
		return out[i].Detail < out[j].Detail
	})
	return out
}

// Empty reports whether nothing was lost.
func (ls *Losses) Empty() bool {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	return len(ls.m) == 0
}

// Foreign counts the residue another dialect left on an event, which a
// target of a different dialect cannot write. evtool's own bookkeeping keys
// (starting with '@') and source line numbering ("seq") are not facts of
// the run and are not counted.
func (ls *Losses) Foreign(ext event.Ext, self string) {
	for _, e := range ext {
		d, raw := e.Dialect, e.Raw
		if d == self {
			continue
		}
		facts := false
		jsonobj.ForEach(gjson.ParseBytes(raw), func(k, _ gjson.Result) bool {
			if k.Str != "seq" && !strings.HasPrefix(k.Str, "@") {
				facts = true
			}
			return !facts
		})
		if facts {
			ls.AddDetail(LossForeign, d)
		}
	}
}

// CheckLossKinds checks a loss catalogue: ids unique and under prefix
// ("<dialect>/"), every kind worded for one and for many, a detail in both
// wordings or in neither, a reason given. Tests of every adapter run it.
func CheckLossKinds(prefix string, kinds []*LossKind) error {
	seen := map[string]bool{}
	for _, k := range kinds {
		switch {
		case !strings.HasPrefix(k.ID, prefix) || len(k.ID) == len(prefix):
			return fmt.Errorf("loss kind %q: id must start with %q", k.ID, prefix)
		case seen[k.ID]:
			return fmt.Errorf("loss kind %q declared twice", k.ID)
		}
		if err := checkLossKind(k); err != nil {
			return err
		}
		seen[k.ID] = true
	}
	return nil
}

// checkLossKind checks one kind's wording and verb.
func checkLossKind(k *LossKind) error {
	switch {
	case k.One == "" || k.Many == "" || k.Why == "":
		return fmt.Errorf("loss kind %q: One, Many and Why must be set", k.ID)
	case k.Verb != Dropped && k.Verb != Approximated && k.Verb != Synthesized:
		return fmt.Errorf("loss kind %q: unknown verb %q", k.ID, k.Verb)
	case strings.Contains(k.One, "%[1]s") != k.HasDetail():
		return fmt.Errorf("loss kind %q: the detail must be in both wordings or in neither", k.ID)
	}
	return nil
}
