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

// Ext maps a dialect name to a raw JSON object of residue.
type Ext map[string]json.RawMessage
