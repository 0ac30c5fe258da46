package evbeam

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"

	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/event"
	"github.com/evtool/evtool/stats"
	"github.com/evtool/evtool/stream"
	"github.com/klauspost/compress/zstd"
	"github.com/tidwall/gjson"
)

// reduce reads a run as stats.Read reads it and returns what a usage
// report takes of it: its usage-bearing events (session_started,
// model_configured, the finished session, turns and rounds, usage
// events, tool calls), in canonical form, zstd-compressed, keeping of
// each only what the report reads: times, agent and turn ids, usage,
// call ids, names and statuses, and of the residue the model, the API
// response's id and the 1-hour part of a cache write. Read back by
// stats.Read into a stats.Report, they give it what the run itself would:
//
//   - every kept event states its time: an event without one has the
//     time the report gives it (the last stated before it, else the
//     run's first);
//   - tool_started stands for tool_progress and tool_output, which the
//     report reads alike (a call made known);
//   - the run's agent, when its session_started states neither an agent
//     nor a source dialect (or it has none), is the dialect it was read
//     as, stated in a session_started.
//
// bad counts the lines with problems; err is the error that ended the
// reading, which leaves the run out of a report (a *writeError is one of
// compressing).
func reduce(r io.Reader, name string, opts stream.Options) (data []byte, bad int, err error) {
	// A part keeps no text of the run's events: the decoder need not
	// read them (stream.Options.Summary; the verdicts are the same).
	opts.Summary = true
	rd := stream.NewReader(r, name, opts)
	defer rd.Close()
	var (
		kept                []*event.Event
		firstTime, lastTime string
		session, workspace  string
		agent               string
		decider             = -1 // the kept session_started that named the agent
		anySessionStarted   bool
	)
	for {
		ev, err := rd.Next()
		if err == io.EOF {
			break
		}
		var le *stream.LineError
		if errors.As(err, &le) {
			bad++
			continue
		}
		if err != nil {
			return nil, bad, err
		}
		t := strings.Clone(ev.Time)
		if t != "" {
			if firstTime == "" {
				firstTime = t
			}
			lastTime = t
		} else {
			t = lastTime
		}
		slim := slimEvent(ev)
		if slim == nil {
			continue
		}
		slim.Time = t
		if b, ok := ev.Body.(*event.SessionStarted); ok {
			anySessionStarted = true
			if session == "" && workspace == "" {
				session, workspace = b.SessionID, b.Workspace
				agent = b.Source.Dialect
				if b.Agent != nil && b.Agent.Name != "" {
					agent = b.Agent.Name
				}
				decider = len(kept)
			}
		}
		kept = append(kept, slim)
	}
	for _, ev := range kept {
		if ev.Time == "" {
			ev.Time = firstTime
		}
	}
	if agent == "" && rd.Dialect() != nil {
		src := event.SourceInfo{Dialect: rd.Dialect().Name()}
		if anySessionStarted {
			kept[decider].Body.(*event.SessionStarted).Source = src
		} else {
			kept = append([]*event.Event{{Time: firstTime, Body: &event.SessionStarted{Schema: 1, Source: src}}}, kept...)
		}
	}
	return encodeEvents(kept)
}

// partDialect is the dialect a Part is read back in: canonical lines,
// decoded as canonical lines are, without the canonical schema. A kept
// event holds what its run's reading made of a line, which, for a line
// with problems, the schema may refuse (a status left empty); the report
// takes it as the run's own reading gave it.
func partDialect() (dialect.Dialect, error) {
	canonical, err := dialect.Lookup("canonical")
	if err != nil {
		return nil, err
	}
	return partLines{canonical}, nil
}

type partLines struct{ dialect.Dialect }

func (partLines) Name() string   { return "evbeam-usage-part" }
func (partLines) Schema() []byte { return nil }

// encodeEvents writes events as canonical lines, zstd-compressed.
func encodeEvents(evs []*event.Event) ([]byte, int, error) {
	canonical, err := dialect.Lookup("canonical")
	if err != nil {
		return nil, 0, err
	}
	var buf bytes.Buffer
	zw, err := zstd.NewWriter(&buf, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1))
	if err != nil {
		return nil, 0, &writeError{err}
	}
	bw := bufio.NewWriterSize(zw, 64<<10)
	enc := canonical.NewEncoder(bw, dialect.EncodeOptions{})
	for _, ev := range evs {
		if err := enc.Encode(ev); err != nil {
			return nil, 0, &writeError{err}
		}
	}
	if err := enc.Close(); err != nil {
		return nil, 0, &writeError{err}
	}
	if err := bw.Flush(); err != nil {
		return nil, 0, &writeError{err}
	}
	if err := zw.Close(); err != nil {
		return nil, 0, &writeError{err}
	}
	return buf.Bytes(), 0, nil
}

