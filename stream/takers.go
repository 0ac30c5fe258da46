package stream

import "github.com/evtool/evtool/ndjson"

// The optional methods of a decoder that the Reader calls when the
// decoder has them: each lets a decoder do less work for a caller that
// needs less, or reuse what the reading has already found.

// summarizer is a decoder that can leave out of its events what a
// summary of the stream never reads (Options.Summary); Summarize asks it
// to, before its first line.
type summarizer interface {
	Summarize()
}

// verdictsOnly is a decoder that can leave out of its events what only a
// writer of them would read (Options.VerdictsOnly); VerdictsOnly asks it
// to, before its first line.
type verdictsOnly interface {
	VerdictsOnly()
}

// memberTaker is a decoder that reads a line's top-level members from
// where the syntax check found them rather than reading the line again:
// UseMembers hands it those of the line its next Decode reads (nil: read
// the line).
type memberTaker interface {
	UseMembers(ms []ndjson.Member)
}

// ownTaker is a decoder that can read a line in place, without the copy
// it makes of a line whose buffer is reused (as gjson.ParseBytes makes
// it): UseOwn(true) before a Decode says the line's bytes are a buffer of
// their own that nothing writes again, so that what the decoder keeps of
// them keeps that line alive and no other. The Reader says so of a long
// line (over ownAfter bytes), which then stands once in memory, not twice.
type ownTaker interface {
	UseOwn(own bool)
}
