package view_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/stats"
	"github.com/evtool/evtool/stream"
	"github.com/evtool/evtool/view"
)

// TestCountsAsStats: for every test stream, the page's figures are
// evtool stats' (view.Read counts with stats.Counter; this reads the
// stream a second time through stats.Read), and the page holds one turn
// section per turn and one card per tool call. The browser test counts
// them again in the DOM.
func TestCountsAsStats(t *testing.T) {
	for _, c := range testStreams(t) {
		run, st := readBoth(t, c, view.Limits{})
		if (run.Err == nil) != (st.Err == nil) || count(run.Stats.Turns) != count(st.Turns) ||
			run.Stats.ToolCalls.Total != st.ToolCalls.Total || run.Stats.Usage.CostUSD != st.Usage.CostUSD ||
			!mapsEqual(run.Stats.Usage.Tokens, st.Usage.Tokens) || run.Stats.Lines != st.Lines || run.Stats.BadLines != st.BadLines {
			t.Errorf("%s: view read turns %d, calls %d, tokens %v, cost %q, err %v; stats %d, %d, %v, %q, %v", c.name(),
				count(run.Stats.Turns), run.Stats.ToolCalls.Total, run.Stats.Usage.Tokens, run.Stats.Usage.CostUSD, run.Err,
				count(st.Turns), st.ToolCalls.Total, st.Usage.Tokens, st.Usage.CostUSD, st.Err)
			continue
		}
		var page bytes.Buffer
		if err := view.WriteRun(&page, run, view.PageOptions{}); err != nil {
			t.Fatal(err)
		}
		html := page.String()
		if got := strings.Count(html, `<section class="turn"`); uint64(got) != count(st.Turns) {
			t.Errorf("%s: %d turn sections, stats counts %d turns", c.name(), got, count(st.Turns))
		}
		if got := strings.Count(html, `<div class="tool `); uint64(got) != st.ToolCalls.Total {
			t.Errorf("%s: %d tool cards, stats counts %d calls", c.name(), got, st.ToolCalls.Total)
		}
	}
}

func mapsEqual(a, b map[stats.Token]uint64) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// tagRE finds the page's tags. Every "<" of the input is escaped, so
// every tag found is the page's own.
var tagRE = regexp.MustCompile(`<(/?)([a-zA-Z][a-zA-Z0-9]*)([^>]*)>`)

// attrRE finds a tag's attributes.
var attrRE = regexp.MustCompile(`([a-zA-Z-]+)(?:="([^"]*)")?`)

// The elements and attributes a page may have.
var (
	okTags = strings.Fields(`html head meta link title style body script article header footer section main div span p pre code b strong em del
		ul ol li details summary blockquote table thead tbody tfoot tr th td hr br a h1 h2 h3 h4 h5 h6 dl dt dd svg line rect text polyline title
		button input select option`)
	okAttrs = strings.Fields(`class id lang charset name content http-equiv rel href open start type role aria-label viewBox x y x1 x2 y1 y2
		width height text-anchor points colspan placeholder value viewbox hidden`)
)

// checkMarkup fails unless every tag of a page is one of okTags with
// okAttrs, every link stays in the page or goes to a page of evtool's
// own naming, and the only scripts are evtool's own and data blocks.
func checkMarkup(t *testing.T, name, html string) {
	t.Helper()
	scripts := 0
	for _, m := range tagRE.FindAllStringSubmatch(html, -1) {
		tag, attrs := strings.ToLower(m[2]), m[3]
		if !slices.Contains(okTags, tag) {
			t.Errorf("%s: a <%s> element: %.200s", name, tag, m[0])
			continue
		}
		if m[1] == "/" {
			continue
		}
		if tag == "script" {
			if attrs == "" {
				scripts++
			} else if attrs != ` type="application/x-evtool-turns"` {
				t.Errorf("%s: a script %s", name, attrs)
			}
		}
		for _, a := range attrRE.FindAllStringSubmatch(attrs, -1) {
			k, v := strings.ToLower(a[1]), a[2]
			if !slices.Contains(okAttrs, k) && !strings.HasPrefix(k, "data-") {
				t.Errorf("%s: attribute %s in %.200s", name, k, m[0])
			}
			if k == "href" && !strings.HasPrefix(v, "#") && v != "data:," && !regexp.MustCompile(`^[0-9]+-[A-Za-z0-9._-]+\.html$|^index\.html$`).MatchString(v) {
				t.Errorf("%s: a link to %q", name, v)
			}
			if strings.Contains(strings.ToLower(v), "javascript:") {
				t.Errorf("%s: %q in an attribute", name, v)
			}
		}
	}
	if scripts != 1 {
		t.Errorf("%s: %d scripts, want evtool's one", name, scripts)
	}
}

