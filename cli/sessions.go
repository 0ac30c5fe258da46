package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/evtool/evtool/diag"
	"github.com/evtool/evtool/sessions"
	"github.com/evtool/evtool/stream"
	"github.com/urfave/cli/v3"
)

const sessionsLong = `Lists every session the agents keep on disk, one line each: the agent,
the session id, the project (the working directory the session states,
not the agent's directory name for it), the first and last times its
events state, its turns, tokens and cost in US dollars. A figure a session
does not state is shown as — (absent in JSON), never 0.

With no operand, each agent's standard locations are searched, as the
agent itself resolves them: $CLAUDE_CONFIG_DIR (else ~/.claude and
~/.config/claude), $CODEX_HOME (else ~/.codex), Gemini CLI's ~/.gemini, and
opencode's ${XDG_DATA_HOME:-~/.local/share}/opencode. An operand is a
directory of an agent's layout, a session file, or opencode's database.

Tokens add input (cached or not), output and thoughts, each counted once;
reasoning tokens are inside output. The cost is what the session states,
and its other usage at the embedded price table's prices (as evtool usage
reckons it; --prices FILE adds prices); a model the table lacks is named
on stderr and the session's cost shown as —, never a guess. Every file is read once, on every
core; nothing is written, and no agent's file or database is changed.

--since and --until take a date (2026-01-02, or 20260102) or an RFC 3339
time; a date is a whole day in local time (--until includes it).

Exit status: 0 when every session found was read; 1 when a session could
not be read to its end (listed with its error) or has lines with problems
(named on stderr; its figures count what could be read), or when an
agent's standard location cannot be searched (the others are); 2 for
usage errors and locations named that cannot be searched.

What a session sums up to is kept in evtool's cache
($XDG_CACHE_HOME/evtool/sessions.json, else ~/.cache/evtool/…): a session
whose files have not changed since (size, time and identity of each) is
not read again by the same evtool with the same prices. --no-cache reads
everything.`

