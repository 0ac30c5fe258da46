package cli

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/evtool/evtool/adapters/acp/replay"
	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/prices"
	"github.com/evtool/evtool/sessions"
	"github.com/urfave/cli/v3"
)

const acpServeLong = `Acts as an ACP agent on stdin and stdout that offers every session the
agents keep on disk (see evtool sessions): session/list lists them (the
sessions of the directory the editor asks about, most recent first, 200 a
page), and session/load streams the one named as its history, so that an
editor can browse and reopen any past session of any agent. session/new is
refused: there is nothing to run.

The sessions are found once, at the first session/list or session/load,
in the agents' standard locations or under the operands. Nothing is
written, and the network is never opened.`

func acpServeCmd() *cli.Command {
	var (
		agents  []string
		project string
		profile string
		meta    bool
		rate    int
	)
	return &cli.Command{
		Name:        "serve",
		Usage:       "act as an ACP agent on stdin/stdout that offers every past session on disk to load",
		ArgsUsage:   "[DIR|FILE|DB...]",
		Description: acpServeLong,
		Flags: []cli.Flag{
			&cli.StringSliceFlag{Name: "agent", Aliases: []string{"a"}, Destination: &agents, Usage: "only the sessions of `AGENT` (repeatable)"},
			&cli.StringFlag{Name: "project", Aliases: []string{"p"}, Destination: &project, Usage: "only sessions whose working directory is `DIR`"},
			&cli.StringFlag{Name: "acp-profile", Value: "stable", Destination: &profile, Usage: "stable, unstable or basis"},
			&cli.BoolFlag{Name: "acp-meta", Destination: &meta, Usage: "carry source residue under _meta"},
			&cli.IntFlag{Config: base10, Name: "rate", Value: replay.DefaultRate, Destination: &rate, Usage: "send at most `N` notifications a second (0: as fast as the client reads)"},
		},
		Metadata: completions(map[string][]string{"agent": agentNames(), "acp-profile": acpProfiles}),
		Action: action(func(ctx context.Context, cmd *cli.Command, args []string) error {
			agents, err := agentFlag(agents)
			if err != nil {
				return err
			}
			cfg, err := acpConfig(profile, meta, true)
			if err != nil {
				return err
			}
			if err := nonNegative("--rate", rate, "as fast as the client reads"); err != nil {
				return err
			}
			if rate == 0 {
				rate = -1
			}
			table, err := priceTable(nil)
			if err != nil {
				return err
			}
			lib := &history{paths: args, filter: sessions.Filter{Agents: agents, Project: project}, prices: table,
				cache: summaryCache(cmd.Root().ErrWriter, nil)}
			err = replay.Serve(ctx, cmd.Root().Reader, cmd.Root().Writer, nil, replay.Options{Library: lib, Name: "history",
				Profile: cfg.Profile, Meta: cfg.Meta, Rate: rate, Log: cmd.Root().ErrWriter})
			if err != nil {
				return ioErr(err)
			}
			return nil
		}),
	}
}

// history is the replay.Library of every session on disk, found once.
type history struct {
	paths  []string
	filter sessions.Filter
	// The listing is `evtool sessions`' own, with its prices and cache
	// (a session's summary is the same whichever command made it).
	prices *prices.Table
	cache  *sessions.Cache

	once sync.Once
	list []*sessions.Summary
	err  error
}

func (h *history) load(ctx context.Context) ([]*sessions.Summary, error) {
	h.once.Do(func() {
		h.list, h.err = sessions.List(ctx, h.paths, sessions.ListOptions{Filter: h.filter, Prices: h.prices, Cache: h.cache})
		if h.cache != nil {
			_ = h.cache.Save() // a cache not written costs the next start its time, nothing else
		}
		// Most recent first, as an editor shows them.
		slices.SortStableFunc(h.list, func(a, b *sessions.Summary) int { return strings.Compare(b.End, a.End) })
	})
	return h.list, h.err
}

// List implements replay.Library.
func (h *history) List(ctx context.Context, cwd string) ([]replay.Entry, error) {
	list, err := h.load(ctx)
	if err != nil {
		return nil, err
	}
	var out []replay.Entry
	for _, s := range list {
		// A session whose directory is unknown (a rollout that names none)
		// is shown whatever project the editor has open, as a replayed
		// recording is: an editor always asks for its own, and would
		// never find it otherwise.
		if cwd != "" && s.Project != "" && filepath.Clean(s.Project) != filepath.Clean(cwd) {
			continue
		}
		// Titled as acp replay titles a recording, by the user's first
		// prompt; a session without one by its agent and start.
		title := s.Title
		if title == "" {
			title = s.Agent + " session"
			if s.Start != "" {
				title += " of " + s.Start
			}
		}
		out = append(out, replay.Entry{ID: s.ID, Cwd: s.Project, Title: title, UpdatedAt: s.End})
	}
	return out, nil
}

// Open implements replay.Library.
func (h *history) Open(ctx context.Context, id string) (replay.Opener, dialect.Dialect, bool, error) {
	list, err := h.load(ctx)
	if err != nil {
		return nil, nil, false, err
	}
	for _, s := range list {
		if s.ID != id {
			continue
		}
		st, ok := sessions.Lookup(s.Agent)
		if !ok {
			return nil, nil, false, fmt.Errorf("no store of agent %s", s.Agent)
		}
		d, err := dialect.Lookup(st.Dialect())
		if err != nil {
			return nil, nil, false, err
		}
		ref := s.Ref
		return func() (io.ReadCloser, error) { return sessions.Open(st, ref) }, d, true, nil
	}
	return nil, nil, false, nil
}
