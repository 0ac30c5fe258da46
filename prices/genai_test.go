package prices

import (
	"go/ast"
	"go/parser"
	"go/token"
	"math/big"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestGeminiByHand prices Gemini requests at the embedded genai-prices
// figures (genai-prices-google.json, per million tokens), worked by hand.
func TestGeminiByHand(t *testing.T) {
	tb, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		model string
		tok   Tokens
		want  string
	}{
		// gemini-3-flash-preview: input 0.5, cache read 0.05, output 3;
		// thoughts at the output price:
		// 12345 × 0.5 + 20000 × 0.05 + (678 + 900) × 3
		// = 6172.5 + 1000 + 4734 = 11906.5 per million
		{"gemini-3-flash-preview", Tokens{Input: 12345, CacheRead: 20000, Output: 678, Thoughts: 900}, "0.0119065"},
		// gemini-3.1-pro-preview: input 2, cache read 0.2, output 12; 4,
		// 0.4 and 18 once the prompt passes 200,000 tokens. A prompt of
		// 150000 + 50000 = 200000 is not past it:
		// 150000 × 2 + 50000 × 0.2 + 1500 × 12 = 300000 + 10000 + 18000
		{"gemini-3.1-pro-preview", Tokens{Input: 150_000, CacheRead: 50_000, Output: 1000, Thoughts: 500}, "0.328"},
		// one more input token, and every token is at the higher price:
		// 150001 × 4 + 50000 × 0.4 + 1500 × 18 = 600004 + 20000 + 27000
		{"gemini-3.1-pro-preview", Tokens{Input: 150_001, CacheRead: 50_000, Output: 1000, Thoughts: 500}, "0.647004"},
		// gemini-3-pro-preview, the same prices: 100 × 2 + 10 × 12
		{"gemini-3-pro-preview", Tokens{Input: 100, Output: 10}, "0.00032"},
		// gemini-2.5-pro: input 1.25, output 10, cache read 0.125 (the
		// session docs/usage.md works by hand, ccusage's figure):
		// 32404 × 1.25 + (1123 + 827) × 10 + 11211 × 0.125
		// = 40505 + 19500 + 1401.375 = 61406.375 per million
		{"gemini-2.5-pro", Tokens{Input: 32404, Output: 1123, Thoughts: 827, CacheRead: 11211}, "0.061406375"},
		// gemini-2.5-flash: input 0.3, cache read 0.03, output 2.5:
		// 10000 × 0.3 + 10000 × 0.03 + 1000 × 2.5 = 3000 + 300 + 2500
		{"google/gemini-2.5-flash", Tokens{Input: 10000, CacheRead: 10000, Output: 1000}, "0.0058"},
		// gemini-1.5-flash: input 0.075, tier from 128,000 at 0.15:
		// 128001 × 0.15 = 19200.15 per million
		{"gemini-1.5-flash", Tokens{Input: 128_001}, "0.01920015"},
		{"gemini-1.5-flash", Tokens{Input: 128_000}, "0.0096"},
	}
	for _, c := range cases {
		m, ok := tb.Lookup(c.model)
		if !ok {
			t.Errorf("%s: no price", c.model)
			continue
		}
		if m.Model.Source.File != "genai-prices-google.json" {
			t.Errorf("%s: priced from %s, want genai-prices-google.json", c.model, m.Model.Source.File)
		}
		if got := Decimal(m.Model.Cost(c.tok)); got != c.want {
			t.Errorf("%s %+v: %s, want %s", c.model, c.tok, got, c.want)
		}
	}
	// The prices are the catalogue's digits, exactly.
	for model, want := range map[string]string{"gemini-2.5-flash-lite": "0.01", "gemini-1.5-flash": "0.01875", "gemini-2.5-pro": "0.125", "gemini-3-flash-preview": "0.05"} {
		m, _ := tb.Lookup(model)
		if got := Decimal(new(big.Rat).Mul(m.Model.Base.CacheRead, big.NewRat(1_000_000, 1))); got != want {
			t.Errorf("%s: cache read %s per million, want %s", model, got, want)
		}
	}
}

