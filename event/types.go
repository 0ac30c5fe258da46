package event

import "encoding/json"

// SessionStarted is always the first line of a stream.
type SessionStarted struct {
	Schema       uint64         `json:"schema"`
	Source       SourceInfo     `json:"source"`
	Agent        *Agent         `json:"agent,omitempty"`
	SessionID    string         `json:"session_id,omitempty"`
	TaskID       string         `json:"task_id,omitempty"`
	Workspace    string         `json:"workspace,omitempty"`
	Model        string         `json:"model,omitempty"`
	Provider     string         `json:"provider,omitempty"`
	ContextFiles *[]ContextFile `json:"context_files,omitempty"` // nil: not stated; empty: stated as none
	SkillsDirs   []string       `json:"skills_dirs,omitempty"`
	Skills       []Skill        `json:"skills,omitempty"`
	CommandsDirs []string       `json:"commands_dirs,omitempty"`
	Commands     []Command      `json:"commands,omitempty"`
	MCPFiles     []ContextFile  `json:"mcp_files,omitempty"`
	MCPServers   []string       `json:"mcp_servers,omitempty"`
	A2AFiles     []ContextFile  `json:"a2a_files,omitempty"`
	A2AAgents    []string       `json:"a2a_agents,omitempty"`
}

// SourceInfo names the dialect a stream was read from and its wire version.
type SourceInfo struct {
	Dialect string  `json:"dialect"`
	Version *uint64 `json:"version,omitempty"`
}

// Agent names the producing program.
type Agent struct {
	Name    string `json:"name,omitempty"`
	Version string `json:"version,omitempty"`
}

// ContextFile is a file that was in effect for the run.
type ContextFile struct {
	Path  string `json:"path"`
	Scope string `json:"scope"`
}

// Skill is a skill the agent can load by name.
type Skill struct {
	Name        string `json:"name"`
	Description string `json:"description"`
}

// Command is a prompt template a client can offer as a command.
type Command struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Hint        string `json:"hint,omitempty"`
}

// SessionFinished is the last line of a complete stream.
type SessionFinished struct {
	Status           Status          `json:"status"`
	Message          string          `json:"message,omitempty"`
	StoppedBy        Bound           `json:"stopped_by,omitempty"`
	Usage            *Usage          `json:"usage,omitempty"`
	Text             *string         `json:"text,omitempty"`
	Reasoning        *string         `json:"reasoning,omitempty"`
	Errors           *[]string       `json:"errors,omitempty"`
	StructuredOutput json.RawMessage `json:"structured_output,omitempty"`
}

// TurnStarted begins a turn.
type TurnStarted struct {
	Prompt    *string `json:"prompt,omitempty"`
	CommandID string  `json:"command_id,omitempty"`
}

// TurnFinished ends a turn.
type TurnFinished struct {
	Status     Status     `json:"status"`
	StopReason StopReason `json:"stop_reason,omitempty"`
	Reason     string     `json:"reason,omitempty"`
	Text       *string    `json:"text,omitempty"`
	Usage      *Usage     `json:"usage,omitempty"`
}

// RoundFinished ends one model call inside a turn. A turn that uses tools
// has several rounds; only TurnFinished hands control back to the user.
type RoundFinished struct {
	StopReason StopReason `json:"stop_reason,omitempty"`
	Usage      *Usage     `json:"usage,omitempty"`
}

// ModelConfigured says which model a turn resolved to.
type ModelConfigured struct {
	Model    string `json:"model"`
	Provider string `json:"provider,omitempty"`
	Profile  string `json:"profile,omitempty"`
	Label    string `json:"label,omitempty"`
	Source   string `json:"source,omitempty"`
}

// UserMessage is the prompt text of a turn.
type UserMessage struct {
	Text       string  `json:"text"`
	ImageCount *uint64 `json:"image_count,omitempty"`
}

// MessageDelta is a streamed chunk of assistant text.
type MessageDelta struct {
	Text      string `json:"text"`
	MessageID string `json:"message_id,omitempty"`
}

// Message is an assembled assistant message; it repeats its deltas.
type Message struct {
	Text      string `json:"text"`
	MessageID string `json:"message_id,omitempty"`
}

// ReasoningDelta is a streamed chunk of model reasoning.
type ReasoningDelta struct {
	Text string `json:"text"`
}

