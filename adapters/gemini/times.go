package gemini

import (
	"time"

	"github.com/evtool/evtool/adapters/internal/geminicli"
)

// wireTime renders a canonical time as Gemini CLI writes it. exact is
// false when the time has sub-millisecond digits, which are dropped.
func wireTime(t string) (ts string, exact, ok bool) {
	tt, err := time.Parse(geminicli.CanonLayout, t)
	if err != nil {
		if tt, err = time.Parse(time.RFC3339Nano, t); err != nil {
			return "", false, false
		}
	}
	tt = tt.UTC()
	return tt.Format(geminicli.JSLayout), tt.Nanosecond()%int(time.Millisecond) == 0, true
}

// millisBetween returns the whole milliseconds from canonical time a to b,
// and false when either is missing or b is before a.
func millisBetween(a, b string) (uint64, bool) {
	ta, err1 := time.Parse(geminicli.CanonLayout, a)
	tb, err2 := time.Parse(geminicli.CanonLayout, b)
	if err1 != nil || err2 != nil || tb.Before(ta) {
		return 0, false
	}
	return uint64(tb.Sub(ta) / time.Millisecond), true
}