func sessionsCmd() *cli.Command {
	var (
		agents       []string
		since, until string
		project      string
		format       string
		workers      int
		priceFiles   []string
		noCache      bool
	)
	return &cli.Command{
		Name:        "sessions",
		Usage:       "list the sessions agents keep on disk, with their turns, tokens and cost",
		ArgsUsage:   "[DIR|FILE|DB...]",
		Description: sessionsLong,
		Flags: []cli.Flag{
			&cli.StringSliceFlag{Name: "agent", Aliases: []string{"a"}, Destination: &agents, Usage: "only the sessions of `AGENT` (repeatable: " + strings.Join(agentNames(), ", ") + ")"},
			&cli.StringFlag{Name: "since", Destination: &since, Usage: "only sessions with an event at or after `WHEN`"},
			&cli.StringFlag{Name: "until", Destination: &until, Usage: "only sessions with an event at or before `WHEN`"},
			&cli.StringFlag{Name: "project", Aliases: []string{"p"}, Destination: &project, Usage: "only sessions whose working directory is `DIR` (a path, or its last element)"},
			&cli.StringFlag{Name: "format", Aliases: []string{"f"}, Value: "text", Destination: &format, Usage: "the output's `FORMAT`: text or json"},
			&cli.IntFlag{Config: base10, Name: "jobs", Aliases: []string{"j"}, HideDefault: true, Destination: &workers, Usage: "read `N` sessions at once (0, the default: one per CPU)"},
			&cli.StringSliceFlag{Name: "prices", Destination: &priceFiles, TakesFile: true, Usage: "prices from `FILE` (LiteLLM's, models.dev's or genai-prices' JSON) before the embedded table's (repeatable)"},
			&cli.BoolFlag{Name: "no-cache", Destination: &noCache, Usage: "read every session, and neither read nor write the summaries cache"},
		},
		Metadata: completions(map[string][]string{"agent": agentNames(), "format": {"text", "json"}}),
		Action: action(func(ctx context.Context, cmd *cli.Command, args []string) error {
			var f sessions.Filter
			var err error
			if f.Agents, err = agentFlag(agents); err != nil {
				return err
			}
			if f.Since, err = parseWhen("--since", since, false); err != nil {
				return err
			}
			if f.Until, err = parseWhen("--until", until, true); err != nil {
				return err
			}
			if !f.Since.IsZero() && !f.Until.IsZero() && f.Until.Before(f.Since) {
				return usageErr("--until %s is before --since %s", until, since)
			}
			f.Project = project
			if format != "text" && format != "json" {
				return usageErr("--format %q: want text or json%s", format, didYouMean(format, []string{"text", "json"}))
			}
			if err := checkJobs(workers); err != nil {
				return err
			}
			table, err := priceTable(priceFiles)
			if err != nil {
				return err
			}
			stderr := cmd.Root().ErrWriter
			unsearched := 0
			f.Unsearched = func(err error) {
				fmt.Fprintf(stderr, "evtool: %v\n", err)
				unsearched++
			}
			var cache *sessions.Cache
			if !noCache {
				cache = summaryCache(stderr, priceFiles)
			}
			list, err := sessions.List(ctx, args, sessions.ListOptions{Filter: f, Workers: workers, Prices: table, Cache: cache,
				Unpriced: unpricedNote(stderr)})
			if cache != nil {
				if err := cache.Save(); err != nil {
					fmt.Fprintf(stderr, "evtool: the sessions cache %s was not written (the next listing reads every session again): %v\n", cache.Path, err)
				}
			}
			if err != nil {
				return ioErr(err)
			}
			w := cmd.Root().Writer
			if format == "json" {
				err = writeSessionsJSON(w, list)
			} else {
				err = writeSessionsText(w, list)
			}
			if err != nil {
				return err
			}
			failed, bad := 0, 0
			errw := cmd.Root().ErrWriter
			for _, s := range list {
				var se *stream.StreamError
				switch {
				case errors.As(s.Err, &se) && !se.Usage:
					failed++
					fmt.Fprintln(errw, se.Diagnostic.String()) // it names the file
				case s.Err != nil:
					failed++
					fmt.Fprintf(errw, "evtool: %s: %v\n", diag.Escape(s.Path), s.Err)
				case s.BadLines > 0:
					// As usage and stats say it: the figures are of what
					// could be read, and evtool validate tells which lines.
					bad++
					fmt.Fprintf(errw, "evtool: %s: %s with problems; its figures count what could be read (evtool validate names them)\n", diag.Escape(s.Path), plural(int(s.BadLines), "line"))
				}
			}
			switch {
			case failed > 0:
				return problem("%d of %d sessions could not be read to their end", failed, len(list))
			case unsearched > 0:
				return problem("%s could not be searched", plural(unsearched, "location"))
			case bad > 0:
				return problem("%d of %d sessions have lines with problems", bad, len(list))
			}
			return nil
		}),
	}
}

// summaryCache returns the cache of session summaries in the user's cache
// directory, salted with this build and the price files' contents (a
// summary's cost depends on them); nil when there is no cache directory.
func summaryCache(stderr io.Writer, priceFiles []string) *sessions.Cache {
	path, err := sessions.DefaultCachePath()
	if err != nil {
		return nil // no home, no $XDG_CACHE_HOME: nothing to keep
	}
	if in := inAgents(path); in != "" {
		// Never written into an agent's own directories, whatever
		// $XDG_CACHE_HOME says.
		fmt.Fprintf(stderr, "evtool: the sessions cache is not kept: %s is in %s\n", path, in)
		return nil
	}
	var extra [][]byte
	for _, f := range priceFiles {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil // priceTable reported it already
		}
		extra = append(extra, []byte(f), b)
	}
	return &sessions.Cache{Path: path, Salt: sessions.BuildSalt(Version(), extra...)}
}

