package view

import (
	"strconv"
	"strings"

	"github.com/evtool/evtool/event"
)

// item writes one item of a block by the method of its kind.
func (r *renderer) item(it any) {
	switch it := it.(type) {
	case *msg:
		r.msg(it)
	case *call:
		r.call(it)
	case *task:
		r.task(it)
	case *agent:
		r.agent(it, "agent")
	case *note:
		r.note(it)
	case *hk:
		r.hk(it)
	case *plan:
		r.plan(it)
	case *perm:
		r.h.raw(`<div class="perm solo">`)
		r.perm(it)
		r.h.raw("</div>")
	case *round:
		r.round(it)
	}
}

func (r *renderer) msg(m *msg) {
	h := r.h
	switch m.kind {
	case msgAssistant:
		h.raw(`<div class="msg a"><div class="who">assistant</div><div class="md">`)
		md(h, m.t.String())
		h.raw("</div>")
		r.cutNote(&m.t)
		h.raw("</div>")
	case msgReasoning:
		h.raw(`<details class="msg r"><summary><span class="who">reasoning</span> <span class="na">`)
		h.raw(fmtU(uint64(m.t.n)) + " bytes</span> ")
		h.text(strings.Trim(firstLine(m.t.String(), 120), "*_# "))
		h.raw(`</summary><div class="md">`)
		md(h, m.t.String())
		h.raw("</div>")
		r.cutNote(&m.t)
		h.raw("</details>")
	case msgUser:
		h.raw(`<div class="msg u"><div class="who">user`)
		if m.images > 0 {
			h.raw(` <span class="na">+` + fmtU(m.images) + ` images (not shown)</span>`)
		}
		h.raw(`</div>`)
		r.folded(&m.t)
		h.raw("</div>")
	}
}

// plain writes a text whole, as pre-wrapped text (a prompt, reasoning).
func (r *renderer) plain(t *text, class string) {
	r.h.raw(`<div class="` + class + `">`)
	r.h.text(t.String())
	r.h.raw("</div>")
	r.cutNote(t)
}

// folded writes a text as pre-wrapped text, a long one's first lines
// shown and the rest a click away (a prompt that pastes a file).
func (r *renderer) folded(t *text) {
	h := r.h
	lim := r.lim
	lim.Preview, lim.PreviewLines = 2*lim.Preview, 2*lim.PreviewLines
	head, rest := splitPreview(t.String(), lim)
	h.raw(`<div class="pt">`)
	h.text(head)
	h.raw("</div>")
	if rest != "" {
		h.raw(`<details class="more"><summary>show ` + fmtU(uint64(strings.Count(rest, "\n")+1)) + " more lines (" + bytesText(int64(len(rest))) +
			`)</summary><div class="pt">`)
		h.text(rest)
		h.raw("</div></details>")
	}
	r.cutNote(t)
}

// cutNote states what a cut text left out.
func (r *renderer) cutNote(t *text) {
	if !t.cut() {
		return
	}
	left := t.n - int64(len(t.b))
	r.h.raw(`<p class="cut" data-cut="` + strconv.FormatInt(left, 10) + `">cut: ` + bytesText(left) + ` more of this text (` +
		bytesText(t.n) + ` in all) not in this page</p>`)
}

// long writes a long text: its first lines, the rest a click away, the
// cut stated. lines, when set, writes the text (a diff's colours).
func (r *renderer) long(t *text, class string, lines func(h *hw, s string)) {
	h := r.h
	if lines == nil {
		lines = func(h *hw, s string) { h.text(s) }
	}
	head, rest := splitPreview(t.String(), r.lim)
	h.raw(`<pre class="` + class + `">`)
	lines(h, head)
	h.raw("</pre>")
	if rest != "" {
		h.raw(`<details class="more"><summary>show ` + fmtU(uint64(strings.Count(rest, "\n")+1)) + " more lines (" + bytesText(int64(len(rest))) +
			`)</summary><pre class="` + class + `">`)
		lines(h, rest)
		h.raw("</pre></details>")
	}
	r.cutNote(t)
}