// TestPrecedence: Claude and Codex names stay with the LiteLLM tables;
// a Gemini name goes to genai-prices before models.dev, but for a name
// models.dev has as a key and genai-prices only by a rule; anthropic and
// openai from genai-prices come last, after the substring rule.
func TestPrecedence(t *testing.T) {
	tb, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{
		"claude-sonnet-4-5":                       "litellm-claude.json claude-sonnet-4-5 exact",
		"claude-3-5-haiku-20241022":               "litellm-claude.json anthropic.claude-3-5-haiku-20241022-v1:0 substring",
		"gpt-5.6-sol":                             "litellm-codex.json gpt-5 substring",
		"gemini-2.5-pro":                          "genai-prices-google.json gemini-2.5-pro exact",
		"gemini/gemini-3-flash-preview":           "genai-prices-google.json gemini-3-flash-preview normalized",
		"gemini-3-flash-preview-001":              "genai-prices-google.json gemini-3-flash-preview rule",
		"gemini-2.5-pro-preview-06-05":            "modelsdev-google.json gemini-2.5-pro-preview-06-05 exact",
		"gemini-2.5-pro-preview-03-25":            "genai-prices-google.json gemini-2.5-pro rule",
		"gemini-1.5-flash-8b":                     "modelsdev-google.json gemini-1.5-flash-8b exact",
		"gemini-2.5-flash-001":                    "genai-prices-google.json gemini-2.5-flash substring",
		"gemini-2.5-pro-preview-tts":              "genai-prices-google.json gemini-2.5-pro-tts rule",
		"claude-opus-5":                           "genai-prices-anthropic-openai.json claude-opus-5 exact",
		"claude-fable-5-20270101":                 "genai-prices-anthropic-openai.json claude-fable-5 normalized",
		"claude-opus-4-8-thinking":                "genai-prices-anthropic-openai.json claude-opus-4-8 rule",
		"o3":                                      "genai-prices-anthropic-openai.json o3 exact",
		"openai/gpt-4o-2024-08-06":                "genai-prices-anthropic-openai.json gpt-4o normalized",
		"anthropic.claude-sonnet-4-20250514-v1:0": "litellm-claude.json anthropic.claude-sonnet-4-20250514-v1:0 exact",
	} {
		m, ok := tb.Lookup(name)
		if !ok {
			t.Errorf("%s: not found, want %s", name, want)
			continue
		}
		if got := m.Model.Source.File + " " + m.Model.Key + " " + m.How; got != want {
			t.Errorf("%s: %s, want %s", name, got, want)
		}
	}
	// A Claude model the google provider lists (Vertex) is not a key:
	// its provider's model_match takes Gemini names only.
	if m, ok := tb.Lookup("claude-3-5-sonnet"); ok && m.Model.Source.File == "genai-prices-google.json" {
		t.Errorf("claude-3-5-sonnet priced from the google provider")
	}
}

// genaiFile is a genai-prices catalogue of made-up models: rules, tiers,
// a parent's price for a kind without one, dated lists.
const genaiFile = `[
 {"id": "acme", "model_match": {"contains": "acme"}, "fallback_model_providers": ["other"],
  "models": [
   {"id": "acme-free", "match": {"equals": "acme-free"}, "prices": {}},
   {"id": "acme-big", "match": {"and": [{"starts_with": "ACME-Big"}, {"regex": "^(?!.*-tts(?:$|-))"}]},
    "prices": {"input_mtok": {"base": 1, "tiers": [{"start": 1000, "price": 2}]}, "output_mtok": {"base": 10, "tiers": [{"start": 1000, "price": 15}]},
     "cache_write_mtok": 1.25, "input_audio_mtok": 99, "web_searches_kcount": 10}},
   {"id": "acme-tts", "match": {"ends_with": "-tts"}, "prices": {"input_mtok": 0.5, "output_mtok": 5}},
   {"id": "acme-dated", "match": {"regex": "^acme-dated-\\d{4}-\\d{2}-\\d{2}$"}, "prices": [
     {"prices": {"input_mtok": 1, "output_mtok": 2}},
     {"constraint": {"start_date": "2026-06-01", "type": "start_date"}, "prices": {"input_mtok": 3, "output_mtok": 4}},
     {"constraint": {"start_time": "22:00:00Z", "end_time": "23:59:59-02:00", "type": "time_of_date"}, "prices": {"input_mtok": 0.5, "output_mtok": 1}}]},
   {"id": "acme-later", "match": {"equals": "acme-later"}, "prices": [
     {"prices": {"input_mtok": 1, "output_mtok": 1}},
     {"constraint": {"start_date": "2026-06-01"}, "prices": {"input_mtok": 3, "output_mtok": 3}}]},
   {"id": "acme-or", "match": {"or": [{"equals": "acme-x"}, {"contains": "acme-y"}]}, "prices": {"input_mtok": 7, "output_mtok": 7}}
  ]},
 {"id": "other", "models": [{"id": "acme-other", "match": {"starts_with": "acme-other"}, "prices": {"input_mtok": 8, "output_mtok": 8}}]}
]`

