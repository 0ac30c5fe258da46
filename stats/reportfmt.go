package stats

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/evtool/evtool/diag"
)

// ReportFormats lists the formats of a usage report, the first the
// default.
func ReportFormats() []string { return []string{"text", "json", "csv", "markdown"} }

// WriteReport writes a usage report in a format of ReportFormats().
func WriteReport(w io.Writer, format string, rp *Report) error {
	switch format {
	case "text":
		return writeReportTable(w, rp, false)
	case "markdown":
		return writeReportTable(w, rp, true)
	case "json":
		return writeReportJSON(w, rp)
	case "csv":
		return writeReportCSV(w, rp)
	}
	return fmt.Errorf("unknown format %q: want %s", format, strings.Join(ReportFormats(), " or "))
}

// column is one column of a report table.
type column struct {
	head  string
	right bool // numbers: right-aligned
	get   func(r *Row) string
}

func tokenCell(t Token) func(r *Row) string {
	return func(r *Row) string {
		if n, ok := r.Usage.Tokens[t]; ok {
			return strconv.FormatUint(n, 10)
		}
		return none
	}
}

// tableColumns are the columns a text or markdown report shows: the
// dimensions, the four counts every producer states, reasoning, thoughts
// and the stated total where a row states them, the sum of the disjoint
// counts, the cost and its source, the models when not a dimension, and
// the tool calls when there are any.
func tableColumns(rp *Report, rows []*Row) []column {
	var cols []column
	for i, d := range rp.opts.By {
		cols = append(cols, column{head: string(d), get: func(r *Row) string {
			if i < len(r.Keys) {
				return r.Keys[i]
			}
			return "" // the total
		}})
	}
	stated := func(t Token) bool {
		return slices.ContainsFunc(rows, func(r *Row) bool { _, ok := r.Usage.Tokens[t]; return ok })
	}
	for _, t := range Tokens() {
		if t == Total || ((t == Reasoning || t == Thoughts) && !stated(t)) {
			continue
		}
		cols = append(cols, column{head: strings.ReplaceAll(string(t), "_", " "), right: true, get: tokenCell(t)})
	}
	cols = append(cols, column{head: "all tokens", right: true, get: func(r *Row) string { return strconv.FormatUint(r.AllTokens(), 10) }},
		column{head: "cost (USD)", right: true, get: func(r *Row) string { return orNone(r.Usage.CostUSD) }},
		column{head: "cost source", get: func(r *Row) string { return orNone(r.CostSource) }})
	if !slices.Contains(rp.opts.By, ByModel) {
		cols = append(cols, column{head: "models", get: func(r *Row) string { return orNone(strings.Join(r.Models, ", ")) }})
	}
	if rp.Total().Calls > 0 || slices.Contains(rp.opts.By, ByTool) {
		cols = append(cols, column{head: "calls", right: true, get: func(r *Row) string { return strconv.FormatUint(r.Calls, 10) }},
			column{head: "failed", right: true, get: func(r *Row) string { return strconv.FormatUint(r.Failed, 10) }})
	}
	return cols
}

// title says what the report groups by and in which time zone.
func title(rp *Report) string {
	var by []string
	for _, d := range rp.opts.By {
		by = append(by, string(d))
	}
	s := "usage by " + strings.Join(by, ", ") + " (times in " + rp.opts.Location.String()
	if !rp.opts.Since.IsZero() {
		s += ", from " + rp.opts.Since.In(rp.opts.Location).Format("2006-01-02T15:04:05Z07:00")
	}
	if !rp.opts.Until.IsZero() {
		s += ", before " + rp.opts.Until.In(rp.opts.Location).Format("2006-01-02T15:04:05Z07:00")
	}
	return s + ")"
}