func (r *renderer) call(c *call) {
	h := r.h
	r.cards++
	if r.cmin < 0 || c.n < r.cmin {
		r.cmin = c.n
	}
	r.cmax = max(r.cmax, c.n)
	st := "unfinished"
	if c.fin != nil {
		st = string(c.fin.Status)
	}
	h.raw(`<div class="tool s-` + statusClass(st) + `" id="` + r.id + "-c" + itoa(c.n) + `" data-status="`)
	h.attr(st)
	h.raw(`"><div class="th">`)
	if c.kind != "" {
		h.raw(`<span class="kind">`)
		h.text(string(c.kind))
		h.raw("</span> ")
	}
	h.raw(`<b class="name">`)
	if c.name == "" {
		h.raw(`<span class="na">unnamed tool</span>`)
	}
	h.text(c.name)
	h.raw(`</b> <span class="title">`)
	switch {
	case c.title != "":
		h.text(firstLine(c.title, 200))
	case c.cmd != nil:
		h.text(firstLine(c.cmd.String(), 200))
	case c.diff != nil && len(c.diff.files) > 0:
		h.text(c.diff.files[0].path)
	}
	h.raw(`</span> <span class="badge ` + statusClass(st) + `">`)
	h.text(st)
	h.raw("</span>")
	if c.fin != nil && c.fin.ExitCode != nil {
		h.raw(` <span class="exit ` + map[bool]string{true: "ok", false: "bad"}[*c.fin.ExitCode == 0] + `">exit ` + strconv.FormatInt(*c.fin.ExitCode, 10) + "</span>")
	}
	if s, ok := seconds(c.start, c.end); ok {
		h.raw(` <span class="dur">` + durText(s) + "</span>")
	}
	if c.mut == event.Mutating {
		h.raw(` <span class="na">mutating</span>`)
	}
	h.raw("</div>")
	for _, p := range c.perms {
		h.raw(`<div class="perm">`)
		r.perm(p)
		h.raw("</div>")
	}
	shown := false
	if c.cmd != nil {
		h.raw(`<pre class="cmd">$ `)
		h.text(c.cmd.String())
		h.raw("</pre>")
		r.cutNote(c.cmd)
		shown = true
	}
	if c.diff != nil {
		r.diff(c.diff)
		shown = true
	}
	if c.input != nil {
		if shown {
			h.raw(`<details class="raw"><summary>input</summary>`)
			r.long(c.input, "in", nil)
			h.raw("</details>")
		} else {
			r.long(c.input, "in", nil)
		}
	}
	if c.progress != nil {
		h.raw(`<details class="prog"><summary>` + fmtU(uint64(strings.Count(c.progress.String(), "\n")+1)) + ` progress messages</summary>`)
		r.long(c.progress, "out", nil)
		h.raw("</details>")
	}
	if c.fin != nil && c.fin.Command != "" && c.cmd == nil {
		h.raw(`<pre class="cmd">$ `)
		h.text(c.fin.Command)
		h.raw("</pre>")
	}
	if c.out != nil && c.out.n > 0 {
		r.long(c.out, "out", nil)
	}
	if c.finOut != nil {
		if c.finOut.n == 0 {
			h.raw(`<p class="na">no output</p>`)
		} else {
			r.long(c.finOut, "out", nil)
		}
	}
	if c.finSummary != nil {
		h.raw(`<p class="sum">`)
		h.text(c.finSummary.String())
		h.raw("</p>")
		r.cutNote(c.finSummary)
	}
	if c.finError != nil {
		r.long(c.finError, "err", nil)
	}
	if c.finEdit != nil {
		h.raw(`<details class="raw"><summary>edit</summary>`)
		r.long(c.finEdit, "in", nil)
		h.raw("</details>")
	}
	if c.finWeb != nil {
		h.raw(`<details class="raw"><summary>web</summary>`)
		r.long(c.finWeb, "in", nil)
		h.raw("</details>")
	}
	if c.fin == nil {
		h.raw(`<p class="na">The stream never finished this call.</p>`)
	}
	if c.sub != nil {
		r.agent(c.sub, "subagent")
	}
	h.raw("</div>")
}

func (r *renderer) diff(d *diffView) {
	h := r.h
	h.raw(`<div class="df">`)
	for _, f := range d.files {
		if f.path != "" || f.op != "" {
			h.raw(`<div class="fh">`)
			if f.op != "" {
				h.raw(`<span class="kind">`)
				h.text(f.op)
				h.raw("</span> ")
			}
			h.text(f.path)
			h.raw("</div>")
		}
		if f.t != nil && f.t.n > 0 {
			r.long(f.t, "diff", diffBody)
		}
	}
	if d.more > 0 {
		h.raw(`<p class="na">and ` + itoa(d.more) + ` more files</p>`)
	}
	h.raw("</div>")
}

func (r *renderer) perm(p *perm) {
	h := r.h
	if p.req != nil {
		h.raw(`<b>permission asked</b>`)
		if p.req.Tool != "" {
			h.raw(" for ")
			h.text(p.req.Tool)
		}
		if p.desc != nil {
			h.raw(": ")
			h.text(p.desc.String())
		}
		if p.req.Risk != "" {
			h.raw(` <span class="risk">risk `)
			h.text(p.req.Risk)
			h.raw("</span>")
		}
		h.raw(" → ")
	} else {
		h.raw(`<b>permission</b> `)
		if p.res.Tool != "" {
			h.raw("for ")
			h.text(p.res.Tool)
			h.raw(" ")
		}
	}
	if p.res == nil {
		h.raw(`<span class="na">no answer in the stream</span>`)
	} else {
		h.raw(`<span class="badge ` + statusClass(string(p.res.Outcome)) + `">`)
		h.text(string(p.res.Outcome))
		h.raw("</span>")
		if p.res.Scope != "" {
			h.raw(" (")
			h.text(p.res.Scope)
			h.raw(")")
		}
	}
	if p.preview != nil {
		h.raw(`<details class="raw"><summary>preview</summary>`)
		r.long(p.preview, "in", nil)
		h.raw("</details>")
	}
}