func readGenAIFile(t *testing.T) *Table {
	t.Helper()
	tb, err := Read(strings.NewReader(genaiFile), "acme.json", nil)
	if err != nil {
		t.Fatal(err)
	}
	if tb.Sources[0].Shape != "genai-prices" {
		t.Fatalf("shape %s", tb.Sources[0].Shape)
	}
	return tb
}

// TestGenAIRules: the match rules, as genai-prices applies them.
func TestGenAIRules(t *testing.T) {
	tb := readGenAIFile(t)
	for name, want := range map[string]string{
		"acme-big":            "acme-big exact",
		"ACME-BIG-2":          "acme-big rule",      // starts_with, in lower case
		"acme-big-tts":        "acme-tts rule",      // the lookahead leaves it to ends_with
		"acme-big-tts-2":      "acme-big substring", // no rule; ccusage's last resort finds the key acme-big in it
		"ACME-X":              "acme-or rule",       // equals
		"my-acme-y-1":         "acme-or rule",       // contains
		"vendor/acme-x":       "acme-or rule",       // less its provider prefix
		"acme-other-2":        "acme-other rule",
		"acme-dated-20260715": "acme-dated rule", // the date written with dashes
		"acme-dated-20260231": "",                // no such day
		"acme-free":           "",                // no price: unknown, never 0
		"other-model":         "",                // no provider takes it
	} {
		m, ok := tb.Lookup(name)
		got := ""
		if ok {
			got = m.Model.Key + " " + m.How
		}
		if got != want {
			t.Errorf("%s: %q, want %q", name, got, want)
		}
	}
	if got := dashDates("x-20250514-y-20251301:z-20260101"); got != "x-2025-05-14-y-20251301:z-2026-01-01" {
		t.Errorf("dashDates: %s", got)
	}
}