// Reasoning is assembled model reasoning.
type Reasoning struct {
	Text string `json:"text"`
}

// ToolCall makes a tool call known. It comes before any other event of the call.
type ToolCall struct {
	CallID     string          `json:"call_id"`
	Name       string          `json:"name"`
	Title      string          `json:"title,omitempty"`
	Kind       ToolKind        `json:"kind,omitempty"`
	Mutability Mutability      `json:"mutability,omitempty"`
	Input      json.RawMessage `json:"input,omitempty"`
}

// ToolStarted says a tool call runs.
type ToolStarted struct {
	CallID string `json:"call_id"`
	Name   string `json:"name,omitempty"`
}

// ToolProgress is free-form progress text of a running call.
type ToolProgress struct {
	CallID  string `json:"call_id"`
	Name    string `json:"name,omitempty"`
	Message string `json:"message"`
}

// ToolOutput is a chunk of a call's output.
type ToolOutput struct {
	CallID string `json:"call_id"`
	Name   string `json:"name,omitempty"`
	Chunk  string `json:"chunk"`
}

// ToolFinished ends a tool call.
type ToolFinished struct {
	CallID string     `json:"call_id"`
	Name   string     `json:"name,omitempty"`
	Status ToolStatus `json:"status"`
	// Kind is set when the call's kind becomes known only at its end
	// (a producer that names the tool last).
	Kind     ToolKind        `json:"kind,omitempty"`
	Summary  *string         `json:"summary,omitempty"`
	Error    string          `json:"error,omitempty"`
	Output   *string         `json:"output,omitempty"`
	ExitCode *int64          `json:"exit_code,omitempty"`
	Command  string          `json:"command,omitempty"`
	Edit     json.RawMessage `json:"edit,omitempty"`
	Web      json.RawMessage `json:"web,omitempty"`
}

// PermissionRequested asks for approval of a tool call.
type PermissionRequested struct {
	RequestID   string          `json:"request_id,omitempty"`
	CallID      string          `json:"call_id,omitempty"`
	Tool        string          `json:"tool,omitempty"`
	Description string          `json:"description,omitempty"`
	Risk        string          `json:"risk,omitempty"`
	Preview     json.RawMessage `json:"preview,omitempty"`
}

// PermissionResolved records the answer to a permission request.
type PermissionResolved struct {
	RequestID string  `json:"request_id,omitempty"`
	CallID    string  `json:"call_id,omitempty"`
	Tool      string  `json:"tool,omitempty"`
	Outcome   Outcome `json:"outcome"`
	Scope     string  `json:"scope,omitempty"`
}

// PlanUpdated is a full snapshot of the agent's checklist. An empty list is a fact.
type PlanUpdated struct {
	Entries   []PlanEntry `json:"entries"`
	Completed *uint64     `json:"completed,omitempty"`
	Total     *uint64     `json:"total,omitempty"`
}

// PlanEntry is one item of a plan.
type PlanEntry struct {
	ID          string  `json:"id,omitempty"`
	Content     string  `json:"content"`
	Status      string  `json:"status"`
	ActiveForm  string  `json:"active_form,omitempty"`
	Priority    string  `json:"priority,omitempty"`
	Origin      string  `json:"origin,omitempty"`
	ElapsedSecs *uint64 `json:"elapsed_secs,omitempty"`
	TokensSpent *uint64 `json:"tokens_spent,omitempty"`
}

// TaskUpdated is the current state of a piece of concurrent work.
type TaskUpdated struct {
	TaskID       string     `json:"task_id"`
	Kind         TaskKind   `json:"kind,omitempty"`
	Status       TaskStatus `json:"status"`
	Title        string     `json:"title,omitempty"`
	Detail       string     `json:"detail,omitempty"`
	Reason       string     `json:"reason,omitempty"`
	ParentTaskID string     `json:"parent_task_id,omitempty"`
}

