package view_test

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/evtool/evtool/internal/testkit/teststreams"
	"github.com/evtool/evtool/stats"
	"github.com/evtool/evtool/view"
)

// The pages in a real browser: headless Chromium (Debian's chromium
// package; $CHROMIUM names another), driven through the DevTools
// protocol. One browser serves every test, a tab each. A tab records
// every console error or warning, uncaught exception, dialog and request
// other than the page itself; a page must cause none.

var updateScreenshots = flag.Bool("update-screenshots", false, "write the README's screenshots, docs/images/view-*.png")

// artefacts is where the screenshots go: $EVTOOL_VIEW_ARTIFACTS, else a
// test's temporary directory.
func artefacts(t testing.TB) string {
	if d := os.Getenv("EVTOOL_VIEW_ARTIFACTS"); d != "" {
		if err := os.MkdirAll(d, 0o777); err != nil {
			t.Fatal(err)
		}
		return d
	}
	return t.TempDir()
}

// chromium returns the browser's path, "" when there is none.
func chromium() string {
	if p := os.Getenv("CHROMIUM"); p != "" {
		return p
	}
	for _, n := range []string{"chromium", "chromium-browser", "google-chrome", "headless-shell"} {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	return ""
}

var (
	browserOnce sync.Once
	browserCtx  context.Context
	browserStop = func() {}
	browserErr  error
)

func TestMain(m *testing.M) {
	flag.Parse()
	code := m.Run()
	browserStop()
	os.Exit(code)
}

// browser returns the tests' browser, started on first use with a fresh
// profile and everything that would reach the network turned off (the
// machine has none; a page must not try).
func browser(t testing.TB) context.Context {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: no browser")
	}
	path := chromium()
	if path == "" {
		t.Fatal("no browser: install Debian's chromium package (apt-get install chromium), or name one in $CHROMIUM")
	}
	browserOnce.Do(func() {
		profile, err := os.MkdirTemp("", "evtool-view-profile-")
		if err != nil {
			browserErr = err
			return
		}
		actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
			chromedp.ExecPath(path), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU,
			chromedp.Flag("disable-quic", true), chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck,
			chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
			chromedp.Flag("disable-sync", true), chromedp.Flag("disable-dev-shm-usage", true),
			chromedp.UserDataDir(profile), chromedp.WindowSize(1280, 900))
		ctx, cancel := chromedp.NewContext(actx)
		browserStop = func() {
			cancel()
			cancelAlloc()
			os.RemoveAll(profile)
		}
		browserErr = chromedp.Do(ctx) // starts the browser, bound to ctx
		browserCtx = ctx
	})
	if browserErr != nil {
		t.Fatalf("starting %s: %v", path, browserErr)
	}
	return browserCtx
}

// tab is one browser tab and what its pages did.
type tab struct {
	t        testing.TB
	ctx      context.Context
	mu       sync.Mutex
	page     string   // the page's address, without its fragment
	problems []string // console errors, exceptions, dialogs, requests
}

func newTab(t testing.TB) *tab {
	t.Helper()
	ctx, cancel := chromedp.NewContext(browser(t))
	t.Cleanup(cancel)
	tb := &tab{t: t, ctx: ctx}
	if err := chromedp.Do(ctx); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Listen(ctx, tb.event); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 900)); err != nil {
		t.Fatal(err)
	}
	return tb
}

func (tb *tab) problem(format string, args ...any) {
	tb.mu.Lock()
	tb.problems = append(tb.problems, fmt.Sprintf(format, args...))
	tb.mu.Unlock()
}