// writeReportTable writes an aligned table, or a markdown one.
func writeReportTable(w io.Writer, rp *Report, markdown bool) error {
	rows := rp.Rows()
	tot := rp.Total()
	cols := tableColumns(rp, append(slices.Clone(rows), tot))
	cells := make([][]string, 0, len(rows)+2)
	head := make([]string, len(cols))
	for i, c := range cols {
		head[i] = c.head
	}
	cells = append(cells, head)
	// A cell may be the log's own string (a model, a project, a tool):
	// escaped, so that a control character in a log cannot drive the
	// terminal or forge a row.
	for _, r := range rows {
		line := make([]string, len(cols))
		for i, c := range cols {
			line[i] = diag.Escape(c.get(r))
		}
		cells = append(cells, line)
	}
	totLine := make([]string, len(cols))
	for i, c := range cols {
		totLine[i] = diag.Escape(c.get(tot))
	}
	for i := range rp.opts.By {
		totLine[i] = ""
	}
	totLine[0] = "total"
	cells = append(cells, totLine)
	width := make([]int, len(cols))
	for _, line := range cells {
		for i, s := range line {
			width[i] = max(width[i], utf8.RuneCountInString(s))
		}
	}
	pad := func(s string, i int) string {
		gap := strings.Repeat(" ", width[i]-utf8.RuneCountInString(s))
		if cols[i].right {
			return gap + s
		}
		return s + gap
	}
	bw := bufio.NewWriter(w)
	if markdown {
		fmt.Fprintf(bw, "%s\n\n", title(rp))
		for n, line := range cells {
			if n == len(cells)-1 {
				for i := range line {
					if line[i] != "" {
						line[i] = "**" + line[i] + "**"
					}
				}
			}
			bw.WriteString("|")
			for _, s := range line {
				bw.WriteString(" " + strings.ReplaceAll(s, "|", `\|`) + " |")
			}
			bw.WriteString("\n")
			if n == 0 {
				bw.WriteString("|")
				for i := range line {
					if cols[i].right {
						bw.WriteString(" ---: |")
					} else {
						bw.WriteString(" --- |")
					}
				}
				bw.WriteString("\n")
			}
		}
		for _, note := range capNotes(rows, tot) {
			fmt.Fprintf(bw, "\n%s\n", note)
		}
		return bw.Flush()
	}
	fmt.Fprintln(bw, title(rp))
	rule := func() {
		var parts []string
		for i := range cols {
			parts = append(parts, strings.Repeat("─", width[i]))
		}
		bw.WriteString(strings.Join(parts, "  ") + "\n")
	}
	for n, line := range cells {
		if n == len(cells)-1 {
			rule()
		}
		parts := make([]string, len(line))
		for i, s := range line {
			parts[i] = pad(s, i)
		}
		bw.WriteString(strings.TrimRight(strings.Join(parts, "  "), " ") + "\n")
		if n == 0 {
			rule()
		}
	}
	if rp.Outside > 0 {
		fmt.Fprintf(bw, "(left out, outside the time range: %d usage records and tool calls)\n", rp.Outside)
	}
	for _, note := range capNotes(rows, tot) {
		fmt.Fprintf(bw, "(%s)\n", note)
	}
	return bw.Flush()
}

// capNotes says which counts stopped at 2^64-1 in the table, and in how
// many rows: the JSON report lists them (saturated_tokens), and a table
// showing 18446744073709551615 must say that it is no sum.
func capNotes(rows []*Row, tot *Row) []string {
	var notes []string
	for _, t := range tokens {
		n := 0
		for _, r := range rows {
			if slices.Contains(r.Usage.Saturated, t.name) {
				n++
			}
		}
		if n == 0 && !slices.Contains(tot.Usage.Saturated, t.name) {
			continue
		}
		where := "in the total"
		if n > 0 {
			where = fmt.Sprintf("in %d of %d rows and the total", n, len(rows))
		}
		notes = append(notes, fmt.Sprintf("the %s tokens' sum exceeds 18446744073709551615 (2^64-1), where it stops: %s",
			strings.ReplaceAll(string(t.name), "_", " "), where))
	}
	return notes
}

// The JSON document of a report: counts are JSON integers, a cost a
// string holding an exact decimal; a figure no entry states is absent.
type (
	jsonReport struct {
		By       []Dim             `json:"by"`
		Timezone string            `json:"timezone"`
		Since    string            `json:"since,omitempty"`
		Until    string            `json:"until,omitempty"`
		Rows     []json.RawMessage `json:"rows"`
		Total    jsonRow           `json:"total"`
		Runs     uint64            `json:"runs"`
		Outside  uint64            `json:"outside_range"`
		Prices   *jsonPrices       `json:"prices,omitempty"`
	}
	jsonRow struct {
		Tokens     *jsonTokens `json:"tokens,omitempty"`
		AllTokens  uint64      `json:"all_tokens"`
		CostUSD    string      `json:"cost_usd,omitempty"`
		CostSource string      `json:"cost_source,omitempty"`
		Unpriced   []string    `json:"unpriced_models,omitempty"`
		Saturated  []Token     `json:"saturated_tokens,omitempty"`
		Models     []string    `json:"models"`
		Entries    uint64      `json:"entries"`
		Calls      uint64      `json:"calls"`
		Failed     uint64      `json:"failed_calls"`
	}
	jsonPrices struct {
		Sources any                     `json:"sources"`
		Models  map[string]jsonPricedAs `json:"models"`
	}
	jsonPricedAs struct {
		Key    string `json:"priced_as"`
		How    string `json:"match"`
		Source string `json:"source"`
	}
)

