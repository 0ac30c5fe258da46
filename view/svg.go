package view

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/evtool/evtool/stats"
)

// The two charts are SVG drawn here: no script, no library, nothing
// fetched. Each draws only what the stream states: a round or a call
// without a stated start and end is not drawn (and the chart says how
// many), and a stream without times or usage gets a sentence, not an
// axis of zeros.

const (
	svgW      = 1000.0
	svgLeft   = 78.0 // the lanes' labels
	svgRight  = 8.0
	laneH     = 14.0
	laneGap   = 5.0
	axisH     = 18.0
	maxLanes  = 6    // tool lanes; more overlapping calls share the last
	maxBars   = 1500 // bars a lane draws; past it, bars a pixel apart merge
	maxPoints = 1000 // points a curve draws
)

func (r *renderer) charts() {
	r.h.raw(`<section class="charts">`)
	r.timeline()
	r.usageChart()
	r.h.raw("</section>")
}

// bar is one drawn interval.
type bar struct {
	x0, x1 float64
	class  string
	title  string
	href   string
	n      int // intervals merged into it
}

func (r *renderer) timeline() {
	h, m, st := r.h, r.m, r.run.Stats
	h.raw(`<div class="chart"><h2>Timeline</h2>`)
	defer h.raw("</div>")
	t0, ok0 := parseTime(st.Start)
	t1, ok1 := parseTime(st.End)
	if !ok0 || !ok1 {
		h.raw(`<p class="na">The stream states no times: there is no timeline to draw.</p>`)
		return
	}
	total := t1.Sub(t0).Seconds()
	if total <= 0 {
		h.raw(`<p class="na">The stream states one time only (` + esc(timeText(st.Start)) + `): there is no timeline to draw.</p>`)
		return
	}
	plotW := svgW - svgLeft - svgRight
	x := func(s string) (float64, bool) {
		t, ok := parseTime(s)
		if !ok {
			return 0, false
		}
		return svgLeft + plotW*t.Sub(t0).Seconds()/total, true
	}
	interval := func(a, b string) (float64, float64, bool) {
		xa, ok1 := x(a)
		xb, ok2 := x(b)
		if !ok1 || !ok2 || xb < xa {
			return 0, 0, false
		}
		return xa, xb, true
	}
	var turns, rounds []bar
	for _, t := range m.turns {
		if a, b, ok := interval(t.start, t.end); ok && t.end != t.start {
			d, _ := seconds(t.start, t.end)
			turns = append(turns, bar{x0: a, x1: b, class: "bt", title: "turn " + itoa(t.n) + ", " + durText(d), href: "#" + r.id + "-t" + itoa(t.n)})
		}
	}
	for _, s := range m.rounds {
		if a, b, ok := interval(s.start, s.end); ok {
			d, _ := seconds(s.start, s.end)
			rounds = append(rounds, bar{x0: a, x1: b, class: "br", title: s.label + ", " + durText(d)})
		}
	}
	var tools []bar
	untimed := 0
	for _, c := range m.cards {
		a, b, ok := interval(c.start, c.end)
		if !ok {
			untimed++
			continue
		}
		st := "unfinished"
		if c.fin != nil {
			st = string(c.fin.Status)
		}
		d, _ := seconds(c.start, c.end)
		tools = append(tools, bar{x0: a, x1: b, class: statusClass(st), title: c.name + ", " + st + ", " + durText(d), href: "#" + r.id + "-c" + itoa(c.n)})
	}
	lanes := packLanes(tools)
	type row struct {
		label string
		bars  []bar
		what  string
	}
	rows := []row{{"turns", turns, "turns"}, {"rounds", rounds, "rounds"}}
	for i, l := range lanes {
		label := ""
		if i == 0 {
			label = "tool calls"
		}
		rows = append(rows, row{label, l, "tool calls"})
	}
	if len(lanes) == 0 {
		rows = append(rows, row{"tool calls", nil, "tool calls"})
	}
	height := float64(len(rows))*(laneH+laneGap) + axisH
	h.raw(`<svg class="tl" viewBox="0 0 1000 ` + f1(height) + `" role="img" aria-label="timeline of turns, rounds and tool calls">`)
	// The axis: five ticks, labelled from the run's start.
	for i := 0; i <= 4; i++ {
		xx := svgLeft + plotW*float64(i)/4
		h.raw(`<line class="grid" x1="` + f1(xx) + `" x2="` + f1(xx) + `" y1="0" y2="` + f1(height-axisH) + `"/>`)
		anchor := "middle"
		switch i {
		case 0:
			anchor = "start"
		case 4:
			anchor = "end"
		}
		h.raw(`<text class="ax" x="` + f1(xx) + `" y="` + f1(height-4) + `" text-anchor="` + anchor + `">+` + durText(total*float64(i)/4) + `</text>`)
	}
	for i, rw := range rows {
		y := float64(i) * (laneH + laneGap)
		if rw.label != "" {
			h.raw(`<text class="lb" x="0" y="` + f1(y+laneH-3) + `">` + rw.label + `</text>`)
		}
		for _, b := range mergeBars(rw.bars, rw.what) {
			w := math.Max(b.x1-b.x0, 1.5)
			if b.href != "" && b.n == 1 {
				h.raw(`<a href="`)
				h.attr(b.href)
				h.raw(`">`)
			}
			h.raw(`<rect class="` + b.class + `" x="` + f1(b.x0) + `" y="` + f1(y) + `" width="` + f1(w) + `" height="` + f1(laneH) + `"><title>`)
			h.text(b.title)
			h.raw("</title></rect>")
			if b.href != "" && b.n == 1 {
				h.raw("</a>")
			}
		}
	}
	h.raw("</svg>")
	h.raw(`<p class="cap">From ` + esc(timeText(st.Start)) + ` to ` + esc(timeText(st.End)) + ` (` + durText(total) + `).`)
	if len(rounds) == 0 {
		h.raw(" No round states its end time.")
	}
	if untimed > 0 {
		h.raw(" " + itoa(untimed) + " of " + itoa(len(m.cards)) + " tool calls state no start or no end time and are not drawn.")
	}
	h.raw("</p>")
}