// TestHostileMarkup: the hostile run's page has only the page's own
// elements and attributes, one script, and each hostile string as
// escaped text; the 10 MB output is cut, and the cut is stated.
func TestHostileMarkup(t *testing.T) {
	var in bytes.Buffer
	if err := writeHostile(&in, 3); err != nil {
		t.Fatal(err)
	}
	// As markup, and with the later turns as data blocks (whole turns, or
	// a turn's items), whose markup is checked too.
	for _, lim := range []view.Limits{{}, {Live: 1, Chunk: 1 << 20}, {Live: 1, Chunk: 1}} {
		var bad []string
		run, err := view.Read(bytes.NewReader(in.Bytes()), "hostile.jsonl", view.Options{
			LineError: func(le *stream.LineError) { bad = append(bad, le.Error()) },
			Limits:    lim,
		})
		if err != nil || len(bad) > 0 {
			t.Fatalf("the hostile stream does not read: %v %v", err, bad)
		}
		var page bytes.Buffer
		if err := view.WriteRun(&page, run, view.PageOptions{}); err != nil {
			t.Fatal(err)
		}
		checkMarkup(t, fmt.Sprintf("hostile %+v", lim), page.String())
		if lim.Live > 0 && !strings.Contains(page.String(), `<div class="slot"`) {
			t.Errorf("%+v: no data block", lim)
		}
	}
	run, err := view.Read(bytes.NewReader(in.Bytes()), "hostile.jsonl", view.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var page bytes.Buffer
	if err := view.WriteRun(&page, run, view.PageOptions{}); err != nil {
		t.Fatal(err)
	}
	html := page.String()
	for _, s := range []string{"&lt;script&gt;window.__pwned=1&lt;/script&gt;", "[U+202E]", "nul \u2400 bell \u2407 del \u2421 c1 \ufffd end",
		"red link ", "{{.}} {{template &#34;x&#34;}}", `cut: `} {
		if !strings.Contains(html, s) {
			t.Errorf("the page lacks %q", s)
		}
	}
	if strings.Contains(html, "\x1b") || strings.Contains(html, "\x00") {
		t.Error("a terminal escape or a NUL reached the page")
	}
	if len(html) > 2<<20 {
		t.Errorf("the page is %d bytes: the 10 MB output was not cut", len(html))
	}
}

// TestItemsBound: past Limits.Items the page stops, says so, and the
// header still counts the whole run.
func TestItemsBound(t *testing.T) {
	var in bytes.Buffer
	if err := genRun(&in, 50); err != nil {
		t.Fatal(err)
	}
	run, err := view.Read(&in, "long.jsonl", view.Options{Limits: view.Limits{Items: 100}})
	if err != nil {
		t.Fatal(err)
	}
	if run.Complete() || count(run.Stats.Turns) != 50 {
		t.Fatalf("complete %v, turns %d", run.Complete(), count(run.Stats.Turns))
	}
	var page bytes.Buffer
	view.WriteRun(&page, run, view.PageOptions{})
	html := page.String()
	if !strings.Contains(html, `data-complete="false"`) || !strings.Contains(html, "The page stops here") {
		t.Error("the page does not say it stopped")
	}
	if n := strings.Count(html, `<section class="turn"`); n >= 50 || n == 0 {
		t.Errorf("%d turns shown", n)
	}
}

// TestFolder: an index of runs whose pages are elsewhere links to them.
func TestFolder(t *testing.T) {
	dir := t.TempDir()
	var idx bytes.Buffer
	x, err := view.NewIndex(&idx, view.PageOptions{Title: "runs"})
	if err != nil {
		t.Fatal(err)
	}
	for i, f := range []string{"basis/full_schema2.jsonl", "mermaid/failed_run.jsonl"} {
		b, err := os.ReadFile(filepath.Join("..", "testdata", "streams", f))
		if err != nil {
			t.Fatal(err)
		}
		run, err := view.Read(bytes.NewReader(b), f, view.Options{})
		if err != nil {
			t.Fatal(err)
		}
		name := strconv.Itoa(i+1) + "-run.html"
		var page bytes.Buffer
		if err := view.WriteRun(&page, run, view.PageOptions{Back: "index.html"}); err != nil {
			t.Fatal(err)
		}
		checkMarkup(t, name, page.String())
		if err := x.Link(run, name); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, name), page.Bytes(), 0o666)
	}
	if err := x.Close(); err != nil {
		t.Fatal(err)
	}
	html := idx.String()
	checkMarkup(t, "index", html)
	if !strings.Contains(html, `href="1-run.html"`) || !strings.Contains(html, `href="2-run.html"`) || strings.Contains(html, `class="run"`) {
		t.Errorf("the index does not link to the pages:\n%.2000s", html)
	}
}

// TestUndetected: a stream whose dialect cannot be told gives a page
// that says so.
func TestUndetected(t *testing.T) {
	run, err := view.Read(strings.NewReader(`{"hello":"world"}`+"\n"), "page.jsonl", view.Options{})
	if err == nil || run.Err == nil {
		t.Fatal("no error")
	}
	var page bytes.Buffer
	if err := view.WriteRun(&page, run, view.PageOptions{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(page.String(), "not read") || !strings.Contains(page.String(), `data-status="not read"`) {
		t.Errorf("the page does not say the stream was not read:\n%s", page.String())
	}
}

// TestNoTimeNoUsage: where a stream states no time or no usage, the page
// says so and draws no chart.
func TestNoTimeNoUsage(t *testing.T) {
	d, err := dialect.Lookup("canonical")
	if err != nil {
		t.Fatal(err)
	}
	in := `{"seq":0,"type":"session_started","schema":1,"source":{"dialect":"hand"}}
{"seq":1,"type":"turn_started","turn_id":"t1","prompt":"hi"}
{"seq":2,"type":"message","turn_id":"t1","text":"hello"}
{"seq":3,"type":"turn_finished","turn_id":"t1","status":"ok"}
`
	run, err := view.Read(strings.NewReader(in), "plain.jsonl", view.Options{Stream: stream.Options{Dialect: d}})
	if err != nil {
		t.Fatal(err)
	}
	var page bytes.Buffer
	view.WriteRun(&page, run, view.PageOptions{})
	html := page.String()
	for _, s := range []string{"The stream states no times", "The stream states no token usage", "no session_finished"} {
		if !strings.Contains(html, s) {
			t.Errorf("the page lacks %q", s)
		}
	}
	if strings.Contains(html, "<svg") || strings.Contains(html, `data-token="`) {
		t.Error("the page draws a chart or states a token count")
	}
}