func (r *renderer) task(t *task) {
	h := r.h
	h.raw(`<div class="task s-` + statusClass(string(t.status)) + `"><span class="kind">`)
	kind := string(t.kind)
	if kind == "" {
		kind = "task"
	}
	h.text(strings.ReplaceAll(kind, "_", " "))
	h.raw(`</span> <b>`)
	if t.title != "" {
		h.text(firstLine(t.title, 200))
	} else {
		h.text(t.id)
	}
	h.raw(`</b> <span class="badge ` + statusClass(string(t.status)) + `">`)
	h.text(string(t.status))
	h.raw("</span>")
	if t.updates > 1 {
		h.raw(` <span class="na">` + itoa(t.updates) + " updates</span>")
	}
	if t.reason != "" {
		h.raw(" ")
		h.text(t.reason)
	}
	if t.detail != nil {
		h.raw(`<div class="pt">`)
		h.text(t.detail.String())
		h.raw("</div>")
		r.cutNote(t.detail)
	}
	if t.sub != nil {
		r.agent(t.sub, "subagent")
	}
	h.raw("</div>")
}

func (r *renderer) agent(a *agent, what string) {
	h := r.h
	h.raw(`<details class="sub" open><summary>` + what + ` <span class="na">`)
	h.text(a.id)
	h.raw(" · " + itoa(len(a.b.items)) + " items</span></summary>")
	r.block(&a.b)
	h.raw("</details>")
}

func (r *renderer) note(n *note) {
	h := r.h
	h.raw(`<div class="note ` + n.class + `"><b>`)
	h.text(n.label)
	h.raw("</b> ")
	if n.t != nil {
		h.text(n.t.String())
		r.cutNote(n.t)
	}
	if n.more != nil {
		h.raw(`<details class="raw"><summary>more</summary>`)
		r.long(n.more, "in", nil)
		h.raw("</details>")
	}
	h.raw("</div>")
}

func (r *renderer) hk(k *hk) {
	h := r.h
	counts := map[string]int{}
	var order []string
	for _, n := range k.notes {
		if counts[n.label] == 0 {
			order = append(order, n.label)
		}
		counts[n.label]++
	}
	var parts []string
	for _, l := range order {
		parts = append(parts, esc(l)+" "+itoa(counts[l]))
	}
	if k.more > 0 {
		parts = append(parts, "and "+itoa(k.more)+" more")
	}
	h.raw(`<details class="hk"><summary>housekeeping: ` + strings.Join(parts, ", ") + `</summary><ul>`)
	for _, n := range k.notes {
		h.raw("<li><b>")
		h.text(n.label)
		h.raw("</b> ")
		if t := n.task; t != nil {
			if t.title != "" {
				h.text(t.title)
			} else {
				h.text(t.id)
			}
			h.raw(` <span class="badge ` + statusClass(string(t.status)) + `">`)
			h.text(string(t.status))
			h.raw("</span>")
			if t.detail != nil {
				h.raw(" ")
				h.text(firstLine(t.detail.String(), 200))
			}
			if t.reason != "" {
				h.raw(" ")
				h.text(t.reason)
			}
			if t.sub != nil {
				r.agent(t.sub, "subagent")
			}
		}
		if n.t != nil {
			h.text(n.t.String())
			r.cutNote(n.t)
		}
		if n.more != nil {
			r.long(n.more, "in", nil)
		}
		h.raw("</li>")
	}
	h.raw("</ul></details>")
}

func (r *renderer) plan(p *plan) {
	h := r.h
	done := 0
	for _, e := range p.entries {
		if e.Status == "completed" {
			done++
		}
	}
	h.raw(`<details class="plan"><summary>plan: ` + itoa(done) + " of " + itoa(len(p.entries)+p.more) + " done</summary><ul>")
	for _, e := range p.entries {
		mark := "☐"
		switch e.Status {
		case "completed":
			mark = "☑"
		case "in_progress":
			mark = "▶"
		}
		h.raw(`<li class="` + statusClass(e.Status) + `">` + mark + " ")
		h.text(e.Content)
		h.raw("</li>")
	}
	if p.more > 0 {
		h.raw("<li>and " + itoa(p.more) + " more</li>")
	}
	h.raw("</ul></details>")
}

func (r *renderer) round(rd *round) {
	h := r.h
	h.raw(`<div class="round">round ` + itoa(rd.n))
	if rd.stop != "" {
		h.raw(" · ")
		h.text(string(rd.stop))
	}
	if rd.stated {
		h.raw(" · " + fmtU(rd.tokens) + " tokens")
	}
	h.raw("</div>")
}

// end writes what session_finished says.
