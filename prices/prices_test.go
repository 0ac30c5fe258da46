package prices

import (
	"math/big"
	"strings"
	"testing"
)

// TestDefault reads the embedded catalogue: every source has models and
// the models evtool's tests price are found.
func TestDefault(t *testing.T) {
	tb, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	if len(tb.Sources) != 5 {
		t.Fatalf("%d sources, want 5", len(tb.Sources))
	}
	for _, s := range tb.Sources {
		if s.Package == "" || s.Version == "" || s.Published == "" || s.Licence == "" || !s.Embedded {
			t.Errorf("source %+v lacks its provenance", s)
		}
	}
	for name, want := range map[string]string{
		"claude-sonnet-4-20250514":     "claude-sonnet-4-20250514",
		"claude-opus-4-1-20250805":     "claude-opus-4-1-20250805",
		"anthropic/claude-sonnet-4-5":  "claude-sonnet-4-5",
		"claude-sonnet-4-5-20250929":   "claude-sonnet-4-5-20250929",
		"us.anthropic.claude-opus-4-7": "claude-opus-4-7",
		"claude-3-5-haiku-20241022":    "anthropic.claude-3-5-haiku-20241022-v1:0",
		"gpt-5":                        "gpt-5",
		"openai/gpt-5-codex":           "gpt-5-codex",
		"gemini-2.5-pro":               "gemini-2.5-pro",
		"google/gemini-2.5-flash":      "gemini-2.5-flash",
		"claude-haiku-4-5-20251001":    "claude-haiku-4-5-20251001",
		"CLAUDE-SONNET-4-20250514":     "claude-sonnet-4-20250514",
		"gemini-3-pro-preview":         "gemini-3-pro-preview",
		"gemini-3-flash-preview":       "gemini-3-flash-preview",
		"gemini-3.1-pro-preview":       "gemini-3.1-pro-preview",
	} {
		m, ok := tb.Lookup(name)
		if !ok {
			t.Errorf("%s: not found", name)
			continue
		}
		if m.Model.Key != want {
			t.Errorf("%s: found %s (%s), want %s", name, m.Model.Key, m.How, want)
		}
	}
	for _, name := range []string{"claude-opus-9", "gemini-9-pro", "<synthetic>", "gpt-9", "whisper-1"} {
		if m, ok := tb.Lookup(name); ok {
			t.Errorf("%s: found %s (%s), want none", name, m.Model.Key, m.How)
		}
	}
}

func rat(s string) *big.Rat {
	r, _ := new(big.Rat).SetString(s)
	return r
}