// event records what a page must not do. It runs on the tab's reading
// goroutine: it must not run a command, so a dialog is dismissed from
// another.
func (tb *tab) event(ev any) {
	switch ev := ev.(type) {
	case *runtime.EventConsoleAPICalled:
		if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeWarning || ev.Type == runtime.ConsoleAPICalledTypeAssert {
			var args []string
			for _, a := range ev.Args {
				args = append(args, string(a.Value)+a.Description)
			}
			tb.problem("console.%s: %s", ev.Type, strings.Join(args, " "))
		}
	case *runtime.EventExceptionThrown:
		tb.problem("exception: %s %v", ev.ExceptionDetails.Text, ev.ExceptionDetails.Exception)
	case *log.EventEntryAdded:
		if ev.Entry.Level == log.EntryLevelError || ev.Entry.Level == log.EntryLevelWarning {
			tb.problem("%s %s: %s", ev.Entry.Source, ev.Entry.Level, ev.Entry.Text)
		}
	case *network.EventRequestWillBeSent:
		u, _, _ := strings.Cut(ev.Request.URL, "#")
		tb.mu.Lock()
		own := u == tb.page
		tb.mu.Unlock()
		if !own {
			tb.problem("a request: %.200s", ev.Request.URL)
		}
	case *page.EventJavascriptDialogOpening:
		tb.problem("a %s dialog: %s", ev.Type, ev.Message)
		go chromedp.Call(tb.ctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: false})
	}
}

// check fails the test with the problems recorded so far.
func (tb *tab) check(what string) {
	tb.t.Helper()
	tb.mu.Lock()
	defer tb.mu.Unlock()
	for _, p := range tb.problems {
		tb.t.Errorf("%s: %s", what, p)
	}
	tb.problems = nil
}

// open loads a page file and waits for its load event; it returns the
// time that took.
func (tb *tab) open(file string) time.Duration {
	tb.t.Helper()
	abs, err := filepath.Abs(file)
	if err != nil {
		tb.t.Fatal(err)
	}
	u := "file://" + filepath.ToSlash(abs)
	tb.mu.Lock()
	tb.page = u
	tb.mu.Unlock()
	ctx, cancel := context.WithTimeout(tb.ctx, 60*time.Second)
	defer cancel()
	start := time.Now()
	if err := chromedp.Do(ctx, chromedp.Navigate(u)); err != nil {
		tb.t.Fatalf("loading %s: %v", file, err)
	}
	return time.Since(start)
}

// eval evaluates an expression in the page and decodes its value.
func eval[T any](tb *tab, expr string) T {
	tb.t.Helper()
	ctx, cancel := context.WithTimeout(tb.ctx, 60*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		tb.t.Fatalf("evaluating %.100s: %v", expr, err)
	}
	return v
}

// evalAsync evaluates an expression whose value is a promise, and
// decodes what it resolves to.
func evalAsync[T any](tb *tab, expr string) T {
	tb.t.Helper()
	ctx, cancel := context.WithTimeout(tb.ctx, 60*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr, chromedp.EvalAwaitPromise))
	if err != nil {
		tb.t.Fatalf("evaluating %.100s: %v", expr, err)
	}
	return v
}

// until evaluates a condition until it holds, for a page's asynchronous
// work (the turns built from data blocks).
func (tb *tab) until(expr string) {
	tb.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !eval[bool](tb, expr) {
		if time.Now().After(deadline) {
			tb.t.Fatalf("still not so after a minute: %s", expr)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// screenshot writes the viewport, or the whole page (up to 12,000
// pixels), as a PNG. The whole page is taken through a viewport as tall
// as the page: the page lays out only what is on screen
// (content-visibility), and a capture beyond the viewport would show
// the rest blank.
func (tb *tab) screenshot(file string, full bool) {
	tb.t.Helper()
	ctx, cancel := context.WithTimeout(tb.ctx, 60*time.Second)
	defer cancel()
	frames := `new Promise(function (r) { requestAnimationFrame(function () { requestAnimationFrame(function () { r(true); }); }); })`
	if full {
		height := eval[int](tb, `Math.min(document.documentElement.scrollHeight, 12000)`)
		if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, int64(height))); err != nil {
			tb.t.Fatal(err)
		}
		defer chromedp.Do(ctx, chromedp.EmulateViewport(1280, 900))
	}
	evalAsync[bool](tb, frames)
	buf, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		tb.t.Fatalf("screenshot: %v", err)
	}
	if err := os.WriteFile(file, buf, 0o666); err != nil {
		tb.t.Fatal(err)
	}
}

// shown is what the DOM shows of a run: the turn sections and tool cards
// counted in it, the header's tokens and cost, the index row's figures.
type shown struct {
	Visible, IndexHidden                    bool
	Turns, Tools                            int
	Tokens                                  map[string]string
	Cost, Complete                          string
	RowTurns, RowTools, RowTokens, RowCost  string
	HeadTurns, HeadTools, DataTurns, Status string
}