// Usage counts tokens. As an event it is one model round; inside
// session_finished and turn_finished it is a total.
type Usage struct {
	InputTokens         *uint64 `json:"input_tokens,omitempty"`
	OutputTokens        *uint64 `json:"output_tokens,omitempty"`
	CacheReadTokens     *uint64 `json:"cache_read_tokens,omitempty"`
	CacheCreationTokens *uint64 `json:"cache_creation_tokens,omitempty"`
	ReasoningTokens     *uint64 `json:"reasoning_tokens,omitempty"`
	ThoughtsTokens      *uint64 `json:"thoughts_tokens,omitempty"`
	TotalTokens         *uint64 `json:"total_tokens,omitempty"`
	ModelResponses      *uint64 `json:"model_responses,omitempty"`
	// CostUSD is the cost in US dollars as the producer stated it: the
	// number's own text, never rounded through float64.
	CostUSD json.Number `json:"cost_usd,omitempty"`
}

// CompactionStarted says the agent began compacting its context.
type CompactionStarted struct{}

// CompactionFinished reports a finished compaction.
type CompactionFinished struct {
	ReplacedItems  *uint64 `json:"replaced_items,omitempty"`
	PreservedItems *uint64 `json:"preserved_items,omitempty"`
	TranscriptLen  *uint64 `json:"transcript_len,omitempty"`
	ExtractedFacts *uint64 `json:"extracted_facts,omitempty"`
	SummaryPreview *string `json:"summary_preview,omitempty"`
}

// ContextElided reports tool results shortened in a provider request.
type ContextElided struct {
	Policy         json.RawMessage `json:"policy,omitempty"`
	OriginalBytes  *uint64         `json:"original_bytes,omitempty"`
	ProjectedBytes *uint64         `json:"projected_bytes,omitempty"`
	Results        []ElidedResult  `json:"results,omitempty"`
}

// ElidedResult is one tool result a ContextElided event changed.
type ElidedResult struct {
	CallID         string `json:"call_id"`
	Name           string `json:"name,omitempty"`
	IsError        bool   `json:"is_error"`
	ContentKind    string `json:"content_kind"`
	Action         string `json:"action"`
	OriginalBytes  uint64 `json:"original_bytes"`
	ProjectedBytes uint64 `json:"projected_bytes"`
}

// MemoryUpdated reports records stored in the agent's memory.
type MemoryUpdated struct {
	StoredRecords *uint64 `json:"stored_records,omitempty"`
}

// Branched says the session returned to an earlier entry.
type Branched struct {
	EntryID          string  `json:"entry_id"`
	AbandonedEntries *uint64 `json:"abandoned_entries,omitempty"`
}

// Notice is an operator-facing message. A missing severity reads as info.
type Notice struct {
	Severity Severity `json:"severity,omitempty"`
	Message  string   `json:"message"`
}

// Retry says a failed request will be tried again.
type Retry struct {
	Error       string  `json:"error,omitempty"`
	Attempt     *uint64 `json:"attempt,omitempty"`
	MaxAttempts *uint64 `json:"max_attempts,omitempty"`
	NextDelayMS *uint64 `json:"next_delay_ms,omitempty"`
}

// Error is an error the agent reported.
type Error struct {
	Message     string `json:"message"`
	Recoverable *bool  `json:"recoverable,omitempty"`
}

// Unknown is a source line of a type evtool does not know, kept whole.
type Unknown struct {
	Dialect    string          `json:"dialect"`
	SourceType string          `json:"source_type"`
	Raw        json.RawMessage `json:"raw"`
}

