package geminichat

import "time"

// Gemini CLI stamps records with JavaScript's Date.toISOString(): UTC,
// milliseconds, "Z". The canonical time has microseconds.
const (
	jsLayout    = "2006-01-02T15:04:05.000Z"
	canonLayout = "2006-01-02T15:04:05.000000Z"
)

// canonTime returns the canonical time of a timestamp and whether it is in
// Gemini CLI's own form. A timestamp in another RFC 3339 form (another
// offset, more or fewer digits) still gives a time; a text that is no time
// gives none.
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

// isISOTime reports whether a timestamp is an RFC 3339 time, as
// Date.toISOString() writes one.
func isISOTime(ts string) bool {
	_, err := time.Parse(time.RFC3339Nano, ts)
	return err == nil
}