// showRun follows a run's address in the index's page and reads it.
const showRun = `(async function (i) {
	location.hash = '#run-' + i;
	var a = document.getElementById('run-' + i);
	// A long run's data blocks are built first.
	var all = a.querySelector('button[data-act=all]');
	if (all && !all.hidden) {
		all.click();
		while (a.querySelector('.slot:not([data-done])')) {
			await new Promise(function (r) { setTimeout(r, 20); });
		}
	}
	var tok = {};
	a.querySelectorAll('header [data-token]').forEach(function (e) { tok[e.getAttribute('data-token')] = e.getAttribute('data-value'); });
	var row = document.querySelector('#runs tbody').rows[i - 1];
	var cell = function (col) { return row.querySelector('[data-col=' + col + ']').getAttribute('data-v'); };
	var q = function (sel) { var e = a.querySelector(sel); return e ? e.textContent : ''; };
	return {
		Visible: a.offsetParent !== null, IndexHidden: document.getElementById('index').offsetParent === null,
		Turns: a.querySelectorAll('.turn').length, Tools: a.querySelectorAll('.tool').length,
		Tokens: tok, Cost: a.getAttribute('data-cost'), Complete: a.getAttribute('data-complete'),
		RowTurns: cell('turns'), RowTools: cell('tool-calls'), RowTokens: cell('tokens'), RowCost: cell('cost'),
		HeadTurns: q('[data-count=turns]'), HeadTools: q('[data-count=tool-calls]'), DataTurns: a.getAttribute('data-turns'),
		Status: a.getAttribute('data-status')
	};
})(%d)`

// allTokens is a run's tokens as the index shows them.
func allTokens(st *stats.Run) string {
	var n uint64
	stated := false
	for _, k := range []stats.Token{stats.Input, stats.Output, stats.CacheRead, stats.CacheWrite, stats.Thoughts} {
		if v, ok := st.Usage.Tokens[k]; ok {
			if n+v < n {
				n = ^uint64(0) // the sum stops at 2^64-1, as stats' do
			} else {
				n += v
			}
			stated = true
		}
	}
	if !stated {
		if v, ok := st.Usage.Tokens[stats.Total]; ok {
			return strconv.FormatUint(v, 10)
		}
		return ""
	}
	return strconv.FormatUint(n, 10)
}

