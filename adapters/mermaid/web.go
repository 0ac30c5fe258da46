package mermaid

import (
	"encoding/json"

	"github.com/evtool/evtool/internal/jsonobj"
	"github.com/tidwall/gjson"
)

// The members of mermaid's WebEventDetails whose types its schema pins
// (web_event_details in mermaid.schema.json); any other member is open.
var (
	webStrings = set("backend", "requested_url", "final_url", "error_kind", "media_type", "charset",
		"extraction", "snapshot_id", "pattern")
	webCounts = set("source_byte_count", "output_byte_count", "rendered_byte_count", "line_count",
		"context_lines", "match_count", "query_count", "succeeded_count", "requested_count",
		"result_count", "failed_count", "status")
	webFlags = set("partial", "truncated")
)

func set(keys ...string) map[string]bool {
	m := make(map[string]bool, len(keys))
	for _, k := range keys {
		m[k] = true
	}
	return m
}

// webFits reports whether a call's web details (canonical: any JSON) are
// a WebEventDetails mermaid's schema accepts. Another dialect's details
// are often not (Claude Code's web search results are an array), and
// written as they are they would make a line evtool itself refuses.
func webFits(raw json.RawMessage) bool {
	w := gjson.ParseBytes(raw)
	if !w.IsObject() {
		return false
	}
	fits := true
	w.ForEach(func(k, v gjson.Result) bool {
		switch key := k.Str; {
		case webStrings[key]:
			fits = v.Type == gjson.String
		case webCounts[key]:
			_, msg := jsonobj.ParseUint(v, jsonobj.U64)
			fits = msg == ""
		case webFlags[key]:
			fits = v.Type == gjson.True || v.Type == gjson.False
		case key == "failures":
			fits = v.IsArray()
		}
		return fits
	})
	return fits
}
