package dialect

import "bufio"

// About is what a dialect states about itself rather than computes: the
// facts behind its Name, Description, Schema and Agent methods.
type About struct {
	// Name is the dialect's name on the command line, e.g. "basis".
	Name string
	// Agent names the agent that writes the dialect, as Producer does;
	// empty for a dialect no one agent writes, which is then named by
	// its Name (as AgentOf names a dialect that is no Producer).
	Agent string
	// Description is a one-line summary for `evtool dialects`.
	Description string
	// Schema is the dialect's published JSON Schema for one line,
	// usually embedded from the dialect's own folder.
	Schema []byte
	// ReadOnly says why evtool does not write the dialect, for a dialect
	// that embeds DescribedReadOnly; empty for every other.
	ReadOnly string
	// Rules is the dialect's catalogue of stream rules, which its checker
	// reports through (RuleLister); nil for a dialect with none.
	Rules *RuleSet
	// Losses is the catalogue of what the dialect's encoder drops,
	// approximates or synthesizes (LossLister); nil for a read-only
	// dialect, which has no encoder.
	Losses *LossCatalog
	// Defaults names the facts the encoder takes from EncodeOptions.Defaults
	// when the source lacks them (DefaultsTaker); empty for an encoder
	// that writes only what its source says.
	Defaults []DefaultKey
}

// Describer is implemented by a dialect that states its facts as an
// About, for Described to report.
type Describer interface {
	About() About
}

// Described implements the methods of a dialect that only report its
// facts: Name, Description and Schema of Dialect, Agent of Producer,
// Rules of RuleLister, LossKinds of LossLister and DefaultKeys of
// DefaultsTaker.
// A dialect D embeds Described[D] and implements Describer, and so writes
// its facts once, as data, and as methods only what it does: Sniff,
// NewDecoder, NewEncoder, NewChecker, and the optional interfaces it
// implements. A read-only dialect embeds DescribedReadOnly instead.
//
// Described is empty: it asks a zero D for its About each time, so that
// a dialect's zero value, the form Register and the tests take it in, is
// the whole dialect.
type Described[D Describer] struct{}

func (Described[D]) about() About {
	var d D
	return d.About()
}

// Name implements Dialect.
func (d Described[D]) Name() string { return d.about().Name }

// Description implements Dialect.
func (d Described[D]) Description() string { return d.about().Description }

// Schema implements Dialect.
func (d Described[D]) Schema() []byte { return d.about().Schema }

// Agent implements Producer: About.Agent, or the dialect's name when that
// is empty, which is what AgentOf says of a dialect that is no Producer.
func (d Described[D]) Agent() string {
	if a := d.about(); a.Agent != "" {
		return a.Agent
	}
	return d.Name()
}

// Rules implements RuleLister with About.Rules.
func (d Described[D]) Rules() []Rule {
	if s := d.about().Rules; s != nil {
		return s.List()
	}
	return nil
}

// LossKinds implements LossLister with About.Losses.
func (d Described[D]) LossKinds() []*LossKind {
	if c := d.about().Losses; c != nil {
		return c.List()
	}
	return nil
}

// DefaultKeys implements DefaultsTaker with About.Defaults.
func (d Described[D]) DefaultKeys() []DefaultKey { return d.about().Defaults }

// DescribedReadOnly is Described for a read-only dialect: it implements
// ReadOnly as well, with About.ReadOnly, and a NewEncoder whose encoder
// fails (ReadOnlyEncoder), so that the dialect writes as methods only
// Sniff, NewDecoder and NewChecker.
type DescribedReadOnly[D Describer] struct{ Described[D] }

// ReadOnly implements ReadOnly.
func (d DescribedReadOnly[D]) ReadOnly() string { return d.about().ReadOnly }

// NewEncoder implements Dialect: evtool does not write the dialect, and
// every Encode fails with ErrReadOnly.
func (d DescribedReadOnly[D]) NewEncoder(*bufio.Writer, EncodeOptions) Encoder {
	return ReadOnlyEncoder(d.Name())
}