// TestBrowserStreams: every test stream of every dialect, the shared
// captures and the hostile run, as one index page; each run's view,
// reached by its address in the same tab, shows as many turns, tool
// calls and tokens as evtool stats counts, and the page makes no request
// and logs no error. The index sorts and filters.
func TestBrowserStreams(t *testing.T) {
	dir := t.TempDir()
	cases := testStreams(t)
	hostile := filepath.Join(dir, "hostile.jsonl")
	f, err := os.Create(hostile)
	if err != nil {
		t.Fatal(err)
	}
	if err := writeHostile(f, 2); err != nil {
		t.Fatal(err)
	}
	f.Close()
	cases = append(cases, streamCase{file: hostile, display: "hostile.jsonl (generated)"})

	pagePath := filepath.Join(dir, "index.html")
	out, err := os.Create(pagePath)
	if err != nil {
		t.Fatal(err)
	}
	x, err := view.NewIndex(out, view.PageOptions{Title: "every test stream", Generator: "evtool test"})
	if err != nil {
		t.Fatal(err)
	}
	root := teststreams.Root()
	var want []*stats.Run
	for _, c := range cases {
		run, st := readBoth(t, c, view.Limits{})
		if c.display != "" {
			run.Stats.File = c.display
		} else if rel, err := filepath.Rel(root, c.file); err == nil {
			run.Stats.File = rel // shorter names in the index, for its screenshot
		}
		want = append(want, st)
		if err := x.Add(run); err != nil {
			t.Fatal(err)
		}
	}
	if err := x.Close(); err != nil {
		t.Fatal(err)
	}
	out.Close()

	tb := newTab(t)
	took := tb.open(pagePath)
	tb.check("loading the index")
	t.Logf("%d runs in one page of %s, loaded in %v", len(cases), sizeOf(pagePath), took)
	if eval[bool](tb, `window.__pwned !== undefined`) {
		t.Fatal("the hostile run ran code")
	}
	for i, c := range cases {
		st := want[i]
		got := evalAsync[shown](tb, fmt.Sprintf(showRun, i+1))
		name := c.name()
		if !got.Visible || !got.IndexHidden {
			t.Errorf("%s: following #run-%d shows the run %v, hides the index %v", name, i+1, got.Visible, got.IndexHidden)
		}
		if st.Err != nil {
			if got.Status != "not read" {
				t.Errorf("%s: not read by stats (%v), status %q on the page", name, st.Err, got.Status)
			}
			continue
		}
		if got.Complete != "true" {
			t.Errorf("%s: the page is not complete", name)
			continue
		}
		wantTokens := map[string]string{}
		for k, v := range st.Usage.Tokens {
			wantTokens[string(k)] = strconv.FormatUint(v, 10)
		}
		turns := ""
		if st.Turns != nil {
			turns = strconv.FormatUint(*st.Turns, 10)
		}
		if uint64(got.Turns) != count(st.Turns) || got.DataTurns != turns || got.RowTurns != turns ||
			uint64(got.Tools) != st.ToolCalls.Total || got.RowTools != strconv.FormatUint(st.ToolCalls.Total, 10) ||
			!jsonEqual(got.Tokens, wantTokens) || got.RowTokens != allTokens(st) ||
			got.Cost != st.Usage.CostUSD || got.RowCost != st.Usage.CostUSD {
			t.Errorf("%s: the page shows %+v;\nstats counts turns %s, tool calls %d, tokens %v (%s in all), cost %q",
				name, got, turns, st.ToolCalls.Total, wantTokens, allTokens(st), st.Usage.CostUSD)
		}
	}
	tb.check("showing each run")
	if eval[bool](tb, `window.__pwned !== undefined`) {
		t.Fatal("the hostile run ran code")
	}

	// Back to the index: sort by tool calls, then filter.
	eval[bool](tb, `location.hash = '#index'; true`)
	if !eval[bool](tb, `document.getElementById('index').offsetParent !== null`) {
		t.Error("#index does not show the index")
	}
	sorted := eval[[]string](tb, `(function () {
		var th = document.querySelectorAll('#runs thead th')[7];
		th.querySelector('button').click();
		th.querySelector('button').click();
		return Array.prototype.map.call(document.querySelector('#runs tbody').rows, function (r) { return r.querySelector('[data-col=tool-calls]').getAttribute('data-v'); });
	})()`)
	for i := 1; i < len(sorted); i++ {
		a, _ := strconv.Atoi(sorted[i-1])
		b, _ := strconv.Atoi(sorted[i])
		if a < b {
			t.Fatalf("sorting by tool calls, descending: %v", sorted)
		}
	}
	mermaid := 0
	for _, c := range cases {
		if c.dialect != nil && c.dialect.Name() == "mermaid" {
			mermaid++
		}
	}
	filtered := eval[int](tb, `(function () {
		var q = document.getElementById('q');
		q.value = 'mermaid';
		q.dispatchEvent(new Event('input'));
		return Array.prototype.filter.call(document.querySelector('#runs tbody').rows, function (r) { return !r.hidden; }).length;
	})()`)
	if filtered < mermaid || filtered == len(cases) {
		t.Errorf("filtering by mermaid shows %d of %d rows; %d are mermaid runs", filtered, len(cases), mermaid)
	}
	tb.check("sorting and filtering")

	shots := artefacts(t)
	// The latest runs first, for the screenshot.
	eval[bool](tb, `(function () { var q = document.getElementById('q'); q.value = ''; q.dispatchEvent(new Event('input'));
		var b = document.querySelectorAll('#runs thead th')[4].querySelector('button'); b.click(); b.click();
		window.scrollTo(0, 0); return true; })()`)
	tb.screenshot(filepath.Join(shots, "index.png"), false)
	if *updateScreenshots {
		tb.screenshot(filepath.Join(root, "docs", "images", "view-index.png"), false)
	}
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

func sizeOf(file string) string {
	fi, err := os.Stat(file)
	if err != nil {
		return "?"
	}
	return strconv.FormatFloat(float64(fi.Size())/(1<<20), 'f', 2, 64) + " MiB"
}

// TestBrowserPages: a few runs, each its own page, in the same tab; each
// shows its turns and tool calls, and a screenshot of each is kept.
func TestBrowserPages(t *testing.T) {
	dir := t.TempDir()
	shots := artefacts(t)
	tb := newTab(t)
	root := teststreams.Root()
	// The first is the README's: a real Claude Code session, with times
	// and usage.
	picks := []string{
		"../shared/ondisk/captures/claude-code/claude-code-viewer_1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl",
		"../shared/ondisk/captures/claude-code/claude-code-viewer_5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl",
		"testdata/streams/basis/full_schema2.jsonl",
		"../shared/dialects-next/captures/claude/meawoppl_explore_count_files.jsonl",
		"../shared/dialects-next/captures/codex/meawoppl_file_change_original.jsonl",
		"../shared/dialects-next/captures/opencode/takopi_run_json_success.jsonl",
		"../shared/corpus/muse/meta_subagents.jsonl",
	}
	shown := 0
	for _, rel := range picks {
		file := filepath.Join(root, rel)
		if _, err := os.Stat(file); err != nil {
			t.Logf("%s: not here (%v)", rel, err)
			continue
		}
		run, st := readBoth(t, streamCase{file: file}, view.Limits{})
		run.Stats.File = rel
		name := strings.TrimSuffix(filepath.Base(rel), ".jsonl")
		p := writePage(t, dir, name+".html", run)
		tb.open(p)
		got := eval[[]int](tb, `[document.querySelectorAll('.turn').length, document.querySelectorAll('.tool').length]`)
		if uint64(got[0]) != count(st.Turns) || uint64(got[1]) != st.ToolCalls.Total {
			t.Errorf("%s: %d turns and %d tool calls shown, stats counts %d and %d", rel, got[0], got[1], count(st.Turns), st.ToolCalls.Total)
		}
		tb.check(rel)
		tb.screenshot(filepath.Join(shots, name+".png"), true)
		if *updateScreenshots && rel == picks[0] {
			eval[bool](tb, `window.scrollTo(0, 0); true`)
			tb.screenshot(filepath.Join(root, "docs", "images", "view-run.png"), false)
		}
		shown++
	}
	if shown == 0 {
		t.Fatal("no stream to show")
	}
}

// TestBrowserHostile: the hostile run runs nothing, loads nothing and
// stays readable, also in the turns and items built from data blocks.
func TestBrowserHostile(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "hostile.jsonl")
	f, err := os.Create(in)
	if err != nil {
		t.Fatal(err)
	}
	if err := writeHostile(f, 3); err != nil {
		t.Fatal(err)
	}
	f.Close()
	tb := newTab(t)
	// All markup; turns 2 and 3 as a data block; the items of turns 2 and
	// 3 as data blocks of one item each.
	for i, lim := range []view.Limits{{}, {Live: 1, Chunk: 1 << 20}, {Live: 1, Chunk: 1}} {
		run, st := readBoth(t, streamCase{file: in}, lim)
		if run.Err != nil || run.Stats.BadLines > 0 {
			t.Fatalf("the hostile stream does not read: %v, %d bad lines", run.Err, run.Stats.BadLines)
		}
		what := fmt.Sprintf("limits %+v", lim)
		p := writePage(t, dir, fmt.Sprintf("hostile-%d.html", i), run)
		tb.open(p)
		tb.check(what + ": loading")
		if eval[bool](tb, `window.__pwned !== undefined`) {
			t.Fatalf("%s: the page ran the stream's code", what)
		}
		// Build what is held as data, and open every detail.
		if lim.Live > 0 {
			eval[bool](tb, `document.querySelector('button[data-act=all]').click(); true`)
			tb.until(`document.querySelectorAll('.slot:not([data-done])').length === 0`)
		}
		eval[bool](tb, `document.querySelector('button[data-act=open]').click(); true`)
		time.Sleep(200 * time.Millisecond)
		tb.check(what + ": building the turns and opening every detail")
		if eval[bool](tb, `window.__pwned !== undefined`) {
			t.Fatalf("%s: the page ran the stream's code", what)
		}
		got := eval[[]int](tb, `[document.querySelectorAll('.turn').length, document.querySelectorAll('.tool').length,
			document.querySelectorAll('.turn script, .turn iframe, .turn img, .turn form, .turn style, .turn link, .turn base, .turn meta').length,
			document.querySelectorAll('[onerror], [onload], [ontoggle], [onmouseover]').length]`)
		if uint64(got[0]) != count(st.Turns) || uint64(got[1]) != st.ToolCalls.Total || got[2] != 0 || got[3] != 0 {
			t.Errorf("%s: turns %d (stats %d), tool calls %d (stats %d), foreign elements %d, handlers %d",
				what, got[0], count(st.Turns), got[1], st.ToolCalls.Total, got[2], got[3])
		}
		text := eval[string](tb, `document.body.textContent`)
		for _, s := range []string{"<script>window.__pwned=1</script>", `<img src=x onerror="window.__pwned=1;alert(1)">`,
			"click me (javascript:window.__pwned=1)", "red link", "[U+202E]", "cut: "} {
			if !strings.Contains(text, s) {
				t.Errorf("%s: the page does not show %q", what, s)
			}
		}
		if n := strings.Count(text, "<script>window.__pwned=1</script>"); n < 3 {
			t.Errorf("%s: the hostile string shows %d times", what, n)
		}
		if i == 0 {
			tb.screenshot(filepath.Join(artefacts(t), "hostile.png"), false)
		}
		tb.check(what + ": reading")
	}
}

