package view

import (
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"fmt"
	"html/template"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/evtool/evtool/stats"
)

// The page: html/template writes its skeleton (the head with the content
// security policy, the style sheet and the script, both evtool's own and
// allowed by their hashes alone); the runs and the index are written
// between its two halves by this package's writer (html.go), which
// escapes every string of the input. The policy forbids everything else:
// no request of any kind, no other script or style, no form, no base.

//go:embed assets/view.css
var styleSheet string

//go:embed assets/view.js
var script string

// hashOf is a source's CSP hash.
func hashOf(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
}

// CSP is the content security policy of every page: nothing may be
// fetched or run but the page's own style sheet and script, allowed by
// their hashes (img-src data: only for the page's empty icon, which keeps
// a browser from asking for /favicon.ico).
var CSP = "default-src 'none'; style-src " + hashOf(styleSheet) + "; script-src " + hashOf(script) +
	"; img-src data:; base-uri 'none'; form-action 'none'"

var (
	pageHead = template.Must(template.New("head").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{{.CSP}}">
<meta name="referrer" content="no-referrer">
<meta name="viewport" content="width=device-width, initial-scale=1">
{{with .Generator}}<meta name="generator" content="{{.}}">
{{end}}<link rel="icon" href="data:,">
<title>{{.Title}}</title>
<style>{{.Style}}</style>
</head>
<body class="{{.Mode}}">
`))
	pageTail = template.Must(template.New("tail").Parse(`<script>{{.Script}}</script>
</body>
</html>
`))
)

type skeleton struct {
	CSP, Title, Generator, Mode string
	Style                       template.CSS
	Script                      template.JS
}

// PageOptions configure a page.
type PageOptions struct {
	// Title is the page's title; "" names the run's file, or the number
	// of runs.
	Title string
	// Generator, when set, is written as the page's generator (evtool and
	// its version).
	Generator string
	// Back, for a run's page, is the address of the index it belongs to
	// ("index.html" in a folder of pages), linked from its header. Only a
	// relative address is linked: one with a scheme is ignored.
	Back string
}

// relative reports whether an address has no scheme (javascript:,
// https:): a page links only within itself and its folder.
func relative(href string) bool {
	i := strings.IndexAny(href, ":/?#")
	return i < 0 || href[i] != ':'
}

func head(w io.Writer, title, generator, mode string) error {
	return pageHead.Execute(w, skeleton{CSP: CSP, Title: title, Generator: generator, Mode: mode, Style: template.CSS(styleSheet)})
}

func tail(w io.Writer) error {
	return pageTail.Execute(w, skeleton{Script: template.JS(script)})
}

// WriteRun writes a page of one run. The run's page model is released
// once written: a Run is written once.
func WriteRun(w io.Writer, run *Run, opts PageOptions) error {
	title := opts.Title
	if title == "" {
		title = run.Stats.File + " — evtool view"
	}
	if err := head(w, title, opts.Generator, "one"); err != nil {
		return err
	}
	back := opts.Back
	if !relative(back) {
		back = ""
	}
	h := newHW(w)
	(&renderer{h: h, run: run, m: run.m, lim: limitsOf(run), id: "run-1", back: back}).write()
	if err := h.flush(); err != nil {
		return err
	}
	run.release()
	return tail(w)
}

func limitsOf(run *Run) Limits {
	if run.m != nil {
		return run.m.lim
	}
	return DefaultLimits
}

// release drops the page's model, keeping the figures.
func (r *Run) release() {
	if r.m != nil {
		r.m = &model{lim: r.m.lim, dropped: r.m.dropped}
	}
}

// Index writes a page of many runs: each run's view (Add) or a link to
// its own page (Link), and a table of them all, sortable and filterable,
// that leads to each. A run's view is written when it is added, and its
// model released, so that a page of any number of runs is written in
// the memory of one; the table, written last, is shown first.
type Index struct {
	w      io.Writer
	rows   []row
	tot    stats.Totals
	err    error
	closed bool
}

// row is what the index shows of a run.
type row struct {
	href                     string
	agent, dialect, project  string
	start, file, status, err string
	cost                     string
	dur                      float64
	hasDur                   bool
	turns                    *uint64
	calls, tokens            uint64
	hasTokens                bool
}

// NewIndex writes the head of a page of many runs to w.
func NewIndex(w io.Writer, opts PageOptions) (*Index, error) {
	title := opts.Title
	if title == "" {
		title = "evtool view"
	}
	if err := head(w, title, opts.Generator, "many"); err != nil {
		return nil, err
	}
	return &Index{w: w}, nil
}

// Add writes a run's view into the page, shown when its row (or an
// address ending in #run-N) is followed, and adds its row.
func (x *Index) Add(run *Run) error {
	if x.err != nil {
		return x.err
	}
	n := len(x.rows) + 1
	id := "run-" + strconv.Itoa(n)
	h := newHW(x.w)
	(&renderer{h: h, run: run, m: run.m, lim: limitsOf(run), id: id, back: "#index"}).write()
	x.err = h.flush()
	run.release()
	x.add(run, "#"+id)
	return x.err
}

// Link adds a row for a run whose page is elsewhere, at href (relative
// to the index's page; an address with a scheme is refused).
func (x *Index) Link(run *Run, href string) error {
	if !relative(href) {
		return fmt.Errorf("view: %q is not a relative address", href)
	}
	x.add(run, href)
	return x.err
}

func (x *Index) add(run *Run, href string) {
	st := run.Stats
	r := row{href: href, agent: run.Agent, dialect: st.Dialect, project: st.Workspace, start: st.Start,
		file: st.File, status: status(run), turns: st.Turns, calls: st.ToolCalls.Total, cost: st.Usage.CostUSD}
	if st.SourceDialect != "" {
		r.dialect += " (from " + st.SourceDialect + ")"
	}
	if run.Err != nil {
		r.err = run.Err.Error()
	}
	r.dur, r.hasDur = seconds(st.Start, st.End)
	r.tokens, r.hasTokens = runTokens(st.Usage)
	x.rows = append(x.rows, r)
	x.tot.Add(st)
}

// Close writes the index table and the end of the page.
func (x *Index) Close() error {
	if x.closed {
		return x.err
	}
	x.closed = true
	if x.err != nil {
		return x.err
	}
	h := newHW(x.w)
	x.table(h)
	if err := h.flush(); err != nil {
		return err
	}
	return tail(x.w)
}

func (x *Index) table(h *hw) {
	h.raw(`<main id="index"><h1>Runs <span class="na" id="shown">` + itoa(len(x.rows)) + ` runs</span></h1>`)
	h.raw(`<div class="filters"><input type="search" id="q" placeholder="filter by any word: agent, project, file, status…" aria-label="filter the runs">`)
	var statuses []string
	for _, r := range x.rows {
		if !slices.Contains(statuses, r.status) {
			statuses = append(statuses, r.status)
		}
	}
	slices.Sort(statuses)
	h.raw(`<select id="st" aria-label="status"><option value="">every status</option>`)
	for _, s := range statuses {
		h.raw(`<option value="`)
		h.attr(s)
		h.raw(`">`)
		h.text(s)
		h.raw("</option>")
	}
	h.raw(`</select></div><div class="tw"><table id="runs"><thead><tr>`)
	cols := []struct{ name, typ string }{{"#", "num"}, {"file", ""}, {"agent", ""}, {"project", ""}, {"start", ""}, {"duration", "num"},
		{"turns", "num"}, {"tool calls", "num"}, {"tokens", "num"}, {"cost", "num"}, {"status", ""}}
	for _, c := range cols {
		h.raw(`<th`)
		if c.typ != "" {
			h.raw(` data-type="` + c.typ + `"`)
		}
		h.raw(`><button type="button">` + c.name + `</button></th>`)
	}
	h.raw("</tr></thead><tbody>")
	for i, r := range x.rows {
		h.raw(`<tr data-status="`)
		h.attr(r.status)
		h.raw(`"><td class="n" data-col="n" data-v="` + itoa(i+1) + `"><a href="`)
		h.attr(r.href)
		h.raw(`">` + itoa(i+1) + `</a></td>`)
		// Each cell has its column's name, and the value it sorts by
		// ("" for what the run does not state, which sorts last).
		cell := func(col, class, v string, show func()) {
			h.raw(`<td data-col="` + col + `"`)
			if class != "" {
				h.raw(` class="` + class + `"`)
			}
			h.raw(` data-v="`)
			h.attr(v)
			h.raw(`">`)
			show()
			h.raw("</td>")
		}
		none := func() { h.raw(`<span class="na">—</span>`) }
		cell("file", "f", r.file, func() {
			h.raw(`<a href="`)
			h.attr(r.href)
			h.raw(`">`)
			h.text(r.file)
			h.raw("</a>")
		})
		agent := r.agent
		if agent == "" {
			agent = r.dialect
		}
		cell("agent", "p", agent, func() {
			h.text(agent)
			if r.agent != "" && r.dialect != "" && r.dialect != r.agent {
				h.raw(` <span class="na">`)
				h.text(r.dialect)
				h.raw("</span>")
			}
		})
		cell("project", "p", r.project, func() {
			if r.project == "" {
				none()
				return
			}
			h.text(r.project)
		})
		cell("start", "", r.start, func() {
			if r.start == "" {
				none()
				return
			}
			h.text(timeText(r.start))
		})
		durV := ""
		if r.hasDur {
			durV = strconv.FormatFloat(r.dur, 'f', 3, 64)
		}
		cell("duration", "n", durV, func() {
			if !r.hasDur {
				none()
				return
			}
			h.raw(durText(r.dur))
		})
		turns := ""
		if r.turns != nil {
			turns = strconv.FormatUint(*r.turns, 10)
		}
		cell("turns", "n", turns, func() {
			if r.turns == nil {
				none()
				return
			}
			h.raw(fmtU(*r.turns))
		})
		cell("tool-calls", "n", strconv.FormatUint(r.calls, 10), func() { h.raw(fmtU(r.calls)) })
		tok := ""
		if r.hasTokens {
			tok = strconv.FormatUint(r.tokens, 10)
		}
		cell("tokens", "n", tok, func() {
			if !r.hasTokens {
				none()
				return
			}
			h.raw(fmtU(r.tokens))
		})
		cell("cost", "n", r.cost, func() {
			if r.cost == "" {
				none()
				return
			}
			h.raw("$")
			h.text(r.cost)
		})
		cell("status", "", r.status, func() {
			h.raw(`<span class="badge ` + statusClass(r.status) + `">`)
			h.text(r.status)
			h.raw("</span>")
			if r.err != "" {
				h.raw(` <span class="na">`)
				h.text(r.err)
				h.raw("</span>")
			}
		})
		h.raw("</tr>\n")
	}
	h.raw("</tbody><tfoot><tr><td></td><td colspan=\"5\">total of " + fmtU(x.tot.Runs) + " runs")
	if x.tot.Failed > 0 {
		h.raw(", " + fmtU(x.tot.Failed) + " not read")
	}
	h.raw(`</td><td class="n">`)
	if x.tot.Turns != nil {
		h.raw(fmtU(*x.tot.Turns))
	}
	h.raw(`</td><td class="n">` + fmtU(x.tot.ToolCalls.Total) + `</td><td class="n">`)
	if n, ok := runTokens(x.tot.Usage); ok {
		h.raw(fmtU(n))
	}
	h.raw(`</td><td class="n">`)
	if x.tot.Usage.CostUSD != "" {
		h.raw("$")
		h.text(x.tot.Usage.CostUSD)
	}
	h.raw("</td><td></td></tr></tfoot></table></div></main>\n")
}