// slimEvent is what a usage report reads of an event; nil for an event
// it does not read.
func slimEvent(ev *event.Event) *event.Event {
	// Copies: the strings of an event may share the reader's buffers.
	c := strings.Clone
	out := &event.Event{TurnID: c(ev.TurnID), AgentID: c(ev.AgentID)}
	switch b := ev.Body.(type) {
	case *event.SessionStarted:
		ss := &event.SessionStarted{Schema: b.Schema, Source: event.SourceInfo{Dialect: c(b.Source.Dialect)},
			SessionID: c(b.SessionID), Workspace: c(b.Workspace), Model: c(b.Model)}
		if b.Source.Version != nil {
			v := *b.Source.Version
			ss.Source.Version = &v
		}
		if b.Agent != nil {
			ss.Agent = &event.Agent{Name: c(b.Agent.Name), Version: c(b.Agent.Version)}
		}
		out.Body = ss
	case *event.ModelConfigured:
		out.Body = &event.ModelConfigured{Model: c(b.Model), Provider: c(b.Provider), Profile: c(b.Profile), Label: c(b.Label), Source: c(b.Source)}
	case *event.SessionFinished:
		out.Body = &event.SessionFinished{Status: event.Status(c(string(b.Status))), Usage: cloneUsage(b.Usage)}
	case *event.TurnFinished:
		out.Body = &event.TurnFinished{Status: event.Status(c(string(b.Status))), Usage: cloneUsage(b.Usage)}
	case *event.RoundFinished:
		out.Body = &event.RoundFinished{Usage: cloneUsage(b.Usage)}
	case *event.Usage:
		out.Body = cloneUsage(b)
	case *event.ToolCall:
		out.Body = &event.ToolCall{CallID: c(b.CallID), Name: c(b.Name)}
	case *event.ToolStarted:
		out.Body = &event.ToolStarted{CallID: c(b.CallID), Name: c(b.Name)}
	case *event.ToolProgress:
		out.Body = &event.ToolStarted{CallID: c(b.CallID), Name: c(b.Name)}
	case *event.ToolOutput:
		out.Body = &event.ToolStarted{CallID: c(b.CallID), Name: c(b.Name)}
	case *event.ToolFinished:
		out.Body = &event.ToolFinished{CallID: c(b.CallID), Name: c(b.Name), Status: event.ToolStatus(c(string(b.Status)))}
	default:
		return nil
	}
	for _, x := range ev.Ext {
		if raw := slimResidue(x.Raw); raw != nil {
			out.Ext = append(out.Ext, event.ExtEntry{Dialect: x.Dialect, Raw: raw})
		}
	}
	return out
}

// cloneUsage copies a usage (nil: nil).
func cloneUsage(u *event.Usage) *event.Usage {
	if u == nil {
		return nil
	}
	n := func(p *uint64) *uint64 {
		if p == nil {
			return nil
		}
		v := *p
		return &v
	}
	return &event.Usage{InputTokens: n(u.InputTokens), OutputTokens: n(u.OutputTokens), CacheReadTokens: n(u.CacheReadTokens),
		CacheCreationTokens: n(u.CacheCreationTokens), ReasoningTokens: n(u.ReasoningTokens), ThoughtsTokens: n(u.ThoughtsTokens),
		TotalTokens: n(u.TotalTokens), ModelResponses: n(u.ModelResponses), CostUSD: json.Number(strings.Clone(string(u.CostUSD)))}
}

// slimResidue keeps of a residue what a report reads (the places package
// stats declares): the model and message id when they are non-empty
// strings, the first place of the 1-hour cache write that holds a number,
// and a session's usage by model; nil when it holds none.
func slimResidue(raw json.RawMessage) json.RawMessage {
	var b bytes.Buffer
	field := func(key, val string) {
		if b.Len() == 0 {
			b.WriteByte('{')
		} else {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(key)
		b.Write(k)
		b.WriteByte(':')
		b.WriteString(val)
	}
	for _, key := range []string{stats.ResidueModel, stats.ResidueMessageID} {
		if v := gjson.GetBytes(raw, key); v.Type == gjson.String && v.Str != "" {
			field(key, v.Raw)
		}
	}
	for _, p := range stats.ResidueCacheWrite1h {
		v := gjson.GetBytes(raw, p)
		if v.Type != gjson.Number {
			continue
		}
		keys := strings.Split(p, ".")
		val := v.Raw
		for i := len(keys) - 1; i > 0; i-- {
			k, _ := json.Marshal(keys[i])
			val = "{" + string(k) + ":" + val + "}"
		}
		field(keys[0], val)
		break
	}
	if v := gjson.GetBytes(raw, stats.ResidueModelSplit); v.IsObject() {
		// A session's usage by model (Gemini CLI's result), which the
		// report splits it by: the path nested again as it was.
		head, tail, _ := strings.Cut(stats.ResidueModelSplit, ".")
		k, _ := json.Marshal(tail)
		field(head, "{"+string(k)+":"+v.Raw+"}")
	}
	if b.Len() == 0 {
		return nil
	}
	b.WriteByte('}')
	return b.Bytes()
}
