package stats

import (
	"slices"
)

// Totals add up runs. A run whose reading ended early (Run.Err) is
// counted in Failed and its figures are left out.
type Totals struct {
	// Runs counts the runs added up; Failed those left out.
	Runs, Failed uint64
	// Lines and BadLines are the runs' sums.
	Lines, BadLines uint64
	// Dialects counts the runs by dialect.
	Dialects map[string]uint64
	// Models are every run's models, in the order they first appear.
	Models []string
	// Turns and Rounds are the sums over the runs that state them; nil
	// when none does.
	Turns, Rounds *uint64
	// ToolCalls is the runs' sum.
	ToolCalls ToolCalls
	// Usage is the sum, count by count, over the runs that state each;
	// Saturated lists the counts that exceeded 2^64-1 here or in a run.
	Usage Usage
	// Stating counts, for "turns", "rounds", each token name and
	// "cost_usd", the runs that state it, so that a sum over fewer runs
	// than Runs can be told.
	Stating map[string]uint64

	cost decimal
}

// Add adds a run.
func (t *Totals) Add(r *Run) {
	if r.Err != nil {
		t.Failed++
		return
	}
	if t.Dialects == nil {
		t.Dialects, t.Stating = map[string]uint64{}, map[string]uint64{}
		t.Usage.Tokens = map[Token]uint64{}
	}
	t.Runs++
	t.Lines = satAdd(t.Lines, r.Lines, nil)
	t.BadLines = satAdd(t.BadLines, r.BadLines, nil)
	t.Dialects[r.Dialect]++
	for _, m := range r.Models {
		if !slices.Contains(t.Models, m) {
			t.Models = append(t.Models, m)
		}
	}
	t.Turns = t.addCount("turns", t.Turns, r.Turns)
	t.Rounds = t.addCount("rounds", t.Rounds, r.Rounds)
	t.ToolCalls.add(r.ToolCalls)
	var sat [len(tokens)]bool
	for i, tok := range tokens {
		v, ok := r.Usage.Tokens[tok.name]
		if !ok {
			continue
		}
		t.Stating[string(tok.name)]++
		t.Usage.Tokens[tok.name] = satAdd(t.Usage.Tokens[tok.name], v, &sat[i])
		if slices.Contains(r.Usage.Saturated, tok.name) {
			sat[i] = true
		}
	}
	for i, tok := range tokens {
		if sat[i] && !slices.Contains(t.Usage.Saturated, tok.name) {
			t.Usage.Saturated = append(t.Usage.Saturated, tok.name)
		}
	}
	slices.SortFunc(t.Usage.Saturated, func(a, b Token) int { return tokenIndex(a) - tokenIndex(b) })
	if r.Usage.CostUSD != "" {
		// A run's cost is a decimal this package wrote: it parses.
		if d, err := parseDecimal(r.Usage.CostUSD); err == nil {
			t.Stating["cost_usd"]++
			t.cost.add(&d)
			t.Usage.CostUSD = t.cost.String()
		}
	}
}

func (t *Totals) addCount(name string, sum, n *uint64) *uint64 {
	if n == nil {
		return sum
	}
	t.Stating[name]++
	var v uint64
	if sum != nil {
		v = *sum
	}
	v = satAdd(v, *n, nil)
	return &v
}

func tokenIndex(name Token) int {
	for i, t := range tokens {
		if t.name == name {
			return i
		}
	}
	return len(tokens)
}
