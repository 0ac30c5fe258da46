package muse

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Record is one journal envelope of `muse exec --json`. The envelope is
// fully typed; the payload stays raw until Lift is called, because Muse
// adds payload types and keys without notice.
type Record struct {
	SchemaVersion        uint64          `json:"schema_version"`
	ID                   string          `json:"id"`
	Stream               StreamRef       `json:"stream"`
	Sequence             uint64          `json:"sequence"`
	RecordedAt           uint64          `json:"recorded_at"` // microseconds since the Unix epoch
	RecordType           string          `json:"record_type"` // reconciliation, event, status
	Durability           string          `json:"durability"`  // durable, ephemeral
	CausationID          string          `json:"causation_id"`
	PayloadType          string          `json:"payload_type"`
	PayloadSchemaVersion uint64          `json:"payload_schema_version"`
	Payload              json.RawMessage `json:"payload"`
}

// StreamRef names a journal stream.
type StreamRef struct {
	Kind string `json:"kind"` // session, run, task
	ID   string `json:"id"`
}

// Payload is a typed payload; Kind returns payload.kind.
type Payload interface{ PayloadKind() string }

// CommandAccepted is runtime.command.accepted.
type CommandAccepted struct {
	CommandID   string  `json:"command_id"`
	ClientID    *string `json:"client_id"`
	CommandKind string  `json:"command_kind"`
}

// SessionRunLinked is session.run.linked.
type SessionRunLinked struct {
	CommandID string    `json:"command_id"`
	RunStream StreamRef `json:"run_stream"`
}

// TurnInputUser is turn.input.user.
type TurnInputUser struct {
	CommandID string    `json:"command_id"`
	RunStream StreamRef `json:"run_stream"`
	Prompt    string    `json:"prompt"`
}

// RunStarted is run.lifecycle.started.
type RunStarted struct {
	CommandID string    `json:"command_id"`
	RunStream StreamRef `json:"run_stream"`
	Prompt    string    `json:"prompt"`
}

// RunModelConfigured is run.model.configured.
type RunModelConfigured struct {
	CommandID    string    `json:"command_id"`
	RunStream    StreamRef `json:"run_stream"`
	ModelID      string    `json:"model_id"`
	DisplayLabel string    `json:"display_label"`
	ProfileID    *string   `json:"profile_id"`
	ProviderID   string    `json:"provider_id"`
	Source       string    `json:"source"`
}

// RunOutputDelta is run.output.delta.
type RunOutputDelta struct {
	CommandID string    `json:"command_id"`
	RunStream StreamRef `json:"run_stream"`
	Text      string    `json:"text"`
}

// ToolResult is tool.result. It has no task id: join it to its task by
// the task's scheduled idempotency key, "tool:" + CallID.
type ToolResult struct {
	CommandID        string            `json:"command_id"`
	RunStream        StreamRef         `json:"run_stream"`
	CallID           string            `json:"call_id"`
	Text             string            `json:"text"`
	CorrelationFacts *CorrelationFacts `json:"correlation_facts,omitempty"`
	EditFacts        json.RawMessage   `json:"edit_facts,omitempty"`
}

// CorrelationFacts name the tool and its outcome; absent on older CLIs.
type CorrelationFacts struct {
	ToolName string `json:"tool_name,omitempty"`
	Outcome  string `json:"outcome,omitempty"` // success, failure
}

// CommandResult is the JSON inside a bash or command tool.result text.
type CommandResult struct {
	ChunkID              string  `json:"chunk_id"`
	Command              string  `json:"command"`
	Description          string  `json:"description"`
	ExitCode             *int64  `json:"exit_code"`
	TerminalStatus       string  `json:"terminal_status"`
	Output               *string `json:"output"`
	OriginalOutputBytes  *uint64 `json:"original_output_bytes"`
	OriginalOutputTokens *uint64 `json:"original_output_tokens"`
	Truncated            *bool   `json:"truncated"`
}

// RunTerminal is run.terminal.<state>.
type RunTerminal struct {
	CommandID string    `json:"command_id"`
	RunStream StreamRef `json:"run_stream"`
	Terminal  string    `json:"terminal"`
	Text      *string   `json:"text,omitempty"`
	Reason    *string   `json:"reason"`
}

