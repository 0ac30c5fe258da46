// Package event defines evtool's canonical event model, version 1.
//
// A canonical stream is NDJSON: one flat JSON object per line, tagged on
// "type". Every line carries an envelope (seq, type and optional time,
// turn_id, agent_id, synthetic, src, ext) and the fields of its type. In Go an
// Event is that envelope plus a Body, one struct per event type.
//
// Optional fields are omitted, never null. Counts and token totals are
// uint64 and never pass through float64. Values that are arbitrary JSON in the
// source (tool input, permission previews, unknown lines) are kept as their
// raw bytes, so nothing is reformatted on the way through.
package event

import "encoding/json"

// SchemaVersion is the canonical schema version written on session_started.
const SchemaVersion = 1

// Type names an event type, the value of the "type" key.
type Type string

// The canonical event types.
const (
	TypeSessionStarted     Type = "session_started"
	TypeSessionFinished    Type = "session_finished"
	TypeTurnStarted        Type = "turn_started"
	TypeTurnFinished       Type = "turn_finished"
	TypeRoundFinished      Type = "round_finished"
	TypeModelConfigured    Type = "model_configured"
	TypeUserMessage        Type = "user_message"
	TypeMessageDelta       Type = "message_delta"
	TypeMessage            Type = "message"
	TypeReasoningDelta     Type = "reasoning_delta"
	TypeReasoning          Type = "reasoning"
	TypeToolCall           Type = "tool_call"
	TypeToolStarted        Type = "tool_started"
	TypeToolProgress       Type = "tool_progress"
	TypeToolOutput         Type = "tool_output"
	TypeToolFinished       Type = "tool_finished"
	TypePermissionRequest  Type = "permission_requested"
	TypePermissionResolved Type = "permission_resolved"
	TypePlanUpdated        Type = "plan_updated"
	TypeTaskUpdated        Type = "task_updated"
	TypeUsage              Type = "usage"
	TypeCompactionStarted  Type = "compaction_started"
	TypeCompactionFinished Type = "compaction_finished"
	TypeContextElided      Type = "context_elided"
	TypeMemoryUpdated      Type = "memory_updated"
	TypeBranched           Type = "branched"
	TypeNotice             Type = "notice"
	TypeRetry              Type = "retry"
	TypeError              Type = "error"
	TypeUnknown            Type = "unknown"
)

// Event is one line of a canonical stream.
type Event struct {
	// Seq is the 0-based position of the line in its canonical stream.
	Seq uint64
	// Time is an RFC 3339 UTC timestamp with microseconds, set only when the
	// source states a time.
	Time string
	// TurnID names the turn the event belongs to.
	TurnID string
	// AgentID names the agent or subagent that produced the event.
	AgentID string
	// Synthetic marks a line that no source line stands behind.
	Synthetic bool
	// Src is the provenance of the line, set only on request.
	Src *Source
	// Ext holds what the canonical vocabulary has no place for, keyed by
	// dialect name: each value is a raw JSON object.
	Ext Ext
	// Extra holds top-level keys of a canonical line that this version of the
	// model does not know, in input order, so that they are written back.
	Extra []RawField
	// Body is the type-specific part of the event.
	Body Body
}

// Type returns the event's type.
func (e *Event) Type() Type {
	if e.Body == nil {
		return ""
	}
	return e.Body.Type()
}

// Body is the type-specific part of an event. Each event type has one
// pointer-receiver struct implementing it.
type Body interface {
	Type() Type
}

// Source records where a canonical line came from.
type Source struct {
	Dialect string `json:"dialect"`
	Line    int    `json:"line"`
	Type    string `json:"type,omitempty"`
}

// RawField is one key of a JSON object with its value as raw JSON.
type RawField struct {
	Key   string
	Value json.RawMessage
}

// Ext holds residue by dialect: for each dialect name, a raw JSON object
// of what the canonical vocabulary has no place for. On the wire it is the
// "ext" object, keyed by dialect name.
//
// Ext is a short slice kept sorted by dialect, one entry per dialect, rather
// than a map: nearly every event of a source that numbers its lines carries
// one entry, and a map costs two allocations and some 400 bytes for it. Use
// Get, Lookup and Set, or ExtOf for one dialect's residue.
type Ext []ExtEntry

// ExtEntry is one dialect's residue.
type ExtEntry struct {
	Dialect string
	Raw     json.RawMessage
}

// ExtOf returns an Ext holding one dialect's residue.
func ExtOf(dialect string, raw json.RawMessage) Ext { return Ext{{Dialect: dialect, Raw: raw}} }

// Lookup returns a dialect's residue and whether it has an entry.
func (x Ext) Lookup(dialect string) (json.RawMessage, bool) {
	for _, e := range x {
		if e.Dialect == dialect {
			return e.Raw, true
		}
	}
	return nil, false
}

// Get returns a dialect's residue, nil if it has none.
func (x Ext) Get(dialect string) json.RawMessage {
	raw, _ := x.Lookup(dialect)
	return raw
}

// Set sets a dialect's residue, replacing the one it had.
func (x *Ext) Set(dialect string, raw json.RawMessage) {
	i := 0
	for i < len(*x) && (*x)[i].Dialect < dialect {
		i++
	}
	if i < len(*x) && (*x)[i].Dialect == dialect {
		(*x)[i].Raw = raw
		return
	}
	*x = append(*x, ExtEntry{})
	copy((*x)[i+1:], (*x)[i:])
	(*x)[i] = ExtEntry{Dialect: dialect, Raw: raw}
}

// MarshalJSON writes x as the wire's "ext" object.
func (x Ext) MarshalJSON() ([]byte, error) {
	if x == nil {
		return []byte("null"), nil
	}
	m := make(map[string]json.RawMessage, len(x))
	for _, e := range x {
		m[e.Dialect] = e.Raw
	}
	return json.Marshal(m)
}

// UnmarshalJSON reads the wire's "ext" object.
func (x *Ext) UnmarshalJSON(b []byte) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	if m == nil {
		*x = nil
		return nil
	}
	*x = Ext{}
	for d, raw := range m {
		x.Set(d, raw)
	}
	return nil
}