// TestGenAITiers: a tier is chosen by the request's whole prompt, more
// than its start, and prices every token of its kind; a kind with no
// price of its own takes its parent's, tier and all.
func TestGenAITiers(t *testing.T) {
	tb := readGenAIFile(t)
	m, _ := tb.Lookup("acme-big")
	cases := []struct {
		name string
		tok  Tokens
		want string
	}{
		// prompt 600 + 400 = 1000, not past 1000: 600 × 1 + 400 × 1 (cache
		// read at the input price) + 100 × 10 = 2000 per million
		{"at the start", Tokens{Input: 600, CacheRead: 400, Output: 100}, "0.002"},
		// prompt 1001: 601 × 2 + 400 × 2 + 100 × 15 = 1202 + 800 + 1500
		{"past it", Tokens{Input: 601, CacheRead: 400, Output: 100}, "0.003502"},
		// cache writes count in the prompt; their price is flat:
		// 900 × 1 + 101 × 1.25 past nothing, then 900 × 2 + 101 × 1.25
		{"writes below", Tokens{Input: 900, CacheWrite5m: 100}, "0.001025"},
		{"writes past", Tokens{Input: 900, CacheWrite5m: 101}, "0.00192625"},
		// a 1-hour write at the cache write price: 100 × 1.25
		{"1h", Tokens{CacheWrite1h: 100}, "0.000125"},
		// thoughts at the output price, tiered by the prompt: 10 × 15
		{"thoughts", Tokens{Input: 1001, Thoughts: 10}, "0.002152"},
	}
	for _, c := range cases {
		if got := Decimal(m.Model.Cost(c.tok)); got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
	if m.Model.Threshold != 1000 || !m.Model.PerRequest {
		t.Errorf("threshold %d, per request %v", m.Model.Threshold, m.Model.PerRequest)
	}
	if p := m.Model.Price(KindCacheRead, true); Decimal(new(big.Rat).Mul(p, big.NewRat(1_000_000, 1))) != "2" {
		t.Errorf("cache read past the tier: %s per token", p.RatString())
	}
}

// TestGenAIDated: the list in force at the request's time.
func TestGenAIDated(t *testing.T) {
	tb := readGenAIFile(t)
	m, _ := tb.Lookup("acme-dated-2026-01-01")
	at := func(s string) time.Time {
		v, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	for _, c := range []struct {
		at   time.Time
		want string // 1000 input tokens
	}{
		{time.Time{}, "0.001"},                 // not known: no constraint holds, the first list
		{at("2026-05-01T12:00:00Z"), "0.001"},  // before the start date
		{at("2026-06-01T12:00:00Z"), "0.003"},  // from it
		{at("2026-07-01T23:00:00Z"), "0.0005"}, // the daily window, 22:00 to 01:59:59 UTC, later in the list
		{at("2026-07-02T01:59:58Z"), "0.0005"}, // past midnight
		{at("2026-07-02T01:59:59Z"), "0.003"},  // its end is not in it
		{at("2026-07-02T00:30:00+02:00"), "0.0005"},
	} {
		if got := Decimal(m.Model.Cost(Tokens{Input: 1000, At: c.at})); got != c.want {
			t.Errorf("at %s: %s, want %s", c.at, got, c.want)
		}
	}
	// Not known, with a publication day: the list in force that day.
	m, _ = tb.Lookup("acme-later")
	if got := Decimal(m.Model.Cost(Tokens{Input: 1000})); got != "0.001" {
		t.Errorf("no publication day: %s, want 0.001", got)
	}
	m.Model.Source.Published = "2026-06-02"
	if got := Decimal(m.Model.Cost(Tokens{Input: 1000})); got != "0.003" {
		t.Errorf("at the publication day: %s, want 0.003", got)
	}
}

// TestGenAIRefused: what evtool cannot read exactly is an error, not a
// guess.
func TestGenAIRefused(t *testing.T) {
	for _, bad := range []string{
		`[{"id": "p", "model_match": {"contains": "m"}, "models": [{"id": "m", "match": {"regex": "(?<=x)m"}, "prices": {"input_mtok": 1}}]}]`,
		`[{"id": "p", "models": [{"id": "m", "match": {"equals": "m"}, "prices": {"input_mtok": {"base": 1, "tiers": [{"start": 10, "price": 2}, {"start": 20, "price": 3}]}}}]}]`,
		`[{"id": "p", "models": [{"id": "m", "match": {"equals": "m"}, "prices": {"input_mtok": {"base": 1, "tiers": [{"start": 10, "price": 2}]}, "output_mtok": {"base": 1, "tiers": [{"start": 20, "price": 2}]}}}]}]`,
		`[{"id": "p", "models": [{"id": "m", "match": {"like": "m"}, "prices": {"input_mtok": 1}}]}]`,
		`[{"id": "p", "models": [{"id": "m", "match": {"equals": "m"}, "prices": {"input_mtok": -1}}]}]`,
		`[{"id": "p", "models": [{"id": "m", "match": {"equals": "m"}, "prices": {"input_mtok": {"base": 1, "tiers": [{"start": 1.5, "price": 2}]}}}]}]`,
		`[{"id": "p", "models": [{"id": "m", "match": {"equals": "m"}, "prices": [{"constraint": {"start_date": "soon"}, "prices": {"input_mtok": 1}}]}]}]`,
		`[{"id": "p", "models": [{"id": "m", "match": {"equals": "m"}, "prices": {}}]}]`,
	} {
		if _, err := Read(strings.NewReader(bad), "bad.json", nil); err == nil {
			t.Errorf("%s: read without error", bad)
		}
	}
}

// TestNoFloat: the package's code holds no float: prices are read from
// their text into big.Rat and stay there.
func TestNoFloat(t *testing.T) {
	files, _ := filepath.Glob("*.go")
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(file, func(n ast.Node) bool {
			var name string
			switch n := n.(type) {
			case *ast.Ident:
				name = n.Name
			case *ast.SelectorExpr:
				name = n.Sel.Name
			}
			switch name {
			case "float32", "float64", "Float", "Float32", "Float64", "ParseFloat", "NewFloat", "SetFloat64":
				t.Errorf("%s: %s", fset.Position(n.Pos()), name)
			}
			return true
		})
	}
}

// TestGenAIFileFirst: a genai-prices file named with --prices (one
// provider object alone here) comes before the embedded table.
func TestGenAIFileFirst(t *testing.T) {
	base, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	one := `{"id": "google", "model_match": {"contains": "gemini"}, "models": [{"id": "gemini-2.5-pro", "match": {"starts_with": "gemini-2.5-pro"}, "prices": {"input_mtok": 1, "output_mtok": 2}}]}`
	tb, err := Read(strings.NewReader(one), "mine.json", base)
	if err != nil {
		t.Fatal(err)
	}
	m, ok := tb.Lookup("gemini-2.5-pro")
	if !ok || m.Model.Source.File != "mine.json" || Decimal(m.Model.Cost(Tokens{Input: 1_000_000})) != "1" {
		t.Errorf("gemini-2.5-pro: %+v", m)
	}
	if m, ok := tb.Lookup("gemini-3-flash-preview"); !ok || !m.Model.Source.Embedded {
		t.Errorf("gemini-3-flash-preview should still come from the embedded table")
	}
	if len(tb.Sources) != 6 || tb.Len() < base.Len() {
		t.Errorf("%d sources, %d models", len(tb.Sources), tb.Len())
	}
}
