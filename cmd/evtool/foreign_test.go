package main

import (
	"bytes"
	"strconv"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// Lines that real captures hold beside the producer's own: stderr merged
// into stdout (Gemini CLI's banners, Codex's note on stdin), a comment
// added by whoever saved the file, and a wrapper's JSON log line, which is
// JSON of no dialect.
var (
	bannersBefore = []string{
		"YOLO mode is enabled. All tool calls will be automatically approved.",
		"Loaded cached credentials.",
		"# saved from a CI run",
		`{"level":"info","msg":"agent started","pid":4242}`,
		"Reading additional input from stdin...",
	}
	bannerBetween = "Warning: True color (24-bit) support not detected. Using a terminal with true color enabled will result in a better visual experience."
)

// withBanners returns data with the banners before its first line (the
// JSON one only if json is set) and one banner after its middle line.
func withBanners(data []byte, json bool) []byte {
	lines := bytes.SplitAfter(data, []byte("\n"))
	var out []byte
	for _, b := range bannersBefore {
		if json || b[0] != '{' {
			out = append(out, b+"\n"...)
		}
	}
	mid := len(lines) / 2
	for i, l := range lines {
		out = append(out, l...)
		if i == mid && len(l) > 0 && l[len(l)-1] == '\n' {
			out = append(out, bannerBetween+"\n"...)
		}
	}
	return out
}

// withoutUnknown returns a canonical stream without its unknown events and
// with its seq members removed, so that two streams that differ only by
// the unknown events that keep foreign lines compare equal.
func withoutUnknown(s string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l == "" || gjson.Get(l, "type").Str == "unknown" {
			continue
		}
		seq := gjson.Get(l, "seq")
		if seq.Exists() {
			l = l[:seq.Index] + "0" + l[seq.Index+len(seq.Raw):]
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}

// TestForeignLines converts every test stream of every dialect, with
// foreign lines (banners that are not JSON, a JSON log line of no dialect)
// before its first line and between its events, into every dialect,
// detecting the source dialect as a user would (no --from). A foreign line
// is reported where it stands and changes no other line's meaning:
//
//   - the source dialect is detected through the banners;
//   - the output validates in its target whenever the output of the clean
//     stream does;
//   - the output is the clean stream's output, byte for byte (for
//     canonical: once the unknown events that keep the foreign lines and
//     the seq numbers are left aside), so the session id, the model and
//     every item type are the source's;
//   - --on-error skip writes exactly the clean stream's output.
func TestForeignLines(t *testing.T) {
	names := registered()
	for _, from := range names {
		for _, s := range streamsOf(t, from) {
			for _, to := range targets() {
				// A JSON line of no dialect is kept as an unknown event of
				// the source dialect, which a writer of the same dialect
				// writes back as it was (as any line of the source it
				// cannot read): only a writer of another dialect drops it.
				dirty := withBanners(s.data, to != from)
				t.Run(from+"/"+s.label+"→"+to, func(t *testing.T) {
					clean, _, code := evtool(t, s.data, "convert", "--to", to)
					if code != 0 {
						t.Skipf("the clean stream does not convert without --from (exit %d)", code)
					}
					cleanValid := true
					if _, _, vcode := evtool(t, []byte(clean), "validate", "--dialect", to, "-"); vcode != 0 {
						cleanValid = false
					}

					out, stderr, code := evtool(t, dirty, "convert", "--to", to)
					if code != 1 {
						t.Fatalf("convert of the stream with banners exited %d, want 1 (lines with problems):\n%s", code, stderr)
					}
					if !strings.Contains(stderr, ":1:1: error: invalid JSON") {
						t.Errorf("the first banner is not reported at line 1:\n%s", firstLines(stderr, 10))
					}
					if cleanValid {
						vout, verr, vcode := evtool(t, []byte(out), "validate", "--dialect", to, "-")
						if vcode != 0 {
							t.Fatalf("the %s output does not validate (exit %d):\n%s%s\noutput:\n%s", to, vcode, firstLines(vout, 10), verr, firstLines(out, 20))
						}
					}
					got, want := out, clean
					if to == "canonical" {
						got, want = withoutUnknown(out), withoutUnknown(clean)
					}
					if got != want {
						t.Errorf("the output differs from the clean stream's:\n%s", firstDiff(want, got))
					}

					skipped, _, _ := evtool(t, dirty, "convert", "--on-error", "skip", "--to", to)
					if skipped != clean {
						t.Errorf("with --on-error skip the output differs from the clean stream's:\n%s", firstDiff(clean, skipped))
					}
				})
			}
		}
	}
}

// firstDiff shows the first line where two outputs differ.
func firstDiff(want, got string) string {
	a, b := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := range max(len(a), len(b)) {
		var x, y string
		if i < len(a) {
			x = a[i]
		}
		if i < len(b) {
			y = b[i]
		}
		if x != y {
			return "line " + strconv.Itoa(i+1) + ":\nwant " + x + "\n got " + y
		}
	}
	return "(equal)"
}
