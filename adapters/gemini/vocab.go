package gemini

import (
	"github.com/evtool/evtool/adapters/internal/geminicli"
	"github.com/evtool/evtool/event"
)

// Gemini CLI's words for the canonical vocabulary. A word missing from a
// table is a newer producer's: it is kept in ext.gemini and written back as
// it was.
var (
	// toolStatuses are tool_result.status.
	toolStatuses = map[string]event.ToolStatus{
		"success": event.ToolSuccess,
		"error":   event.ToolError,
	}
	// runStatuses are result.status.
	runStatuses = map[string]event.Status{
		"success": event.StatusOK,
		"error":   event.StatusError,
	}
)

// toolErrorTypes are the words of tool_result.error.type: the values of
// ToolErrorType (packages/core/src/tools/tool-error.ts) over its history
// (user_cancelled was in 2025's enum; policy_violation and stop_execution
// are in 2026's), and what the runner writes for an error without a type.
// The wire type is a plain string, so another word is reported
// (gemini/unknown-value) and kept as written.
var toolErrorTypes = map[string]bool{
	toolErrGeneric:                      true,
	"policy_violation":                  true,
	"invalid_tool_params":               true,
	"unknown":                           true,
	"unhandled_exception":               true,
	"tool_not_registered":               true,
	"execution_failed":                  true,
	"file_not_found":                    true,
	"file_write_failure":                true,
	"read_content_failure":              true,
	"attempt_to_create_existing_file":   true,
	"file_too_large":                    true,
	"permission_denied":                 true,
	"no_space_left":                     true,
	"target_is_directory":               true,
	"path_not_in_workspace":             true,
	"search_path_not_found":             true,
	"search_path_not_a_directory":       true,
	"edit_preparation_failure":          true,
	"edit_no_occurrence_found":          true,
	"edit_expected_occurrence_mismatch": true,
	"edit_no_change":                    true,
	"edit_no_change_llm_judgement":      true,
	"glob_execution_error":              true,
	"grep_execution_error":              true,
	"ls_execution_error":                true,
	"path_is_not_a_directory":           true,
	"mcp_tool_error":                    true,
	"memory_tool_execution_error":       true,
	"read_many_files_search_error":      true,
	"shell_execute_error":               true,
	"discovered_tool_execution_error":   true,
	"web_fetch_no_url_in_prompt":        true,
	"web_fetch_fallback_failed":         true,
	"web_fetch_processing_error":        true,
	"web_search_failed":                 true,
	"user_cancelled":                    true,
	"stop_execution":                    true,
}

// Error classes of result.error.type that say more than "error". The type
// is the class name of the error the runner caught.
const (
	errCancelled = "FatalCancellationError" // the user cancelled (exit 130)
	errTurnLimit = "FatalTurnLimitedError"  // the configured turn limit (exit 53)
	// errGeneric is the class of a plain JavaScript Error: what the runner
	// writes for an error that has no class of its own.
	errGeneric = "Error"
	// toolErrGeneric is what tool_result.error.type says when the tool
	// error has no type.
	toolErrGeneric = "TOOL_EXECUTION_ERROR"
)

// runOutcome gives the canonical status and stop reason of a result from
// its status word (already read) and its error class.
func runOutcome(status event.Status, errType string) (event.Status, event.StopReason) {
	switch {
	case status == event.StatusOK:
		return status, event.StopEndTurn
	case errType == errCancelled:
		return event.StatusCancelled, event.StopCancelled
	case errType == errTurnLimit:
		return status, event.StopMaxTurnRequests
	}
	return status, ""
}

// toolKind returns what a Gemini CLI tool does, from its name (see
// geminicli.ToolKind): the stream knows the built-in tools of 0.61 and the
// older names of the same tools.
func toolKind(name string) event.ToolKind { return geminicli.ToolKind(name, nil) }