func rowJSON(r *Row) jsonRow {
	j := jsonRow{AllTokens: r.AllTokens(), CostUSD: r.Usage.CostUSD, CostSource: r.CostSource, Unpriced: r.Unpriced,
		Saturated: r.Usage.Saturated, Models: r.Models, Entries: r.Entries, Calls: r.Calls, Failed: r.Failed}
	if j.Models == nil {
		j.Models = []string{}
	}
	j.Tokens = usageJSON(r.Usage).Tokens
	return j
}

func writeReportJSON(w io.Writer, rp *Report) error {
	doc := jsonReport{By: rp.opts.By, Timezone: rp.opts.Location.String(), Rows: []json.RawMessage{}, Runs: rp.Runs, Outside: rp.Outside}
	if !rp.opts.Since.IsZero() {
		doc.Since = rp.opts.Since.Format("2006-01-02T15:04:05.999999999Z07:00")
	}
	if !rp.opts.Until.IsZero() {
		doc.Until = rp.opts.Until.Format("2006-01-02T15:04:05.999999999Z07:00")
	}
	for _, r := range rp.Rows() {
		// The dimensions first, under their names, then the figures.
		var b bytes.Buffer
		b.WriteByte('{')
		for i, d := range rp.opts.By {
			k, _ := json.Marshal(string(d))
			v, _ := json.Marshal(r.Keys[i])
			b.Write(k)
			b.WriteByte(':')
			b.Write(v)
			b.WriteByte(',')
		}
		rest, err := json.Marshal(rowJSON(r))
		if err != nil {
			return err
		}
		b.Write(rest[1:])
		doc.Rows = append(doc.Rows, b.Bytes())
	}
	doc.Total = rowJSON(rp.Total())
	if rp.opts.Prices != nil {
		doc.Prices = &jsonPrices{Sources: rp.opts.Prices.Sources, Models: map[string]jsonPricedAs{}}
		for model, m := range rp.Priced() {
			doc.Prices.Models[model] = jsonPricedAs{Key: m.Model.Key, How: m.How, Source: m.Model.Source.File}
		}
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}

// writeReportCSV writes one header line and a line per row, then the
// total with "total" in its first column: every count, exact.
func writeReportCSV(w io.Writer, rp *Report) error {
	cw := csv.NewWriter(w)
	var head []string
	for _, d := range rp.opts.By {
		head = append(head, string(d))
	}
	for _, t := range Tokens() {
		head = append(head, string(t))
	}
	head = append(head, "all_tokens", "cost_usd", "cost_source", "models", "entries", "calls", "failed_calls")
	if err := cw.Write(head); err != nil {
		return err
	}
	line := func(keys []string, r *Row) []string {
		out := slices.Clone(keys)
		for _, t := range Tokens() {
			v := ""
			if n, ok := r.Usage.Tokens[t]; ok {
				v = strconv.FormatUint(n, 10)
			}
			out = append(out, v)
		}
		return append(out, strconv.FormatUint(r.AllTokens(), 10), r.Usage.CostUSD, r.CostSource, strings.Join(r.Models, " "),
			strconv.FormatUint(r.Entries, 10), strconv.FormatUint(r.Calls, 10), strconv.FormatUint(r.Failed, 10))
	}
	for _, r := range rp.Rows() {
		if err := cw.Write(line(r.Keys, r)); err != nil {
			return err
		}
	}
	keys := make([]string, len(rp.opts.By))
	keys[0] = "total"
	if err := cw.Write(line(keys, rp.Total())); err != nil {
		return err
	}
	cw.Flush()
	return cw.Error()
}
