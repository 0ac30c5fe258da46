package stats

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/evtool/evtool/diag"
	"github.com/evtool/evtool/event"
)

// Formats lists the output formats, the first the default.
func Formats() []string { return []string{"text", "json"} }

// Write writes runs and their totals in a format of Formats().
func Write(w io.Writer, format string, runs []*Run, t *Totals) error {
	switch format {
	case "text":
		return WriteText(w, runs, t)
	case "json":
		return WriteJSON(w, runs, t)
	}
	return fmt.Errorf("unknown format %q: want %s", format, strings.Join(Formats(), " or "))
}

// The JSON document. Counts are JSON integers written from uint64, exact
// whatever their size; a cost is a string holding an exact decimal; a
// figure the streams do not state is absent, never 0.
type (
	jsonDoc struct {
		Runs   []any      `json:"runs"` // jsonRun or jsonFailed
		Totals jsonTotals `json:"totals"`
	}
	jsonRun struct {
		File          string    `json:"file"`
		Dialect       string    `json:"dialect,omitempty"`
		SourceDialect string    `json:"source_dialect,omitempty"`
		Models        []string  `json:"models,omitempty"`
		Status        string    `json:"status,omitempty"`
		Lines         uint64    `json:"lines"`
		BadLines      uint64    `json:"bad_lines"`
		Turns         *uint64   `json:"turns,omitempty"`
		Rounds        *uint64   `json:"rounds,omitempty"`
		ToolCalls     jsonCalls `json:"tool_calls"`
		UsageFrom     Level     `json:"usage_from,omitempty"`
		jsonUsage
		Notes []string `json:"notes,omitempty"`
	}
	jsonFailed struct {
		File  string `json:"file"`
		Error string `json:"error"`
	}
	jsonTotals struct {
		Runs      uint64            `json:"runs"`
		Failed    uint64            `json:"failed"`
		Lines     uint64            `json:"lines"`
		BadLines  uint64            `json:"bad_lines"`
		Dialects  map[string]uint64 `json:"dialects"`
		Models    []string          `json:"models,omitempty"`
		Turns     *uint64           `json:"turns,omitempty"`
		Rounds    *uint64           `json:"rounds,omitempty"`
		ToolCalls jsonCalls         `json:"tool_calls"`
		jsonUsage
		Stating map[string]uint64 `json:"runs_stating"`
	}
	jsonCalls struct {
		Total    uint64            `json:"total"`
		ByKind   map[string]uint64 `json:"by_kind"`
		ByStatus map[string]uint64 `json:"by_status"`
	}
	jsonUsage struct {
		Tokens          *jsonTokens `json:"tokens,omitempty"`
		CostUSD         string      `json:"cost_usd,omitempty"`
		Saturated       bool        `json:"saturated,omitempty"`
		SaturatedTokens []Token     `json:"saturated_tokens,omitempty"`
	}
	jsonTokens struct {
		Input      *uint64 `json:"input,omitempty"`
		Output     *uint64 `json:"output,omitempty"`
		CacheRead  *uint64 `json:"cache_read,omitempty"`
		CacheWrite *uint64 `json:"cache_write,omitempty"`
		Reasoning  *uint64 `json:"reasoning,omitempty"`
		Thoughts   *uint64 `json:"thoughts,omitempty"`
		Total      *uint64 `json:"total,omitempty"`
	}
)

// MarshalJSON writes a run without tool calls with empty breakdowns, so
// that the keys are always there.
func (c jsonCalls) MarshalJSON() ([]byte, error) {
	type plain jsonCalls
	if c.ByKind == nil {
		c.ByKind, c.ByStatus = map[string]uint64{}, map[string]uint64{}
	}
	return json.Marshal(plain(c))
}

func calls(t ToolCalls) jsonCalls {
	return jsonCalls(t)
}

func usageJSON(u Usage) jsonUsage {
	j := jsonUsage{CostUSD: u.CostUSD, Saturated: len(u.Saturated) > 0, SaturatedTokens: u.Saturated}
	if len(u.Tokens) > 0 {
		j.Tokens = &jsonTokens{}
		for name, p := range map[Token]**uint64{Input: &j.Tokens.Input, Output: &j.Tokens.Output, CacheRead: &j.Tokens.CacheRead,
			CacheWrite: &j.Tokens.CacheWrite, Reasoning: &j.Tokens.Reasoning, Thoughts: &j.Tokens.Thoughts, Total: &j.Tokens.Total} {
			if v, ok := u.Tokens[name]; ok {
				*p = &v
			}
		}
	}
	return j
}