func (*SessionStarted) Type() Type      { return TypeSessionStarted }
func (*SessionFinished) Type() Type     { return TypeSessionFinished }
func (*TurnStarted) Type() Type         { return TypeTurnStarted }
func (*TurnFinished) Type() Type        { return TypeTurnFinished }
func (*RoundFinished) Type() Type       { return TypeRoundFinished }
func (*ModelConfigured) Type() Type     { return TypeModelConfigured }
func (*UserMessage) Type() Type         { return TypeUserMessage }
func (*MessageDelta) Type() Type        { return TypeMessageDelta }
func (*Message) Type() Type             { return TypeMessage }
func (*ReasoningDelta) Type() Type      { return TypeReasoningDelta }
func (*Reasoning) Type() Type           { return TypeReasoning }
func (*ToolCall) Type() Type            { return TypeToolCall }
func (*ToolStarted) Type() Type         { return TypeToolStarted }
func (*ToolProgress) Type() Type        { return TypeToolProgress }
func (*ToolOutput) Type() Type          { return TypeToolOutput }
func (*ToolFinished) Type() Type        { return TypeToolFinished }
func (*PermissionRequested) Type() Type { return TypePermissionRequest }
func (*PermissionResolved) Type() Type  { return TypePermissionResolved }
func (*PlanUpdated) Type() Type         { return TypePlanUpdated }
func (*TaskUpdated) Type() Type         { return TypeTaskUpdated }
func (*Usage) Type() Type               { return TypeUsage }
func (*CompactionStarted) Type() Type   { return TypeCompactionStarted }
func (*CompactionFinished) Type() Type  { return TypeCompactionFinished }
func (*ContextElided) Type() Type       { return TypeContextElided }
func (*MemoryUpdated) Type() Type       { return TypeMemoryUpdated }
func (*Branched) Type() Type            { return TypeBranched }
func (*Notice) Type() Type              { return TypeNotice }
func (*Retry) Type() Type               { return TypeRetry }
func (*Error) Type() Type               { return TypeError }
func (*Unknown) Type() Type             { return TypeUnknown }

// newBody returns an empty body for a type, or nil for a type not in the model.
func newBody(t Type) Body {
	switch t {
	case TypeSessionStarted:
		return &SessionStarted{}
	case TypeSessionFinished:
		return &SessionFinished{}
	case TypeTurnStarted:
		return &TurnStarted{}
	case TypeTurnFinished:
		return &TurnFinished{}
	case TypeRoundFinished:
		return &RoundFinished{}
	case TypeModelConfigured:
		return &ModelConfigured{}
	case TypeUserMessage:
		return &UserMessage{}
	case TypeMessageDelta:
		return &MessageDelta{}
	case TypeMessage:
		return &Message{}
	case TypeReasoningDelta:
		return &ReasoningDelta{}
	case TypeReasoning:
		return &Reasoning{}
	case TypeToolCall:
		return &ToolCall{}
	case TypeToolStarted:
		return &ToolStarted{}
	case TypeToolProgress:
		return &ToolProgress{}
	case TypeToolOutput:
		return &ToolOutput{}
	case TypeToolFinished:
		return &ToolFinished{}
	case TypePermissionRequest:
		return &PermissionRequested{}
	case TypePermissionResolved:
		return &PermissionResolved{}
	case TypePlanUpdated:
		return &PlanUpdated{}
	case TypeTaskUpdated:
		return &TaskUpdated{}
	case TypeUsage:
		return &Usage{}
	case TypeCompactionStarted:
		return &CompactionStarted{}
	case TypeCompactionFinished:
		return &CompactionFinished{}
	case TypeContextElided:
		return &ContextElided{}
	case TypeMemoryUpdated:
		return &MemoryUpdated{}
	case TypeBranched:
		return &Branched{}
	case TypeNotice:
		return &Notice{}
	case TypeRetry:
		return &Retry{}
	case TypeError:
		return &Error{}
	case TypeUnknown:
		return &Unknown{}
	}
	return nil
}

// Types lists every canonical event type in catalogue order.
func Types() []Type {
	return []Type{
		TypeSessionStarted, TypeSessionFinished, TypeTurnStarted, TypeTurnFinished, TypeRoundFinished,
		TypeModelConfigured, TypeUserMessage, TypeMessageDelta, TypeMessage,
		TypeReasoningDelta, TypeReasoning, TypeToolCall, TypeToolStarted,
		TypeToolProgress, TypeToolOutput, TypeToolFinished, TypePermissionRequest,
		TypePermissionResolved, TypePlanUpdated, TypeTaskUpdated, TypeUsage,
		TypeCompactionStarted, TypeCompactionFinished, TypeContextElided,
		TypeMemoryUpdated, TypeBranched, TypeNotice, TypeRetry, TypeError, TypeUnknown,
	}
}

// UsageOf returns the usage an event states, or nil: a round's, a turn's
// or a session's, or a usage event itself. A writer whose target has no
// place for a count or a cost asks it, to count what it drops.
func UsageOf(b Body) *Usage {
	switch b := b.(type) {
	case *Usage:
		return b
	case *RoundFinished:
		return b.Usage
	case *TurnFinished:
		return b.Usage
	case *SessionFinished:
		return b.Usage
	}
	return nil
}
