package gemini

import (
	"time"
)

// Gemini CLI stamps each line with JavaScript's Date.toISOString(): UTC,
// milliseconds, "Z". The canonical time has microseconds.
const (
	jsLayout    = "2006-01-02T15:04:05.000Z"
	canonLayout = "2006-01-02T15:04:05.000000Z"
)

// canonTime returns the canonical time of a timestamp and whether it
// renders back to the same text. A timestamp in another RFC 3339 form
// (another offset, more or fewer digits) still gives a time, inexactly; a
// text that is no time gives none.
func canonTime(ts string) (t string, exact bool) {
	if len(ts) == len(jsLayout) {
		if tt, err := time.Parse(jsLayout, ts); err == nil && tt.Format(jsLayout) == ts {
			return tt.Format(canonLayout), true
		}
	}
	tt, err := time.Parse(time.RFC3339Nano, ts)
	if err != nil || tt.UTC().Year() > 9999 || tt.UTC().Year() < 0 {
		return "", false
	}
	return tt.UTC().Format(canonLayout), false
}

// wireTime renders a canonical time as Gemini CLI writes it. exact is
// false when the time has sub-millisecond digits, which are dropped.
func wireTime(t string) (ts string, exact, ok bool) {
	tt, err := time.Parse(canonLayout, t)
	if err != nil {
		if tt, err = time.Parse(time.RFC3339Nano, t); err != nil {
			return "", false, false
		}
	}
	tt = tt.UTC()
	return tt.Format(jsLayout), tt.Nanosecond()%int(time.Millisecond) == 0, true
}

// millisBetween returns the whole milliseconds from canonical time a to b,
// and false when either is missing or b is before a.
func millisBetween(a, b string) (uint64, bool) {
	ta, err1 := time.Parse(canonLayout, a)
	tb, err2 := time.Parse(canonLayout, b)
	if err1 != nil || err2 != nil || tb.Before(ta) {
		return 0, false
	}
	return uint64(tb.Sub(ta) / time.Millisecond), true
}

// isISOTime reports whether a timestamp is an RFC 3339 time, as the
// producer's Date.toISOString() writes one.
func isISOTime(ts string) bool {
	_, err := time.Parse(time.RFC3339Nano, ts)
	return err == nil
}