// packLanes puts overlapping calls on separate lanes, the first lane
// that is free at a call's start, up to maxLanes.
func packLanes(bars []bar) [][]bar {
	slices.SortStableFunc(bars, func(a, b bar) int {
		switch {
		case a.x0 < b.x0:
			return -1
		case a.x0 > b.x0:
			return 1
		}
		return 0
	})
	var lanes [][]bar
	var ends []float64
	for _, b := range bars {
		placed := false
		for i := range lanes {
			if ends[i] <= b.x0 {
				lanes[i], ends[i] = append(lanes[i], b), b.x1
				placed = true
				break
			}
		}
		if placed {
			continue
		}
		if len(lanes) < maxLanes {
			lanes, ends = append(lanes, []bar{b}), append(ends, b.x1)
			continue
		}
		last := len(lanes) - 1
		lanes[last], ends[last] = append(lanes[last], b), math.Max(ends[last], b.x1)
	}
	return lanes
}

// mergeBars merges, in a lane with more than maxBars bars, the bars that
// are within half a unit of each other, so that a long run draws a
// bounded number of shapes.
func mergeBars(bars []bar, what string) []bar {
	for i := range bars {
		bars[i].n = 1
	}
	if len(bars) <= maxBars {
		return bars
	}
	var out []bar
	for _, b := range bars {
		if k := len(out) - 1; k >= 0 && b.x0 <= out[k].x1+0.5 {
			out[k].x1 = math.Max(out[k].x1, b.x1)
			out[k].n += b.n
			out[k].title = itoa(out[k].n) + " " + what
			if b.class != out[k].class && b.class == "bad" {
				out[k].class = "bad"
			}
			continue
		}
		out = append(out, b)
	}
	return out
}

func f1(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }

// usageChart draws the tokens and cost added up over the run, from the
// finest level of usage the stream states (each round, else each usage
// event, else each turn).
func (r *renderer) usageChart() {
	h, m, st := r.h, r.m, r.run.Stats
	h.raw(`<div class="chart"><h2>Tokens and cost over the run</h2>`)
	defer h.raw("</div>")
	names := [4]string{"session_finished", "turn_finished", "round_finished", "usage events"}
	level := -1
	for _, l := range []int{2, 3, 1, 0} {
		if len(m.usage[l]) >= 2 {
			level = l
			break
		}
	}
	if level < 0 {
		switch {
		case st.UsageFrom == "":
			h.raw(`<p class="na">The stream states no token usage: there is nothing to draw.</p>`)
		default:
			h.raw(`<p class="na">The stream states its usage once only (in ` + names[levelIndex(st.UsageFrom)] + `): there is no curve over the run to draw; the totals are above.</p>`)
		}
		return
	}
	pts := m.usage[level]
	timed := true
	for _, p := range pts {
		if _, ok := parseTime(p.time); !ok {
			timed = false
			break
		}
	}
	if timed {
		// Over time, in time order: a subagent's rounds interleave with
		// its parent's in the stream, each with its own time.
		pts = slices.Clone(pts)
		slices.SortStableFunc(pts, func(a, b point) int { return strings.Compare(a.time, b.time) })
	}
	// The curves start from nothing: at the run's start, or before the
	// first usage.
	var t0 time.Time
	span := float64(len(pts))
	if timed {
		t0, _ = parseTime(pts[0].time)
		if ts, ok := parseTime(st.Start); ok && ts.Before(t0) {
			t0 = ts
		}
		tl, _ := parseTime(pts[len(pts)-1].time)
		span = tl.Sub(t0).Seconds()
		if span <= 0 {
			timed, span = false, float64(len(pts))
		}
	}
	tok := []uint64{0}
	cost := []float64{0}
	var sumT uint64
	var sumC float64
	hasCost := false
	for _, p := range pts {
		sumT = satAdd(sumT, p.tokens)
		sumC += p.cost
		hasCost = hasCost || p.hasCost
		tok, cost = append(tok, sumT), append(cost, sumC)
	}
	const plotH = 150.0
	plotW := svgW - svgLeft - 70
	xs := []float64{svgLeft}
	for i, p := range pts {
		if timed {
			t, _ := parseTime(p.time)
			xs = append(xs, svgLeft+plotW*t.Sub(t0).Seconds()/span)
		} else {
			xs = append(xs, svgLeft+plotW*float64(i+1)/span)
		}
	}
	step := (len(xs) + maxPoints - 1) / maxPoints
	polyline := func(class string, y func(i int) float64) {
		h.raw(`<polyline class="` + class + `" points="`)
		for i := 0; i < len(xs); i += step {
			h.raw(f1(xs[i]) + "," + f1(y(i)) + " ")
		}
		last := len(xs) - 1
		h.raw(f1(xs[last]) + "," + f1(y(last)) + `"/>`)
	}
	top := 8.0
	maxT := float64(sumT)
	h.raw(`<svg class="uc" viewBox="0 0 1000 ` + f1(plotH+top+axisH+4) + `" role="img" aria-label="cumulative tokens and cost">`)
	h.raw(`<line class="grid" x1="` + f1(svgLeft) + `" x2="` + f1(svgLeft+plotW) + `" y1="` + f1(top+plotH) + `" y2="` + f1(top+plotH) + `"/>`)
	h.raw(`<line class="grid" x1="` + f1(svgLeft) + `" x2="` + f1(svgLeft+plotW) + `" y1="` + f1(top) + `" y2="` + f1(top) + `"/>`)
	h.raw(`<text class="ax tk" x="` + f1(svgLeft-4) + `" y="` + f1(top+4) + `" text-anchor="end">` + fmtU(sumT) + `</text>`)
	h.raw(`<text class="ax" x="` + f1(svgLeft-4) + `" y="` + f1(top+plotH) + `" text-anchor="end">0</text>`)
	if maxT > 0 {
		polyline("tk", func(i int) float64 { return top + plotH - plotH*float64(tok[i])/maxT })
	}
	if hasCost && sumC > 0 {
		h.raw(`<text class="ax co" x="` + f1(svgLeft+plotW+4) + `" y="` + f1(top+4) + `">$` + strconv.FormatFloat(sumC, 'g', 4, 64) + `</text>`)
		polyline("co", func(i int) float64 { return top + plotH - plotH*cost[i]/sumC })
	}
	xlabel := itoa(len(pts)) + " " + names[level] + " in stream order (they state no times)"
	if timed {
		xlabel = "time: +0 … +" + durText(span)
	}
	h.raw(`<text class="ax" x="` + f1(svgLeft) + `" y="` + f1(top+plotH+axisH) + `">`)
	h.text(xlabel)
	h.raw("</text></svg>")
	h.raw(`<p class="cap"><span class="key tk">tokens</span> (input, output, cache read, cache write and thoughts) `)
	if hasCost {
		h.raw(`and <span class="key co">cost</span> `)
	}
	h.raw(`added up over the ` + itoa(len(pts)) + " " + names[level] + ".")
	if lvl := levelIndex(st.UsageFrom); lvl != level {
		h.raw(" The totals above come from " + names[lvl] + ", so the curve's end may differ from them.")
	}
	if !hasCost {
		h.raw(" No cost is stated at this level.")
	}
	h.raw("</p>")
}

// levelIndex is a stats level's index in the order of stats.Levels.
func levelIndex(l stats.Level) int {
	switch l {
	case stats.LevelSession:
		return 0
	case stats.LevelTurns:
		return 1
	case stats.LevelRounds:
		return 2
	}
	return 3
}