// agentFlag resolves the --agent values: each a store's agent, or its
// first word ("claude" for claude-code).
func agentFlag(values []string) ([]string, error) {
	var out []string
	for _, v := range values {
		a, err := sessions.Agent(v)
		if err != nil {
			return nil, usageErr("--agent %q: want %s%s", v, strings.Join(agentNames(), ", "), didYouMean(v, agentNames()))
		}
		out = append(out, a)
	}
	return out, nil
}

// agentNames returns the agents whose sessions evtool finds.
func agentNames() []string {
	var out []string
	for _, s := range sessions.Stores() {
		out = append(out, s.Agent())
	}
	return out
}

// parseWhen reads --since or --until: a date (a whole day, local time) or
// an RFC 3339 time. end says the date stands for its day's end.
func parseWhen(flag, v string, end bool) (time.Time, error) {
	if v == "" {
		return time.Time{}, nil
	}
	if t, err := time.Parse(time.RFC3339Nano, v); err == nil {
		return t, nil
	}
	for _, layout := range []string{"2006-01-02", "20060102"} {
		if t, err := time.ParseInLocation(layout, v, time.Local); err == nil {
			if end {
				t = t.AddDate(0, 0, 1).Add(-time.Nanosecond)
			}
			return t, nil
		}
	}
	return time.Time{}, usageErr("%s %q: want a date (2026-01-02 or 20260102) or an RFC 3339 time", flag, v)
}

// orDash returns a table's cell: "—" for nothing, else s escaped
// (diag.Escape), since a session's id, project and times are the log's
// own strings, and a control character in one must not drive the
// terminal or forge a row.
func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return diag.Escape(s)
}

func writeSessionsText(w io.Writer, list []*sessions.Summary) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "AGENT\tSESSION\tPROJECT\tSTART\tEND\tTURNS\tTOKENS\tCOST USD")
	for _, s := range list {
		turns, tokens := "—", "—"
		if s.Turns != nil {
			turns = strconv.FormatUint(*s.Turns, 10)
		}
		if s.TokensStated {
			tokens = strconv.FormatUint(s.Tokens, 10)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", orDash(s.Agent), orDash(s.ID), orDash(s.Project), orDash(s.Start), orDash(s.End),
			turns, tokens, orDash(s.CostUSD))
	}
	return tw.Flush()
}

type sessionJSON struct {
	Agent    string   `json:"agent"`
	ID       string   `json:"session_id"`
	Project  string   `json:"project,omitempty"`
	Title    string   `json:"title,omitempty"`
	Start    string   `json:"start,omitempty"`
	End      string   `json:"end,omitempty"`
	Turns    *uint64  `json:"turns,omitempty"`
	Tokens   *uint64  `json:"tokens,omitempty"`
	CostUSD  string   `json:"cost_usd,omitempty"`
	CostFrom string   `json:"cost_source,omitempty"`
	Path     string   `json:"path"`
	Parts    []string `json:"parts,omitempty"`
	Bytes    int64    `json:"bytes"`
	Lines    uint64   `json:"lines"`
	BadLines uint64   `json:"bad_lines"`
	Error    string   `json:"error,omitempty"`
}

// writeSessionsJSON writes {"sessions": [...]}: token counts as integers
// and the cost as the exact decimal text, never through float64.
func writeSessionsJSON(w io.Writer, list []*sessions.Summary) error {
	doc := struct {
		Sessions []sessionJSON `json:"sessions"`
	}{Sessions: []sessionJSON{}}
	for _, s := range list {
		j := sessionJSON{Agent: s.Agent, ID: s.ID, Project: s.Project, Title: s.Title, Start: s.Start, End: s.End, Turns: s.Turns,
			CostUSD: s.CostUSD, CostFrom: s.CostSource, Path: s.Path, Parts: s.Parts, Bytes: s.Size, Lines: s.Lines, BadLines: s.BadLines}
		if s.TokensStated {
			n := s.Tokens
			j.Tokens = &n
		}
		if s.Err != nil {
			j.Error = s.Err.Error()
		}
		doc.Sessions = append(doc.Sessions, j)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false) // a title or path as written, < and & too, as the usage report writes them
	return enc.Encode(doc)
}
