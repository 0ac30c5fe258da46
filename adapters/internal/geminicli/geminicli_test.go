package geminicli

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestCanonTimeShortCut holds CanonTime to time.Parse and Format on
// times of Gemini CLI's form, in and out of range (leap days, the 31st
// of short months, hour 24, second 60, year 0), and on near misses.
func TestCanonTimeShortCut(t *testing.T) {
	cases := []string{
		"2026-03-14T09:26:53.589Z", "2024-02-29T00:00:00.000Z", "2023-02-29T00:00:00.000Z",
		"2100-02-29T12:00:00.000Z", "2000-02-29T12:00:00.000Z", "2026-04-31T00:00:00.000Z",
		"2026-12-31T23:59:59.999Z", "2026-13-01T00:00:00.000Z", "2026-00-01T00:00:00.000Z",
		"2026-01-00T00:00:00.000Z", "2026-01-01T24:00:00.000Z", "2026-01-01T23:60:00.000Z",
		"2026-01-01T23:59:60.000Z", "0000-01-01T00:00:00.000Z", "9999-12-31T23:59:59.999Z",
		"2026-01-01T00:00:00.000+00:00", "2026-01-01T00:00:00Z", "2026-01-01T00:00:00.0000Z",
		"2026-01-01 00:00:00.000Z", "2026-01-01T00:00:00.000z", "２026-01-01T00:00:00.000Z", "",
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 20000 {
		cases = append(cases, fmt.Sprintf("%04d-%02d-%02dT%02d:%02d:%02d.%03dZ",
			rng.IntN(10000), rng.IntN(14), rng.IntN(33), rng.IntN(26), rng.IntN(62), rng.IntN(62), rng.IntN(1000)))
	}
	if !jsTime("2024-02-29T23:59:59.999Z") || jsTime("2023-02-29T23:59:59.999Z") {
		t.Fatal("jsTime: a leap day's time is Gemini CLI's form, a day that is not is not")
	}
	short := 0
	for _, ts := range cases {
		if jsTime(ts) {
			short++
		}
		got, gotExact := CanonTime(ts)
		want, wantExact := parsedTime(ts)
		if got != want || gotExact != wantExact {
			t.Errorf("CanonTime(%q) = %q, %v; time.Parse and Format give %q, %v", ts, got, gotExact, want, wantExact)
		}
	}
	if short < 1000 {
		t.Errorf("the short cut read %d of %d times: the test does not hold it", short, len(cases))
	}
}
