package stats

// The places of an event's residue (its ext) a report reads, declared once:
// a reader that slims residues before they reach a report (evbeam's parts)
// keeps these, and a report that comes to read another place is held to
// the same figures by that reader's test (TestPrismMatchesCLI).
const (
	// ResidueModel is the model an API response names.
	ResidueModel = "model"
	// ResidueMessageID is the id of the API response a round counts.
	ResidueMessageID = "message_id"
	// ResidueModelSplit is a session's usage by model (Gemini CLI's
	// result.stats.models; see split.go).
	ResidueModelSplit = "stats.models"
)

// ResidueCacheWrite1h are the places of the 1-hour part of a cache write
// (Anthropic's usage splits the write by lifetime), in the order a report
// looks for them.
var ResidueCacheWrite1h = []string{"usage.cache_creation.ephemeral_1h_input_tokens", "message.usage.cache_creation.ephemeral_1h_input_tokens", "cache_creation.ephemeral_1h_input_tokens"}