// TestBrowserLongRun: a long run's later turns, and a long turn's later
// items, held as data, are built when followed (a turn's or a tool
// call's address) or all at once; then the page shows every turn and
// tool call stats counts, in order.
func TestBrowserLongRun(t *testing.T) {
	dir := t.TempDir()
	tb := newTab(t)
	for _, c := range []struct {
		name   string
		gen    func(f *os.File) error
		lim    view.Limits
		follow []string
	}{
		{"300 turns", func(f *os.File) error { return genRun(f, 300) }, view.Limits{Live: 50_000, Chunk: 200_000}, []string{"run-1-t250", "run-1-c555"}},
		{"one turn of 2,000 calls", func(f *os.File) error { return genWide(f, 2000) }, view.Limits{Live: 50_000, Chunk: 100_000}, []string{"run-1-c1500"}},
	} {
		in := filepath.Join(dir, "long.jsonl")
		f, err := os.Create(in)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.gen(f); err != nil {
			t.Fatal(err)
		}
		f.Close()
		run, st := readBoth(t, streamCase{file: in}, c.lim)
		p := writePage(t, dir, "long.html", run)
		took := tb.open(p)
		tb.check(c.name + ": loading")
		t.Logf("%s: a page of %s, loaded in %v", c.name, sizeOf(p), took)
		first := eval[[]int](tb, `[document.querySelectorAll('.turn').length, document.querySelectorAll('.tool').length,
			document.querySelectorAll('.slot').length]`)
		if first[2] == 0 || uint64(first[1]) >= st.ToolCalls.Total {
			t.Errorf("%s: %d turns, %d tool calls and %d data blocks at first", c.name, first[0], first[1], first[2])
		}
		for _, id := range c.follow {
			eval[bool](tb, `location.hash = '#`+id+`'; true`)
			tb.until(`document.getElementById('` + id + `') !== null`)
		}
		eval[bool](tb, `document.querySelector('button[data-act=all]').click(); true`)
		tb.until(`document.querySelectorAll('.slot:not([data-done])').length === 0`)
		got := eval[[]int](tb, `[document.querySelectorAll('.turn').length, document.querySelectorAll('.tool').length]`)
		if uint64(got[0]) != count(st.Turns) || uint64(got[1]) != st.ToolCalls.Total {
			t.Errorf("%s: %d turns and %d tool calls shown, stats counts %d and %d", c.name, got[0], got[1], count(st.Turns), st.ToolCalls.Total)
		}
		order := eval[bool](tb, `(function () {
			var ts = document.querySelectorAll('.turn');
			for (var i = 0; i < ts.length; i++) { if (ts[i].id !== 'run-1-t' + (i + 1)) { return false; } }
			var cs = document.querySelectorAll('.tool');
			for (var i = 0; i < cs.length; i++) { if (cs[i].id !== 'run-1-c' + (i + 1)) { return false; } }
			return true;
		})()`)
		if !order {
			t.Errorf("%s: the turns or the tool calls are not in order", c.name)
		}
		tb.check(c.name + ": building")
	}
}
