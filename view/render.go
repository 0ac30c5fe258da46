package view

import (
	"bufio"
	"bytes"
	"strconv"
	"strings"
	"time"

	"github.com/evtool/evtool/event"
	"github.com/evtool/evtool/stats"
)

// renderer writes one run's view, an <article> of the page.
type renderer struct {
	h    *hw
	run  *Run
	m    *model
	lim  Limits
	id   string // the article's id, also the prefix of its anchors
	back string // where "all runs" leads, "" for none

	counts
	// inSlot is set while writing a data block's markup, which holds no
	// further blocks.
	inSlot bool
	// live is where the live markup ends: past it, what follows goes
	// into data blocks.
	live int64
}

func itoa(n int) string { return strconv.Itoa(n) }

// counts are the tool cards a renderer wrote: how many, and the range
// of their numbers (a data block's, for the script to find a card).
type counts struct{ cards, cmin, cmax int }

func (c *counts) add(x counts) {
	c.cards += x.cards
	if x.cmin >= 0 && (c.cmin < 0 || x.cmin < c.cmin) {
		c.cmin = x.cmin
	}
	c.cmax = max(c.cmax, x.cmax)
}

// fmtU writes a count with thousands separators.
func fmtU(n uint64) string {
	s := strconv.FormatUint(n, 10)
	if len(s) <= 3 {
		return s
	}
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// bytesText says a size in bytes.
func bytesText(n int64) string {
	switch {
	case n < 10<<10:
		return fmtU(uint64(n)) + " bytes"
	case n < 1<<20:
		return strconv.FormatFloat(float64(n)/(1<<10), 'f', 1, 64) + " KiB"
	}
	return strconv.FormatFloat(float64(n)/(1<<20), 'f', 1, 64) + " MiB"
}

// parseTime reads an event time (RFC 3339, as package event writes it).
func parseTime(s string) (time.Time, bool) {
	t, err := time.Parse(time.RFC3339Nano, s)
	return t, err == nil
}

// timeText shows an event time, in UTC.
func timeText(s string) string {
	t, ok := parseTime(s)
	if !ok {
		return s
	}
	return t.UTC().Format("2006-01-02 15:04:05 UTC")
}

// seconds returns the time from a to b.
func seconds(a, b string) (float64, bool) {
	ta, ok1 := parseTime(a)
	tb, ok2 := parseTime(b)
	if !ok1 || !ok2 || tb.Before(ta) {
		return 0, false
	}
	return tb.Sub(ta).Seconds(), true
}

// durText says a duration.
func durText(s float64) string {
	switch {
	case s == 0:
		return "0 s"
	case s < 0.001:
		return strconv.Itoa(int(s*1e6+0.5)) + " µs"
	case s < 1:
		return strconv.Itoa(int(s*1000+0.5)) + " ms"
	case s < 60:
		return strconv.FormatFloat(s, 'f', 1, 64) + " s"
	case s < 3600:
		return strconv.Itoa(int(s)/60) + " min " + strconv.Itoa(int(s)%60) + " s"
	}
	return strconv.Itoa(int(s)/3600) + " h " + strconv.Itoa(int(s)%3600/60) + " min"
}

// runTokens is a run's tokens in all, as the header and the index show
// them: the disjoint counts added up (stats.Row.AllTokens' rule), else
// the stated total.
func runTokens(u stats.Usage) (uint64, bool) {
	var n uint64
	stated := false
	for _, t := range []stats.Token{stats.Input, stats.Output, stats.CacheRead, stats.CacheWrite, stats.Thoughts} {
		if v, ok := u.Tokens[t]; ok {
			stated = true
			n = satAdd(n, v)
		}
	}
	if !stated {
		v, ok := u.Tokens[stats.Total]
		return v, ok
	}
	return n, true
}

// status is a run's status word: session_finished's, "unfinished" when
// the stream has none, "not read" when it could not be read.
func status(r *Run) string {
	switch {
	case r.Err != nil:
		return "not read"
	case r.Stats.Status == "":
		return "unfinished"
	}
	return string(r.Stats.Status)
}

func statusClass(s string) string {
	switch s {
	case "ok", "success", "completed", "allowed":
		return "ok"
	case "error", "failed", "not read", "denied", "rejected":
		return "bad"
	}
	return "mid"
}

// write writes the run's article.
func (r *renderer) write() {
	h, st := r.h, r.run.Stats
	h.raw(`<article class="run" id="` + r.id + `"`)
	h.raw(` data-status="`)
	h.attr(status(r.run))
	h.raw(`" data-dialect="`)
	h.attr(st.Dialect)
	h.raw(`" data-turns="`)
	if st.Turns != nil {
		h.raw(strconv.FormatUint(*st.Turns, 10))
	}
	h.raw(`" data-tool-calls="` + strconv.FormatUint(st.ToolCalls.Total, 10) + `" data-tokens="`)
	if n, ok := runTokens(st.Usage); ok {
		h.raw(strconv.FormatUint(n, 10))
	}
	h.raw(`" data-cost="`)
	h.attr(st.Usage.CostUSD)
	h.raw(`" data-complete="` + strconv.FormatBool(r.run.Complete()) + `">`)
	r.header()
	if r.m != nil && r.run.Err == nil {
		r.charts()
		// "show all" shows once the script finds data blocks to build.
		h.raw(`<div class="ctl"><button type="button" data-act="all" hidden>show all</button>` +
			`<button type="button" data-act="open">open all</button><button type="button" data-act="close">fold all</button></div>`)
		r.body()
	}
	h.raw("</article>\n")
}

func (r *renderer) fact(label string, value func()) {
	r.h.raw("<div><dt>" + label + "</dt><dd>")
	value()
	r.h.raw("</dd></div>")
}

func (r *renderer) factText(label, v, none string) {
	r.fact(label, func() {
		if v == "" {
			r.h.raw(`<span class="na">` + none + `</span>`)
			return
		}
		r.h.text(v)
	})
}

func (r *renderer) header() {
	h, run, st := r.h, r.run, r.run.Stats
	h.raw(`<header class="rh">`)
	if r.back != "" {
		h.raw(`<p class="back"><a href="`)
		h.attr(r.back)
		h.raw(`">← all runs</a></p>`)
	}
	h.raw("<h1>")
	agent := run.Agent
	if agent == "" {
		agent = st.Dialect
	}
	if agent == "" {
		agent = "run"
	}
	h.text(agent)
	if run.AgentVersion != "" {
		h.raw(` <span class="ver">`)
		h.text(run.AgentVersion)
		h.raw("</span>")
	}
	h.raw(` <span class="file">`)
	h.text(st.File)
	h.raw("</span></h1>")
	if run.Err != nil {
		h.raw(`<p class="note err"><b>not read</b> `)
		h.text(run.Err.Error())
		h.raw(`</p>`)
	}
	h.raw(`<dl class="facts">`)
	d := st.Dialect
	if st.SourceDialect != "" {
		d += " (from " + st.SourceDialect + ")"
	}
	r.factText("dialect", d, "not told")
	r.factText("model", strings.Join(st.Models, ", "), "not stated")
	if run.Provider != "" {
		r.factText("provider", run.Provider, "")
	}
	r.factText("project", st.Workspace, "not stated")
	r.factText("session", st.SessionID, "not stated")
	if st.Start == "" {
		r.fact("time", func() { h.raw(`<span class="na">the stream states no time</span>`) })
	} else {
		r.factText("started", timeText(st.Start), "")
		r.factText("ended", timeText(st.End), "")
		if s, ok := seconds(st.Start, st.End); ok {
			r.factText("duration", durText(s), "")
		}
	}
	r.fact("status", func() {
		s := status(run)
		h.raw(`<span class="badge ` + statusClass(s) + `" data-status="`)
		h.attr(s)
		h.raw(`">`)
		h.text(s)
		h.raw("</span>")
		if s == "unfinished" {
			h.raw(` <span class="na">no session_finished: the run may have been cut short</span>`)
		}
		if r.m != nil && r.m.fin != nil && r.m.fin.StoppedBy != "" {
			h.raw(" stopped by ")
			h.text(string(r.m.fin.StoppedBy))
		}
	})
	r.fact("lines", func() {
		h.raw(fmtU(st.Lines))
		if st.BadLines > 0 {
			h.raw(`, <span class="bad">` + fmtU(st.BadLines) + " with problems</span>")
		}
	})
	h.raw("</dl>")
	if run.Err == nil {
		r.totals()
	}
	if r.m != nil {
		r.problems()
		r.setup()
	}
	h.raw("</header>")
}

func (r *renderer) totals() {
	h, st := r.h, r.run.Stats
	h.raw(`<dl class="totals">`)
	r.fact("turns", func() {
		h.raw(`<span data-count="turns">`)
		if st.Turns == nil {
			h.raw(`</span><span class="na">the stream states no turns</span>`)
			return
		}
		h.raw(fmtU(*st.Turns) + "</span>")
	})
	r.fact("rounds", func() {
		if st.Rounds == nil {
			h.raw(`<span class="na">not stated</span>`)
			return
		}
		h.raw(fmtU(*st.Rounds))
	})
	r.fact("tool calls", func() {
		h.raw(`<span data-count="tool-calls">` + fmtU(st.ToolCalls.Total) + "</span>")
		if st.ToolCalls.Total > 0 {
			h.raw(` <span class="by">`)
			first := true
			for _, k := range []string{"success", "error", "cancelled", "rejected", stats.Unfinished, stats.Unstated} {
				if n := st.ToolCalls.ByStatus[k]; n > 0 {
					if !first {
						h.raw(", ")
					}
					first = false
					h.raw(`<span class="` + statusClass(k) + `">`)
					h.text(k)
					h.raw(" " + fmtU(n) + "</span>")
				}
			}
			h.raw("</span>")
		}
	})
	r.fact("tokens", func() {
		n, ok := runTokens(st.Usage)
		if !ok {
			h.raw(`<span data-count="tokens"></span><span class="na">the stream states no token usage</span>`)
			return
		}
		h.raw(`<span data-count="tokens">` + fmtU(n) + "</span>")
		var unstated []string
		h.raw(` <span class="by">`)
		first := true
		for _, t := range stats.Tokens() {
			v, ok := st.Usage.Tokens[t]
			if !ok {
				unstated = append(unstated, strings.ReplaceAll(string(t), "_", " "))
				continue
			}
			if !first {
				h.raw(", ")
			}
			first = false
			h.raw(`<span data-token="` + string(t) + `" data-value="` + strconv.FormatUint(v, 10) + `">`)
			h.raw(strings.ReplaceAll(string(t), "_", " ") + " " + fmtU(v) + "</span>")
		}
		h.raw("</span>")
		if len(unstated) > 0 {
			h.raw(` <span class="na">· not stated: ` + strings.Join(unstated, ", ") + "</span>")
		}
	})
	r.fact("cost", func() {
		if st.Usage.CostUSD == "" {
			h.raw(`<span data-count="cost"></span><span class="na">not stated</span>`)
			return
		}
		h.raw(`<span data-count="cost">$`)
		h.text(st.Usage.CostUSD)
		h.raw("</span>")
	})
	h.raw("</dl>")
	if st.UsageFrom != "" {
		from := map[stats.Level]string{
			stats.LevelSession: "session_finished", stats.LevelTurns: "the turns' turn_finished",
			stats.LevelRounds: "the rounds' round_finished", stats.LevelUsageEvents: "the usage events",
		}[st.UsageFrom]
		h.raw(`<p class="src">Tokens and cost from ` + from + `, as evtool stats counts them: the most aggregated level the stream states, never two levels added up.`)
		if len(st.Usage.Saturated) > 0 {
			h.raw(" Some counts exceeded 2^64−1 and stopped there.")
		}
		h.raw("</p>")
	}
	for _, n := range st.Notes {
		h.raw(`<p class="note warn">`)
		h.text(n)
		h.raw("</p>")
	}
}

// problems states the lines with problems and what the page left out.
func (r *renderer) problems() {
	h, m := r.h, r.m
	if len(m.lineErrors) > 0 {
		what := fmtU(r.run.Stats.BadLines) + " lines with problems (the page shows what could be read of them)"
		if r.run.Stats.BadLines == 1 {
			what = "1 line with problems (the page shows what could be read of it)"
		}
		h.raw(`<details class="note err"><summary>` + what + `</summary><ul class="errs">`)
		for _, e := range m.lineErrors {
			h.raw("<li>")
			h.text(e)
			h.raw("</li>")
		}
		if r.run.Stats.BadLines > uint64(len(m.lineErrors)) {
			h.raw("<li>…</li>")
		}
		h.raw("</ul></details>")
	}
	if m.bud.cuts > 0 {
		what := fmtU(uint64(m.bud.cuts)) + " long texts are"
		if m.bud.cuts == 1 {
			what = "1 long text is"
		}
		h.raw(`<p class="note info">` + what + ` cut (` + bytesText(m.bud.cutBytes) +
			` left out in all); each cut is stated where it is made.</p>`)
	}
	if m.dropped > 0 {
		h.raw(`<p class="note warn">This page shows the first ` + fmtU(uint64(m.items)) + ` items of the run; ` + fmtU(uint64(m.dropped)) +
			` more events are counted in the figures above but not shown.</p>`)
	}
}

// maxSetup bounds each list of the session's setup.
const maxSetup = 200

// setup shows what session_started says of the run's setup.
func (r *renderer) setup() {
	s := r.m.session
	if s == nil {
		return
	}
	h := r.h
	var parts []string
	if s.ContextFiles != nil {
		parts = append(parts, itoa(len(*s.ContextFiles))+" context files")
	}
	if len(s.Skills) > 0 {
		parts = append(parts, itoa(len(s.Skills))+" skills")
	}
	if len(s.Commands) > 0 {
		parts = append(parts, itoa(len(s.Commands))+" commands")
	}
	if len(s.MCPServers) > 0 {
		parts = append(parts, itoa(len(s.MCPServers))+" MCP servers")
	}
	if len(s.A2AAgents) > 0 {
		parts = append(parts, itoa(len(s.A2AAgents))+" A2A agents")
	}
	if len(parts) == 0 {
		return
	}
	h.raw(`<details class="setup"><summary>setup: ` + strings.Join(parts, ", ") + `</summary>`)
	list := func(title string, n int, item func(i int)) {
		if n == 0 {
			return
		}
		h.raw("<h3>" + title + "</h3><ul>")
		for i := 0; i < n && i < maxSetup; i++ {
			h.raw("<li>")
			item(i)
			h.raw("</li>")
		}
		if n > maxSetup {
			h.raw("<li>and " + itoa(n-maxSetup) + " more</li>")
		}
		h.raw("</ul>")
	}
	if s.ContextFiles != nil {
		cf := *s.ContextFiles
		list("context files", len(cf), func(i int) {
			h.text(cf[i].Path)
			h.raw(` <span class="na">`)
			h.text(cf[i].Scope)
			h.raw("</span>")
		})
	}
	list("skills", len(s.Skills), func(i int) {
		h.raw("<b>")
		h.text(s.Skills[i].Name)
		h.raw("</b> ")
		h.text(firstLine(s.Skills[i].Description, 200))
	})
	list("commands", len(s.Commands), func(i int) {
		h.raw("<b>")
		h.text(s.Commands[i].Name)
		h.raw("</b> ")
		h.text(firstLine(s.Commands[i].Description, 200))
	})
	list("MCP servers", len(s.MCPServers), func(i int) { h.text(s.MCPServers[i]) })
	list("A2A agents", len(s.A2AAgents), func(i int) { h.text(s.A2AAgents[i]) })
	h.raw("</details>")
}

func (r *renderer) body() {
	h, m := r.h, r.m
	r.live = h.n + int64(r.lim.Live)
	if len(m.pre.items) > 0 {
		h.raw(`<section class="pre"><h2>Before the first turn</h2>`)
		r.block(&m.pre)
		h.raw("</section>")
	}
	if len(m.turns) == 0 && len(m.pre.items) == 0 {
		h.raw(`<p class="na">The stream states no turns and nothing to show.</p>`)
	}
	// Past the live markup, turns go into data blocks of about Chunk
	// bytes; a turn larger than that is written live, its items in
	// blocks of their own.
	var batch []*turn
	var buf, one bytes.Buffer
	var in counts
	flush := func() {
		if len(batch) > 0 {
			r.slot(buf.Bytes(), in, "Turns "+itoa(batch[0].n)+"–"+itoa(batch[len(batch)-1].n), batch[0].n, batch[len(batch)-1].n)
			batch, in = nil, counts{cmin: -1}
			buf.Reset()
		}
	}
	in.cmin = -1
	sub := r.sub(&one)
	for _, t := range m.turns {
		if h.n < r.live {
			r.turn(t)
			continue
		}
		one.Reset()
		sub.h.w.Reset(&one)
		sub.counts = counts{cmin: -1}
		sub.turn(t)
		sub.h.flush()
		if one.Len() > r.lim.Chunk {
			flush()
			r.turn(t)
			continue
		}
		batch = append(batch, t)
		buf.Write(one.Bytes())
		in.add(sub.counts)
		if buf.Len() > r.lim.Chunk {
			flush()
		}
	}
	flush()
	if m.dropped > 0 {
		h.raw(`<p class="note warn">The page stops here: ` + fmtU(uint64(m.dropped)) + ` more events of this run are counted in the header but not shown (a page shows at most ` + fmtU(uint64(r.lim.Items)) + ` items).</p>`)
	}
	r.end()
}

// sub returns a renderer that writes a data block's markup into buf
// (emptied).
func (r *renderer) sub(buf *bytes.Buffer) *renderer {
	buf.Reset()
	return &renderer{h: newHW(buf), run: r.run, m: r.m, lim: r.lim, id: r.id, back: r.back, counts: counts{cmin: -1}, inSlot: true}
}

// slot writes markup as a data block (tree.go), in a placeholder the
// page's script fills when it comes into view, or when an address inside
// it is followed. from and to are the turns it holds (0 for items).
func (r *renderer) slot(markup []byte, c counts, what string, from, to int) {
	h := r.h
	h.raw(`<div class="slot" data-from="` + itoa(from) + `" data-to="` + itoa(to) +
		`" data-tools="` + itoa(c.cards) + `" data-cmin="` + itoa(c.cmin) + `" data-cmax="` + itoa(c.cmax) +
		`" data-bytes="` + itoa(len(markup)) + `">`)
	h.raw(`<p class="na">`)
	h.text(what)
	h.raw(` are built by the page's script when they come into view.</p>`)
	h.raw(`<script type="application/x-evtool-turns">`)
	if h.err == nil {
		h.err = packTree(h.w, markup)
	}
	h.raw("</script></div>\n")
	r.counts.add(c)
}

func (r *renderer) turn(t *turn) {
	h := r.h
	id := r.id + "-t" + itoa(t.n)
	h.raw(`<section class="turn" id="` + id + `"><h2><a href="#` + id + `">Turn ` + itoa(t.n) + `</a> <span class="meta">`)
	var meta []string
	if t.fin != nil {
		meta = append(meta, `<span class="badge `+statusClass(string(t.fin.Status))+`">`+esc(string(t.fin.Status))+`</span>`)
		if t.fin.StopReason != "" {
			meta = append(meta, esc(string(t.fin.StopReason)))
		}
	} else if r.m.ended > 0 {
		// Only where the stream ends turns at all (basis never does).
		meta = append(meta, `<span class="na">no turn end</span>`)
	}
	if s, ok := seconds(t.start, t.end); ok && t.end != t.start {
		meta = append(meta, durText(s))
	}
	if t.rounds > 0 {
		meta = append(meta, itoa(t.rounds)+" rounds")
	}
	if t.fin != nil && t.fin.Usage != nil {
		if n, ok := usageTokens(t.fin.Usage); ok {
			meta = append(meta, fmtU(n)+" tokens")
		}
		if t.fin.Usage.CostUSD != "" {
			meta = append(meta, "$"+esc(string(t.fin.Usage.CostUSD)))
		}
	}
	h.raw(strings.Join(meta, " · ") + "</span></h2>")
	if t.prompt != nil || t.images > 0 {
		h.raw(`<div class="msg u"><div class="who">user`)
		if t.images > 0 {
			h.raw(` <span class="na">+` + fmtU(t.images) + ` images (not shown)</span>`)
		}
		h.raw(`</div>`)
		if t.prompt != nil {
			r.folded(t.prompt)
		}
		h.raw("</div>")
	}
	r.block(&t.b)
	if !t.hasText && t.finText != nil {
		h.raw(`<div class="msg a"><div class="who">assistant <span class="na">(the turn's result)</span></div><div class="md">`)
		md(h, t.finText.String())
		h.raw("</div>")
		r.cutNote(t.finText)
		h.raw("</div>")
	}
	if t.fin != nil && t.fin.Reason != "" {
		h.raw(`<p class="note ` + map[bool]string{true: "err", false: "info"}[t.fin.Status == event.StatusError] + `"><b>turn ended</b> `)
		h.text(t.fin.Reason)
		h.raw("</p>")
	}
	h.raw("</section>\n")
}

// esc escapes a string for HTML, as hw.text writes it.
func esc(s string) string {
	var b strings.Builder
	h := &hw{w: bufio.NewWriterSize(&b, 256)}
	h.text(s)
	h.flush()
	return b.String()
}

// block writes a block's items: live while the live markup lasts, then
// in data blocks of about Chunk bytes.
func (r *renderer) block(b *block) {
	for i := 0; i < len(b.items); {
		if r.inSlot || r.h.n < r.live {
			r.item(b.items[i])
			i++
			continue
		}
		var buf bytes.Buffer
		sub := r.sub(&buf)
		from := i
		for i < len(b.items) && sub.h.n <= int64(r.lim.Chunk) {
			sub.item(b.items[i])
			i++
		}
		sub.h.flush()
		what := itoa(i-from) + " items"
		if i-from == 1 {
			what = "1 item"
		}
		r.slot(buf.Bytes(), sub.counts, what, 0, 0)
	}
}

func (r *renderer) end() {
	h, m := r.h, r.m
	h.raw(`<footer class="end"><h2>End of the run</h2>`)
	if m.fin == nil {
		h.raw(`<p class="na">The stream has no session_finished: the run may have been cut short.</p></footer>`)
		return
	}
	h.raw(`<p><span class="badge ` + statusClass(string(m.fin.Status)) + `">`)
	h.text(string(m.fin.Status))
	h.raw("</span>")
	if m.fin.StoppedBy != "" {
		h.raw(" stopped by ")
		h.text(string(m.fin.StoppedBy))
	}
	if m.finTime != "" {
		h.raw(" at ")
		h.text(timeText(m.finTime))
	}
	h.raw("</p>")
	if m.finMessage != nil {
		h.raw(`<p class="note ` + map[bool]string{true: "err", false: "info"}[m.fin.Status == event.StatusError] + `">`)
		h.text(m.finMessage.String())
		h.raw("</p>")
		r.cutNote(m.finMessage)
	}
	if len(m.finErrors) > 0 {
		h.raw(`<ul class="errs">`)
		for _, e := range m.finErrors {
			h.raw("<li>")
			h.text(e.String())
			h.raw("</li>")
		}
		h.raw("</ul>")
	}
	if m.finText != nil && !m.anyText {
		h.raw(`<div class="msg a"><div class="who">assistant <span class="na">(the run's result)</span></div><div class="md">`)
		md(h, m.finText.String())
		h.raw("</div>")
		r.cutNote(m.finText)
		h.raw("</div>")
	}
	if m.finReason != nil {
		h.raw(`<details class="msg r"><summary><span class="who">reasoning</span> (the run's result)</summary>`)
		r.plain(m.finReason, "pt")
		h.raw("</details>")
	}
	if m.finOut != nil {
		h.raw(`<div class="so"><div class="who">structured output</div>`)
		r.long(m.finOut, "in", nil)
		h.raw("</div>")
	}
	h.raw("</footer>")
}
