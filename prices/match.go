package prices

import (
	"regexp"
	"strings"
)

// Match is how Lookup found a model's prices.
type Match struct {
	// Model is the prices found.
	Model *Model
	// How is "exact" (the name is a key), "normalized" (the name less a
	// provider prefix or a date suffix, or with a provider prefix added,
	// is a key) or "substring" (a key contains the name, or the name a
	// key: ccusage's last resort).
	How string
}

// providerPrefixes are tried in front of a name that has none, as ccusage
// does: LiteLLM keys some models only under a provider.
var providerPrefixes = []string{"anthropic/", "openai/", "gemini/", "google/", "vertex_ai/", "openrouter/openai/", "openrouter/google/", "azure/"}

// dateSuffix is a model snapshot's date (-20250514, @20250514,
// -2025-08-07), and versionSuffix a cloud vendor's version (-v1:0).
var (
	dateSuffix    = regexp.MustCompile(`[-@](20\d\d-?[01]\d-?[0-3]\d)$`)
	versionSuffix = regexp.MustCompile(`-v\d+(:\d+)?$`)
)

// Lookup finds a model's prices by the name an agent's log gives it, in
// this order, the first hit winning:
//
//  1. the name as a key, then the name in lower case;
//  2. the name less a provider prefix (everything to the last "/", or a
//     Bedrock "anthropic." or region "us." before it), less a cloud
//     version suffix (-v1:0), and less a date suffix (-20250514), each as
//     a key; then the name with each of ccusage's provider prefixes added
//     (anthropic/, openai/, gemini/, …);
//  3. ccusage's substring rule: among the keys that contain the name
//     (less its provider prefix) the shortest, else among the keys the
//     name contains the longest (ties by key order, so the answer is the
//     same every run, where ccusage takes whichever its map yields
//     first).
//
// A key shorter than 4 characters never matches by substring: "o1" is in
// too many names.
func (t *Table) Lookup(name string) (Match, bool) {
	if t == nil || name == "" {
		return Match{}, false
	}
	if m, ok := t.models[name]; ok {
		return Match{m, "exact"}, true
	}
	lower := strings.ToLower(strings.TrimSpace(name))
	if m, ok := t.lower[lower]; ok {
		return Match{m, "exact"}, true
	}
	bare := stripProvider(lower)
	for _, c := range []string{bare, versionSuffix.ReplaceAllString(bare, ""), dateSuffix.ReplaceAllString(versionSuffix.ReplaceAllString(bare, ""), "")} {
		if m, ok := t.lower[c]; ok {
			return Match{m, "normalized"}, true
		}
	}
	for _, p := range providerPrefixes {
		if m, ok := t.lower[p+bare]; ok {
			return Match{m, "normalized"}, true
		}
	}
	best := ""
	for _, k := range t.keys {
		if strings.Contains(k, bare) && (best == "" || len(k) < len(best)) {
			best = k
		}
	}
	if best == "" {
		for _, k := range t.keys {
			if len(k) >= 4 && strings.Contains(bare, k) && len(k) > len(best) {
				best = k
			}
		}
	}
	if best != "" {
		return Match{t.lower[best], "substring"}, true
	}
	return Match{}, false
}

// stripProvider takes off a provider prefix: "anthropic/claude-x" and
// "openrouter/anthropic/claude-x" → "claude-x"; Bedrock's
// "us.anthropic.claude-x" → "claude-x".
func stripProvider(s string) string {
	if i := strings.LastIndexByte(s, '/'); i >= 0 {
		s = s[i+1:]
	}
	for _, p := range []string{"us.", "eu.", "apac.", "global."} {
		s = strings.TrimPrefix(s, p)
	}
	return strings.TrimPrefix(s, "anthropic.")
}
