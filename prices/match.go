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
	// is a key), "rule" (a genai-prices catalogue's match rules give
	// the model) or "substring" (a key contains the name, or the name a
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
// this order, the first hit winning, and within a step the catalogue
// first in precedence (Sources):
//
//  1. the name as a key, then the name in lower case (a key: LiteLLM's
//     and models.dev's; a genai-prices model's id, when the
//     catalogue's own rules give that model for it);
//  2. the name less a provider prefix (everything to the last "/", or a
//     Bedrock "anthropic." or region "us." before it), less a cloud
//     version suffix (-v1:0), and less a date suffix (-20250514), each as
//     a key; then the name with each of ccusage's provider prefixes added
//     (anthropic/, openai/, gemini/, …);
//  3. a genai-prices catalogue's match rules (see catalogue.find), on
//     the name in lower case, then less its provider prefix;
//  4. ccusage's substring rule: among the keys that contain the name
//     (less its provider prefix) the shortest, else among the keys the
//     name contains the longest (ties by key order, so the answer is the
//     same every run, where ccusage takes whichever its map yields
//     first);
//  5. the fallback catalogues (Source.Fallback), each in turn, by steps
//     1 to 3.
//
// A key shorter than 4 characters never matches by substring: "o1" is in
// too many names.
func (t *Table) Lookup(name string) (Match, bool) {
	if t == nil || name == "" {
		return Match{}, false
	}
	lower := strings.ToLower(strings.TrimSpace(name))
	bare := stripProvider(lower)
	if m, ok := byName(t.exact, t.lower, name, lower, bare); ok {
		return m, true
	}
	for _, c := range t.cats {
		if !c.src.Fallback {
			if m, ok := c.byRule(lower, bare); ok {
				return m, true
			}
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
	for _, c := range t.cats {
		if c.src.Fallback {
			if m, ok := byName(c.byKey, c.lower, name, lower, bare); ok {
				return m, true
			}
			if m, ok := c.byRule(lower, bare); ok {
				return m, true
			}
		}
	}
	return Match{}, false
}

// byName is Lookup's steps 1 and 2 over keys: exact, and lower-case.
func byName(exact, lower map[string]*Model, name, lowerName, bare string) (Match, bool) {
	if m, ok := exact[name]; ok {
		return Match{m, "exact"}, true
	}
	if m, ok := lower[lowerName]; ok {
		return Match{m, "exact"}, true
	}
	unversioned := versionSuffix.ReplaceAllString(bare, "")
	for _, k := range []string{bare, unversioned, dateSuffix.ReplaceAllString(unversioned, "")} {
		if m, ok := lower[k]; ok {
			return Match{m, "normalized"}, true
		}
	}
	for _, p := range providerPrefixes {
		if m, ok := lower[p+bare]; ok {
			return Match{m, "normalized"}, true
		}
	}
	return Match{}, false
}

// byRule is Lookup's step 3 in one catalogue.
func (c *catalogue) byRule(lower, bare string) (Match, bool) {
	if c.providers == nil {
		return Match{}, false
	}
	for _, n := range []string{lower, bare} {
		if m, ok := c.find(n); ok {
			return Match{m, "rule"}, true
		}
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