// TaskStreamLinked is task.stream.linked.
type TaskStreamLinked struct {
	CommandID  string    `json:"command_id"`
	RunStream  StreamRef `json:"run_stream"`
	TaskID     string    `json:"task_id"`
	TaskStream StreamRef `json:"task_stream"`
}

// TaskLifecycle is task.lifecycle.<kind>; Event holds the lifecycle event.
type TaskLifecycle struct {
	CommandID  string         `json:"command_id"`
	RunStream  StreamRef      `json:"run_stream"`
	TaskStream StreamRef      `json:"task_stream"`
	TaskID     string         `json:"task_id"`
	Event      LifecycleEvent `json:"event"`
}

// LifecycleEvent is the event of a task.lifecycle record, tagged on Kind.
// Which fields are set depends on Kind; see the package documentation.
type LifecycleEvent struct {
	Kind               string          `json:"kind"`
	TaskID             string          `json:"task_id"`
	TaskKind           string          `json:"task_kind,omitempty"`       // proposed
	IdempotencyKey     string          `json:"idempotency_key,omitempty"` // scheduled, side_effect_intent
	Operation          string          `json:"operation,omitempty"`       // side_effect_intent
	PolicyDecision     string          `json:"policy_decision,omitempty"` // side_effect_intent
	CancellationHandle json.RawMessage `json:"cancellation_handle,omitempty"`
	ParentTaskID       *string         `json:"parent_task_id,omitempty"`
	SpanID             string          `json:"span_id,omitempty"` // started (live providers)
	Message            string          `json:"message,omitempty"` // status
	Details            json.RawMessage `json:"details,omitempty"` // status
	Chunk              *string         `json:"chunk,omitempty"`   // output
	Reason             *string         `json:"reason,omitempty"`  // cancelled, rejected, failed
}

func (*CommandAccepted) PayloadKind() string    { return "command_accepted" }
func (*SessionRunLinked) PayloadKind() string   { return "session_run_linked" }
func (*TurnInputUser) PayloadKind() string      { return "turn_input_user" }
func (*RunStarted) PayloadKind() string         { return "run_started" }
func (*RunModelConfigured) PayloadKind() string { return "run_model_configured" }
func (*RunOutputDelta) PayloadKind() string     { return "run_output_delta" }
func (*ToolResult) PayloadKind() string         { return "tool_result" }
func (*RunTerminal) PayloadKind() string        { return "run_terminal" }
func (*TaskStreamLinked) PayloadKind() string   { return "task_stream_linked" }
func (*TaskLifecycle) PayloadKind() string      { return "task_lifecycle" }

// LifecycleKinds are the eleven known task.lifecycle event kinds.
var LifecycleKinds = []string{"proposed", "accepted", "scheduled", "side_effect_intent", "started", "status", "output", "completed", "cancelled", "rejected", "failed"}

// ErrUnknownPayload is returned by Lift for a payload type it does not know.
var ErrUnknownPayload = fmt.Errorf("unknown payload type")

// Lift decodes the payload into its typed kind. An unknown payload type,
// or an unknown lifecycle kind, returns ErrUnknownPayload; the record is
// then passed through untouched.
func (r *Record) Lift() (Payload, error) {
	var p Payload
	switch t := r.PayloadType; {
	case t == "runtime.command.accepted":
		p = &CommandAccepted{}
	case t == "session.run.linked":
		p = &SessionRunLinked{}
	case t == "turn.input.user":
		p = &TurnInputUser{}
	case t == "run.lifecycle.started":
		p = &RunStarted{}
	case t == "run.model.configured":
		p = &RunModelConfigured{}
	case t == "run.output.delta":
		p = &RunOutputDelta{}
	case t == "tool.result":
		p = &ToolResult{}
	case strings.HasPrefix(t, "run.terminal."):
		p = &RunTerminal{}
	case t == "task.stream.linked":
		p = &TaskStreamLinked{}
	case strings.HasPrefix(t, "task.lifecycle."):
		kind := strings.TrimPrefix(t, "task.lifecycle.")
		known := false
		for _, k := range LifecycleKinds {
			known = known || k == kind
		}
		if !known {
			return nil, ErrUnknownPayload
		}
		p = &TaskLifecycle{}
	default:
		return nil, ErrUnknownPayload
	}
	if err := json.Unmarshal(r.Payload, p); err != nil {
		return nil, fmt.Errorf("payload of %s: %w", r.PayloadType, err)
	}
	return p, nil
}