// WriteJSON writes one JSON document: {"runs": [...], "totals": {...}}.
// README.md's "Stats" section documents its keys.
func WriteJSON(w io.Writer, runs []*Run, t *Totals) error {
	doc := jsonDoc{Runs: []any{}}
	for _, r := range runs {
		if r.Err != nil {
			// Its figures are left out of the totals, and here.
			doc.Runs = append(doc.Runs, jsonFailed{File: r.File, Error: r.Err.Error()})
			continue
		}
		j := jsonRun{File: r.File, Dialect: r.Dialect, SourceDialect: r.SourceDialect, Models: r.Models, Status: string(r.Status),
			Lines: r.Lines, BadLines: r.BadLines, Turns: r.Turns, Rounds: r.Rounds, ToolCalls: calls(r.ToolCalls),
			UsageFrom: r.UsageFrom, jsonUsage: usageJSON(r.Usage), Notes: r.Notes}
		doc.Runs = append(doc.Runs, j)
	}
	doc.Totals = jsonTotals{Runs: t.Runs, Failed: t.Failed, Lines: t.Lines, BadLines: t.BadLines, Dialects: t.Dialects,
		Models: t.Models, Turns: t.Turns, Rounds: t.Rounds, ToolCalls: calls(t.ToolCalls), jsonUsage: usageJSON(t.Usage), Stating: t.Stating}
	if doc.Totals.Dialects == nil {
		doc.Totals.Dialects, doc.Totals.Stating = map[string]uint64{}, map[string]uint64{}
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}

// none is how text output shows a figure the stream does not state.
const none = "—"

// WriteText writes a table per run and one of the totals.
func WriteText(w io.Writer, runs []*Run, t *Totals) error {
	bw := bufio.NewWriter(w)
	for _, r := range runs {
		tb := &table{}
		writeRun(tb, r)
		tb.flush(bw, r.File)
		bw.WriteString("\n")
	}
	tb := &table{}
	writeTotals(tb, t)
	tb.flush(bw, fmt.Sprintf("total of %s", plural(t.Runs, "run")))
	return bw.Flush()
}

func writeRun(tb *table, r *Run) {
	if r.Err != nil {
		tb.row(0, "not read", r.Err.Error())
		return
	}
	d := orNone(r.Dialect)
	if r.SourceDialect != "" {
		d += " (from " + r.SourceDialect + ")"
	}
	tb.row(0, "dialect", d)
	tb.row(0, "models", orNone(strings.Join(r.Models, ", ")))
	st := string(r.Status)
	if st == "" {
		st = none + " (no session_finished: the run may have been cut short)"
	}
	tb.row(0, "status", st)
	lines := strconv.FormatUint(r.Lines, 10)
	if r.BadLines > 0 {
		lines += fmt.Sprintf(", %d with problems", r.BadLines)
	}
	tb.row(0, "lines", lines)
	tb.row(0, "turns", count(r.Turns))
	tb.row(0, "rounds", count(r.Rounds))
	writeCalls(tb, r.ToolCalls)
	from := none
	switch r.UsageFrom {
	case LevelSession:
		from = "from session_finished"
	case LevelTurns:
		from = "summed over turn_finished"
	case LevelRounds:
		from = "summed over round_finished"
	case LevelUsageEvents:
		from = "summed over usage events"
	}
	writeUsage(tb, from, r.Usage, nil)
	for _, n := range r.Notes {
		tb.row(0, "note", n)
	}
}

func writeTotals(tb *table, t *Totals) {
	if t.Failed > 0 {
		tb.row(0, "not read", plural(t.Failed, "file"))
	}
	var ds []string
	for _, d := range sortedKeys(t.Dialects) {
		ds = append(ds, fmt.Sprintf("%s %d", orNone(d), t.Dialects[d]))
	}
	tb.row(0, "dialects", orNone(strings.Join(ds, ", ")))
	tb.row(0, "models", orNone(strings.Join(t.Models, ", ")))
	lines := strconv.FormatUint(t.Lines, 10)
	if t.BadLines > 0 {
		lines += fmt.Sprintf(", %d with problems", t.BadLines)
	}
	tb.row(0, "lines", lines)
	of := func(key, v string) string {
		if n := t.Stating[key]; n > 0 && n < t.Runs {
			return fmt.Sprintf("%s (%d of %d runs)", v, n, t.Runs)
		}
		return v
	}
	tb.row(0, "turns", of("turns", count(t.Turns)))
	tb.row(0, "rounds", of("rounds", count(t.Rounds)))
	writeCalls(tb, t.ToolCalls)
	writeUsage(tb, "", t.Usage, of)
}

func writeCalls(tb *table, c ToolCalls) {
	tb.row(0, "tool calls", strconv.FormatUint(c.Total, 10))
	if c.Total == 0 {
		return
	}
	var kinds []string
	for _, k := range event.ToolKinds() {
		kinds = append(kinds, string(k))
	}
	kinds = append(kinds, Unstated)
	tb.row(1, "by kind", breakdown(c.ByKind, kinds))
	statuses := []string{string(event.ToolSuccess), string(event.ToolError), string(event.ToolCancelled), string(event.ToolRejected), Unfinished, Unstated}
	tb.row(1, "by status", breakdown(c.ByStatus, statuses))
}

// breakdown lists counts in the order given, then any other key sorted.
func breakdown(m map[string]uint64, order []string) string {
	keys := sortedKeys(m)
	slices.SortStableFunc(keys, func(a, b string) int {
		ia, ib := slices.Index(order, a), slices.Index(order, b)
		if ia < 0 {
			ia = len(order)
		}
		if ib < 0 {
			ib = len(order)
		}
		return ia - ib
	})
	var out []string
	for _, k := range keys {
		out = append(out, fmt.Sprintf("%s %d", k, m[k]))
	}
	return strings.Join(out, ", ")
}

func writeUsage(tb *table, from string, u Usage, of func(key, v string) string) {
	if of == nil {
		of = func(_, v string) string { return v }
	}
	if len(u.Tokens) == 0 {
		tb.row(0, "tokens", none)
	} else {
		writeTokens(tb, from, u, of)
	}
	cost := none
	if u.CostUSD != "" {
		cost = of("cost_usd", u.CostUSD)
	}
	tb.row(0, "cost (USD)", cost)
	for _, s := range u.Saturated {
		tb.row(0, "note", fmt.Sprintf("the %s tokens' sum exceeds 18446744073709551615 (2^64-1), where it stops", strings.ReplaceAll(string(s), "_", " ")))
	}
}

// writeTokens writes the token counts, right-aligned.
func writeTokens(tb *table, from string, u Usage, of func(key, v string) string) {
	tb.row(0, "tokens", from)
	var vals []string
	width := 0
	for _, name := range Tokens() {
		v := none
		if n, ok := u.Tokens[name]; ok {
			v = strconv.FormatUint(n, 10)
		}
		width = max(width, utf8.RuneCountInString(v))
		vals = append(vals, v)
	}
	for i, name := range Tokens() {
		v := strings.Repeat(" ", width-utf8.RuneCountInString(vals[i])) + vals[i]
		if _, ok := u.Tokens[name]; ok {
			v = of(string(name), v)
		}
		tb.row(1, strings.ReplaceAll(string(name), "_", " "), v)
	}
}

// table is the rows of one block of text output: a label column, aligned,
// and a value column.
type table struct {
	rows [][2]string
}

// row adds a row. Labels and values may be the log's own strings (a
// model, a tool's name): they are escaped (diag.Escape), so that a control
// character in a log cannot drive the terminal or forge a line.
func (tb *table) row(indent int, label, value string) {
	tb.rows = append(tb.rows, [2]string{strings.Repeat("  ", indent) + diag.Escape(label), diag.Escape(value)})
}

func (tb *table) flush(w *bufio.Writer, title string) {
	w.WriteString(diag.Escape(title) + "\n")
	// The same width in every block, so that they read as one table.
	width := len("  cache write")
	for _, r := range tb.rows {
		width = max(width, len(r[0]))
	}
	for _, r := range tb.rows {
		line := "  " + r[0]
		if r[1] != "" {
			line += strings.Repeat(" ", width-len(r[0])+2) + r[1]
		}
		w.WriteString(strings.TrimRight(line, " ") + "\n")
	}
}

func count(n *uint64) string {
	if n == nil {
		return none
	}
	return strconv.FormatUint(*n, 10)
}

func orNone(s string) string {
	if s == "" {
		return none
	}
	return s
}

func plural(n uint64, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

func sortedKeys(m map[string]uint64) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