// TestCostByHand prices requests whose cost is worked out by hand.
func TestCostByHand(t *testing.T) {
	m := &Model{List: List{Threshold: Threshold, Base: Rates{Input: rat("0.000003"), Output: rat("0.000015"), CacheRead: rat("0.0000003"), CacheWrite: rat("0.00000375")},
		Above: Rates{Input: rat("0.000006"), Output: rat("0.0000225"), CacheRead: rat("0.0000006"), CacheWrite: rat("0.0000075")}}}
	cases := []struct {
		name string
		tok  Tokens
		want string
	}{
		// 1000 × 3e-6 + 500 × 15e-6 = 0.003 + 0.0075
		{"base", Tokens{Input: 1000, Output: 500}, "0.0105"},
		// 10000 × 3e-7 + 2000 × 3.75e-6 = 0.003 + 0.0075
		{"cache 5m", Tokens{CacheRead: 10000, CacheWrite5m: 2000}, "0.0105"},
		// no 1-hour price: 2 × input = 6e-6; 1000 × 6e-6 = 0.006
		{"cache 1h", Tokens{CacheWrite1h: 1000}, "0.006"},
		// 200000 × 3e-6 + 100000 × 6e-6 = 0.6 + 0.6
		{"tier input", Tokens{Input: 300_000}, "1.2"},
		// exactly at the threshold: all at base, 200000 × 15e-6 = 3
		{"at threshold", Tokens{Output: 200_000}, "3"},
		// 1h past the tier: 200000 × 6e-6 + 50000 × 12e-6 = 1.2 + 0.6
		{"tier 1h", Tokens{CacheWrite1h: 250_000}, "1.8"},
		// thoughts at the output price: 100 × 15e-6
		{"thoughts", Tokens{Thoughts: 100}, "0.0015"},
	}
	for _, c := range cases {
		if got := Decimal(m.Cost(c.tok)); got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
}

// TestReadShapes reads a LiteLLM file and a models.dev file, and checks
// that a --prices file's entries come before the embedded ones.
func TestReadShapes(t *testing.T) {
	base, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	lite := `{"sample_spec": {"input_cost_per_token": 0}, "claude-sonnet-4-20250514": {"input_cost_per_token": 1e-6, "output_cost_per_token": 2e-6}}`
	tb, err := Read(strings.NewReader(lite), "mine.json", base)
	if err != nil {
		t.Fatal(err)
	}
	m, _ := tb.Lookup("claude-sonnet-4-20250514")
	if got := Decimal(m.Model.Cost(Tokens{Input: 1, Output: 1})); got != "0.000003" || m.Model.Source.File != "mine.json" {
		t.Errorf("override: %s from %s", got, m.Model.Source.File)
	}
	if m, ok := tb.Lookup("gpt-5"); !ok || !m.Model.Source.Embedded {
		t.Errorf("gpt-5 should still come from the embedded table")
	}
	dev := `{"acme": {"id": "acme", "models": {"acme-1": {"id": "acme-1", "cost": {"input": 2, "output": 8, "cache_read": 0.5, "context_over_200k": {"input": 4, "output": 16}}}}}}`
	tb, err = Read(strings.NewReader(dev), "dev.json", nil)
	if err != nil {
		t.Fatal(err)
	}
	m, ok := tb.Lookup("acme/acme-1")
	if !ok {
		t.Fatal("acme/acme-1 not found")
	}
	// per million: 300000 input = 200000 × 2e-6 + 100000 × 4e-6 = 0.4 + 0.4
	if got := Decimal(m.Model.Cost(Tokens{Input: 300_000})); got != "0.8" {
		t.Errorf("models.dev tier: %s, want 0.8", got)
	}
	for _, bad := range []string{`[]`, `{"x": 1}`, `{"m": {"input_cost_per_token": -1e-6}}`, `{"m": {"input_cost_per_token": 1e-999999}}`} {
		if _, err := Read(strings.NewReader(bad), "bad.json", nil); err == nil {
			t.Errorf("%s: read without error", bad)
		}
	}
	// A price of the wrong type is an error naming the model and field
	// (it was passed over: the embedded price stood in without a word),
	// and a file that is no JSON says where it breaks.
	for bad, want := range map[string]string{
		`{"m": {"input_cost_per_token": "abc", "output_cost_per_token": 1e-6}, "n": {"input_cost_per_token": 1e-6}}`: `m: input_cost_per_token: got a string, want a number`,
		`{"m": {"input_cost_per_token": 3e-06,`: `it ends (at byte 37) inside its value`,
		`{"m": x}`:                              `at byte 7: invalid character 'x'`,
	} {
		if _, err := Read(strings.NewReader(bad), "bad.json", nil); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want an error saying %q", bad, err, want)
		}
	}
}

// TestModelsDevMaker: in models.dev's api.json a model id several providers
// list takes its maker's price, and an entry that costs nothing (GitHub
// Copilot's gpt-5, a subscription) is taken only where no provider prices
// the id. It took the first provider by name: every gpt-5 cost 0, "priced"
// (hunt-usage2 #5).
func TestModelsDevMaker(t *testing.T) {
	api := `{
 "github-copilot": {"id": "github-copilot", "models": {"gpt-5": {"id": "gpt-5", "cost": {"input": 0, "output": 0}}, "only-free": {"id": "only-free", "cost": {"input": 0, "output": 0}}, "glm-4.6": {"id": "glm-4.6", "cost": {"input": 0, "output": 0}}}},
 "openai": {"id": "openai", "models": {"gpt-5": {"id": "gpt-5", "cost": {"input": 1.25, "output": 10}}}},
 "zai": {"id": "zai", "models": {"glm-4.6": {"id": "glm-4.6", "cost": {"input": 0.6, "output": 2.2}}}}
}`
	tb, err := Read(strings.NewReader(api), "api.json", nil)
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"gpt-5": "0.00001125", "glm-4.6": "0.0000028", "only-free": "0"} {
		m, ok := tb.Lookup(name)
		if !ok {
			t.Errorf("%s: not found", name)
			continue
		}
		if got := Decimal(m.Model.Cost(Tokens{Input: 1, Output: 1})); got != want {
			t.Errorf("%s: one input and one output token cost %s, want %s", name, got, want)
		}
	}
}
