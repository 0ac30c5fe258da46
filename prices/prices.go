// Package prices prices token usage from a table of per-token prices: a
// pinned snapshot of public price catalogues, embedded in the binary
// (catalog/, described by catalog/sources.json), and any price file a
// user names, in LiteLLM's shape (model_prices_and_context_window.json),
// models.dev's (api.json, or one provider of it) or genai-prices's
// (data.json: providers whose models have match rules and prices per
// million tokens, see genai.go).
//
// Nothing here opens the network: a model the tables lack has no price,
// and its cost is unknown, never 0.
//
// Prices are exact: each is read from its JSON number's text into a
// rational (json.Number, big.Rat), never through float64, and a cost is a
// sum of integer token counts times those rationals, written as an exact
// decimal.
package prices

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"
)

// Source says where a table's prices come from.
type Source struct {
	// File names the file the prices were read from: a catalogue file
	// embedded from catalog/, or the path of a --prices file.
	File string `json:"file"`
	// Shape is "litellm", "models.dev" or "genai-prices".
	Shape string `json:"shape"`
	// Catalogue names the public catalogue the file is a snapshot of.
	Catalogue string `json:"catalogue,omitempty"`
	// Package, Version and Published name the npm package the snapshot
	// was taken from, and the day that version was published.
	Package   string `json:"package,omitempty"`
	Version   string `json:"version,omitempty"`
	Published string `json:"published,omitempty"`
	// TarballSHA256 is the checksum of the package's tarball.
	TarballSHA256 string `json:"tarball_sha256,omitempty"`
	// TakenFrom says which part of the package the file was copied from.
	TakenFrom string `json:"taken_from,omitempty"`
	// Licence is the package's licence, kept beside the file in
	// LicenceFile.
	Licence     string `json:"licence,omitempty"`
	LicenceFile string `json:"licence_file,omitempty"`
	// Fallback is true for a catalogue asked only when no other has the
	// model, by any rule (see Lookup).
	Fallback bool `json:"fallback,omitempty"`
	// Embedded is true for the snapshot evtool carries.
	Embedded bool `json:"embedded"`
}

// Model is the prices of one model, each per token and nil when the
// catalogue gives none.
type Model struct {
	// Key is the model's name in its catalogue (genai-prices: its id).
	Key string
	// Source is the catalogue the prices come from.
	Source *Source
	// List is the model's prices; Dated, in a genai-prices catalogue,
	// lists that replace them at some times (see Cost).
	List
	Dated []Dated
	// rule is how a genai-prices catalogue matches a name to the model;
	// unpriced marks a model it matches but gives no token price.
	rule     *rule
	unpriced bool
}

// List is one list of a model's prices.
type List struct {
	// Base are the prices below the tier; Above those past it, where
	// the catalogue gives them.
	Base, Above Rates
	// Threshold is where Above begins: 200,000 tokens, the only tier
	// LiteLLM and models.dev state; genai-prices states it (Gemini 1.5:
	// 128,000).
	Threshold uint64
	// PerRequest says what passes the threshold. False (LiteLLM's and
	// models.dev's shapes, as ccusage prices them): the tokens of one
	// kind in one request, and only those past it are at Above. True
	// (genai-prices, as Google and Anthropic bill): the request's
	// prompt, its input, cache read and cache write tokens together,
	// and then every token of the request is at Above.
	PerRequest bool
}

// Dated is a list of prices in force from a day on or at a time of day
// (genai-prices's price constraints).
type Dated struct {
	// From is the first instant (UTC midnight of start_date), or zero.
	From time.Time
	// Daily, when From is zero, is a window of each day in UTC: from
	// Start to End after midnight, past midnight when End < Start.
	Daily      bool
	Start, End time.Duration
	// Always is a list with no constraint.
	Always bool
	List   List
}

// Rates are per-token prices in US dollars; nil when not given.
type Rates struct {
	Input        *big.Rat
	Output       *big.Rat
	CacheRead    *big.Rat
	CacheWrite   *big.Rat // a 5-minute cache write
	CacheWrite1h *big.Rat // a 1-hour cache write
	Reasoning    *big.Rat // a thought token, where priced apart from output
}

// Threshold is the token count above which tiered prices apply.
const Threshold = 200_000

// Table is a set of models' prices, looked up by name (see Lookup).
type Table struct {
	// Sources are the catalogues read, in the order they take precedence.
	Sources []*Source
	cats    []*catalogue      // one per source, in the same order
	models  map[string]*Model // by key, the first source's
	// The keys of the catalogues but the fallback ones, the first
	// source's: exact, in lower case, and the lower-case keys sorted.
	exact map[string]*Model
	lower map[string]*Model
	keys  []string
}

// catalogue is one source's models, by key and, in genai-prices's
// shape, by the match rules of its providers.
type catalogue struct {
	src    *Source
	models []*Model          // every model, in the file's order
	byKey  map[string]*Model // by key, and a genai-prices id its rules give the model for
	lower  map[string]*Model // by lower-case key, the first
	// providers are genai-prices's, nil for another shape.
	providers []*provider
}

//go:embed catalog/*.json
var catalog embed.FS

var (
	defaultOnce  sync.Once
	defaultTable *Table
	defaultErr   error
)

// Default returns the embedded table. It is read once; an error means the
// binary was built with a broken catalogue, which a test catches.
func Default() (*Table, error) {
	defaultOnce.Do(func() {
		defaultTable, defaultErr = loadEmbedded()
	})
	return defaultTable, defaultErr
}

func loadEmbedded() (*Table, error) {
	raw, err := catalog.ReadFile("catalog/sources.json")
	if err != nil {
		return nil, err
	}
	var srcs []*Source
	if err := json.Unmarshal(raw, &srcs); err != nil {
		return nil, fmt.Errorf("catalog/sources.json: %w", err)
	}
	t := &Table{}
	for _, s := range srcs {
		s.Embedded = true
		b, err := catalog.ReadFile("catalog/" + s.File)
		if err != nil {
			return nil, err
		}
		if err := t.read(bytes.NewReader(b), s); err != nil {
			return nil, fmt.Errorf("catalog/%s: %w", s.File, err)
		}
	}
	return t, nil
}

// Read reads a price file, in LiteLLM's shape, models.dev's or
// genai-prices's, into a new table whose entries take precedence over
// base's (nil: none); base itself is not changed.
func Read(r io.Reader, name string, base *Table) (*Table, error) {
	t := &Table{}
	s := &Source{File: name}
	if err := t.read(r, s); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if base != nil {
		for _, c := range base.cats {
			t.addCatalogue(c)
		}
	}
	return t, nil
}

// Len is the number of models in the table, a key given by two sources
// counted once.
func (t *Table) Len() int { return len(t.models) }

// Models returns the table's models, sorted by key; of a key two sources
// give, the first source's.
func (t *Table) Models() []*Model {
	out := make([]*Model, 0, len(t.models))
	for _, m := range t.models {
		out = append(out, m)
	}
	slices.SortFunc(out, func(a, b *Model) int { return strings.Compare(a.Key, b.Key) })
	return out
}

// addCatalogue appends a source's models to the table, after those read
// before.
func (t *Table) addCatalogue(c *catalogue) {
	if t.models == nil {
		t.models, t.exact, t.lower = map[string]*Model{}, map[string]*Model{}, map[string]*Model{}
	}
	t.Sources = append(t.Sources, c.src)
	t.cats = append(t.cats, c)
	for _, m := range c.models {
		if m.unpriced {
			continue
		}
		if _, ok := t.models[m.Key]; !ok {
			t.models[m.Key] = m
		}
	}
	if c.src.Fallback {
		return
	}
	for k, m := range c.byKey {
		if _, ok := t.exact[k]; !ok {
			t.exact[k] = m
		}
	}
	added := false
	for lk, m := range c.lower {
		if _, ok := t.lower[lk]; !ok {
			t.lower[lk] = m
			t.keys = append(t.keys, lk)
			added = true
		}
	}
	if added {
		// Sorted once, not kept sorted by an insert a key: a catalogue
		// of 100,000 models took 6 s that way, and 400,000 over a minute.
		slices.Sort(t.keys)
	}
}

// key adds a model under its key, unless the catalogue has the key.
func (c *catalogue) key(m *Model) {
	if c.byKey == nil {
		c.byKey, c.lower = map[string]*Model{}, map[string]*Model{}
	}
	if _, ok := c.byKey[m.Key]; ok {
		return
	}
	c.byKey[m.Key] = m
	if lk := strings.ToLower(m.Key); c.lower[lk] == nil {
		c.lower[lk] = m
	}
}

// read reads one price file into t, telling its shape from its content.
func (t *Table) read(r io.Reader, s *Source) error {
	cr := &countingReader{r: r}
	dec := json.NewDecoder(cr)
	dec.UseNumber()
	var raw json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		// Where: the byte the JSON breaks at (a syntax error's offset, or
		// how far the decoder read: the end, for a file cut short).
		var se *json.SyntaxError
		switch {
		case errors.As(err, &se):
			return fmt.Errorf("not a JSON document of prices: at byte %d: %w", se.Offset, err)
		case errors.Is(err, io.ErrUnexpectedEOF):
			return fmt.Errorf("not a JSON document of prices: it ends (at byte %d) inside its value: %w", cr.n, err)
		}
		return fmt.Errorf("not a JSON document of prices: %w", err)
	}
	var doc map[string]json.RawMessage
	shape := "genai-prices"
	if !isGenAI(raw) {
		if err := unmarshalNumbers(raw, &doc); err != nil {
			return fmt.Errorf("not a JSON object of prices: %w", err)
		}
		var err error
		if shape, err = shapeOf(doc); err != nil {
			return err
		}
	}
	if s.Shape == "" {
		s.Shape = shape
	} else if s.Shape != shape {
		return fmt.Errorf("sources.json says %s, the file is in %s's shape", s.Shape, shape)
	}
	c := &catalogue{src: s}
	n := 0
	add := func(key string, m *Model) {
		m.Key, m.Source, m.Threshold = key, s, Threshold
		if _, ok := c.byKey[key]; ok {
			return
		}
		c.key(m)
		c.models = append(c.models, m)
		n++
	}
	var err error
	switch shape {
	case "litellm":
		err = readLiteLLM(doc, add)
	case "models.dev":
		err = readModelsDev(doc, add)
	default:
		c.providers, err = readGenAI(raw, s)
		for _, p := range c.providers {
			for _, m := range p.models {
				c.models = append(c.models, m)
				if m.unpriced {
					continue
				}
				n++
				// A model's id is a key when the catalogue's rules give
				// the model for it: not so an id its provider's
				// model_match does not take (a Claude model under
				// google), nor one an earlier model's rule takes.
				if f, ok := c.find(strings.ToLower(m.Key)); ok && f == m {
					c.key(m)
				}
			}
		}
	}
	if err != nil {
		return err
	}
	if n == 0 {
		return fmt.Errorf("no model in it has a price")
	}
	t.addCatalogue(c)
	return nil
}

// shapeOf tells LiteLLM's shape (model → {input_cost_per_token, …}) from
// models.dev's (provider → {id, models: {model → {cost: {…}}}}, or one
// provider object alone).
func shapeOf(doc map[string]json.RawMessage) (string, error) {
	if _, ok := doc["models"]; ok {
		return "models.dev", nil
	}
	for k, v := range doc {
		if k == "sample_spec" {
			continue
		}
		var probe map[string]json.RawMessage
		if json.Unmarshal(v, &probe) != nil {
			continue
		}
		if _, ok := probe["models"]; ok {
			return "models.dev", nil
		}
		for f := range probe {
			if strings.HasSuffix(f, "_cost_per_token") || strings.HasSuffix(f, "_token_cost") {
				return "litellm", nil
			}
		}
	}
	return "", fmt.Errorf("neither LiteLLM's shape (model → input_cost_per_token, …), models.dev's (provider → models → cost) nor genai-prices's ([provider → models: [{match, prices}]])")
}

// litellmModel is an entry of LiteLLM's model_prices_and_context_window.json:
// prices per token.
type litellmModel struct {
	Input             json.Number `json:"input_cost_per_token"`
	Output            json.Number `json:"output_cost_per_token"`
	CacheRead         json.Number `json:"cache_read_input_token_cost"`
	CacheWrite        json.Number `json:"cache_creation_input_token_cost"`
	CacheWrite1h      json.Number `json:"cache_creation_input_token_cost_above_1hr"`
	Reasoning         json.Number `json:"output_cost_per_reasoning_token"`
	InputAbove        json.Number `json:"input_cost_per_token_above_200k_tokens"`
	OutputAbove       json.Number `json:"output_cost_per_token_above_200k_tokens"`
	CacheReadAbove    json.Number `json:"cache_read_input_token_cost_above_200k_tokens"`
	CacheWriteAbove   json.Number `json:"cache_creation_input_token_cost_above_200k_tokens"`
	CacheWrite1hAbove json.Number `json:"cache_creation_input_token_cost_above_1hr_above_200k_tokens"`
}

func readLiteLLM(doc map[string]json.RawMessage, add func(string, *Model)) error {
	for _, key := range sortedKeys(doc) {
		if key == "sample_spec" {
			continue // LiteLLM's description of its own fields
		}
		var e litellmModel
		if err := unmarshalNumbers(doc[key], &e); err != nil {
			if f, typ, bad := badPrice(doc[key]); bad {
				// A model's price of the wrong type is an error, not a
				// model to pass over: the embedded price would stand in
				// for it without a word.
				return fmt.Errorf("%s: %s: got %s, want a number", key, f, typ)
			}
			continue // not a model's prices (a comment, a newer shape)
		}
		m := &Model{}
		var err error
		set := func(dst **big.Rat, n json.Number) {
			if err == nil && n != "" {
				*dst, err = parsePrice(n, 1)
			}
		}
		set(&m.Base.Input, e.Input)
		set(&m.Base.Output, e.Output)
		set(&m.Base.CacheRead, e.CacheRead)
		set(&m.Base.CacheWrite, e.CacheWrite)
		set(&m.Base.CacheWrite1h, e.CacheWrite1h)
		set(&m.Base.Reasoning, e.Reasoning)
		set(&m.Above.Input, e.InputAbove)
		set(&m.Above.Output, e.OutputAbove)
		set(&m.Above.CacheRead, e.CacheReadAbove)
		set(&m.Above.CacheWrite, e.CacheWriteAbove)
		set(&m.Above.CacheWrite1h, e.CacheWrite1hAbove)
		if err != nil {
			return fmt.Errorf("%s: %w", key, err)
		}
		if m.Base.Input == nil && m.Base.Output == nil {
			continue // an image or embedding model, priced otherwise
		}
		add(key, m)
	}
	return nil
}

// modelsDevCost is a models.dev model's cost: US dollars per million
// tokens.
type modelsDevCost struct {
	Input      json.Number `json:"input"`
	Output     json.Number `json:"output"`
	CacheRead  json.Number `json:"cache_read"`
	CacheWrite json.Number `json:"cache_write"`
	Reasoning  json.Number `json:"reasoning"`
	Over200k   *struct {
		Input      json.Number `json:"input"`
		Output     json.Number `json:"output"`
		CacheRead  json.Number `json:"cache_read"`
		CacheWrite json.Number `json:"cache_write"`
	} `json:"context_over_200k"`
}

type modelsDevProvider struct {
	ID     string `json:"id"`
	Models map[string]struct {
		ID   string         `json:"id"`
		Cost *modelsDevCost `json:"cost"`
	} `json:"models"`
}

func readModelsDev(doc map[string]json.RawMessage, add func(string, *Model)) error {
	providers := map[string]json.RawMessage{}
	if _, ok := doc["models"]; ok {
		providers[""] = mustMarshal(doc) // one provider alone
	} else {
		providers = doc
	}
	// A model id many providers list takes its maker's price: models.dev
	// lists gpt-5 under github-copilot at 0 (a subscription) before
	// openai, by name. So the makers' providers come first, and an entry
	// that costs nothing is taken only where no provider prices the id.
	keys := sortedKeys(providers)
	slices.SortStableFunc(keys, func(a, b string) int { return makerRank(a) - makerRank(b) })
	for _, free := range []bool{false, true} {
		if err := readModelsDevPass(providers, keys, free, add); err != nil {
			return err
		}
	}
	return nil
}

// makers are the providers whose models' ids are their own.
var makers = []string{"anthropic", "openai", "google"}

// makerRank orders the makers' providers before the others.
func makerRank(provider string) int {
	if i := slices.Index(makers, provider); i >= 0 {
		return i
	}
	return len(makers)
}

// readModelsDevPass adds the priced models of the providers, in order:
// those that cost something, or, with free, those that cost nothing.
func readModelsDevPass(providers map[string]json.RawMessage, keys []string, free bool, add func(string, *Model)) error {
	for _, pk := range keys {
		var p modelsDevProvider
		if err := unmarshalNumbers(providers[pk], &p); err != nil {
			continue
		}
		ids := make([]string, 0, len(p.Models))
		for id := range p.Models {
			ids = append(ids, id)
		}
		slices.Sort(ids)
		for _, id := range ids {
			c := p.Models[id].Cost
			if c == nil || (c.Input == "" && c.Output == "") || costsNothing(c) != free {
				continue
			}
			m := &Model{}
			var err error
			set := func(dst **big.Rat, n json.Number) {
				if err == nil && n != "" {
					*dst, err = parsePrice(n, 1_000_000)
				}
			}
			set(&m.Base.Input, c.Input)
			set(&m.Base.Output, c.Output)
			set(&m.Base.CacheRead, c.CacheRead)
			set(&m.Base.CacheWrite, c.CacheWrite)
			set(&m.Base.Reasoning, c.Reasoning)
			if o := c.Over200k; o != nil {
				set(&m.Above.Input, o.Input)
				set(&m.Above.Output, o.Output)
				set(&m.Above.CacheRead, o.CacheRead)
				set(&m.Above.CacheWrite, o.CacheWrite)
			}
			if err != nil {
				return fmt.Errorf("%s/%s: %w", p.ID, id, err)
			}
			// models.dev keys a model by its id within the provider; the
			// provider's id in front is how LiteLLM and agents often
			// name it (google/gemini-2.5-pro), and Lookup strips it.
			add(id, m)
		}
	}
	return nil
}

// costsNothing reports whether every price of a models.dev cost is 0.
func costsNothing(c *modelsDevCost) bool {
	for _, n := range []json.Number{c.Input, c.Output, c.CacheRead, c.CacheWrite, c.Reasoning} {
		if r, ok := new(big.Rat).SetString(string(n)); ok && r.Sign() != 0 {
			return false
		}
	}
	return true
}

func mustMarshal(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// badPrice finds, in an entry of a LiteLLM file, a price field whose value
// is not a number.
func badPrice(raw json.RawMessage) (field, typ string, bad bool) {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return "", "", false
	}
	t := reflect.TypeFor[litellmModel]()
	for i := range t.NumField() {
		f := t.Field(i).Tag.Get("json")
		v, ok := m[f]
		if !ok {
			continue
		}
		var n json.Number
		if unmarshalNumbers(v, &n) != nil {
			typ := "a value that is not a number"
			switch r := bytes.TrimSpace(v); {
			case len(r) > 0 && r[0] == '"':
				typ = "a string"
			case len(r) > 0 && (r[0] == '{' || r[0] == '['):
				typ = "an object or array"
			case string(r) == "true" || string(r) == "false":
				typ = "a boolean"
			}
			return f, typ, true
		}
	}
	return "", "", false
}

func unmarshalNumbers(raw json.RawMessage, v any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	return dec.Decode(v)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// maxExponent bounds a price's decimal exponent: a price is a handful of
// digits (3e-6, 0.000003), and an exponent past this is no price and
// would cost memory to hold exactly.
const maxExponent = 100

// parsePrice reads a JSON number's text exactly, divided by per (1 for a
// price per token, 1e6 for one per million tokens). A negative price is
// refused.
func parsePrice(n json.Number, per int64) (*big.Rat, error) {
	s := string(n)
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		e := strings.TrimLeft(s[i+1:], "+-")
		if len(e) > 3 || atoi(e) > maxExponent {
			return nil, fmt.Errorf("price %s: the exponent is beyond ±%d", s, maxExponent)
		}
	}
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		return nil, fmt.Errorf("price %q is not a number", s)
	}
	if r.Sign() < 0 {
		return nil, fmt.Errorf("price %s is below zero", s)
	}
	return r.Quo(r, new(big.Rat).SetInt64(per)), nil
}

func atoi(s string) int {
	n := 0
	for _, c := range s {
		if c < '0' || c > '9' {
			return maxExponent + 1
		}
		n = n*10 + int(c-'0')
	}
	return n
}

// DecimalDigits is how many digits after the point r needs as a decimal;
// ok is false when its denominator is not 2^a·5^b (r has no finite
// decimal form, and digits is then what its factors of 2 and 5 ask).
func DecimalDigits(r *big.Rat) (digits int, ok bool) {
	den := new(big.Int).Set(r.Denom())
	q, m := new(big.Int), new(big.Int)
	for _, p := range []int64{2, 5} {
		bp := big.NewInt(p)
		n := 0
		for {
			q.QuoRem(den, bp, m)
			if m.Sign() != 0 {
				break
			}
			den.Set(q)
			n++
		}
		digits = max(digits, n)
	}
	return digits, den.Cmp(big.NewInt(1)) == 0
}

// Decimal writes an exact rational whose denominator divides a power of
// ten (a sum of decimal prices times counts) as a plain decimal: no
// exponent, no trailing zeros ("0.0105", "12").
func Decimal(r *big.Rat) string {
	digits, _ := DecimalDigits(r)
	s := r.FloatString(digits) // exact: 10^digits is a multiple of the denominator
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	if s == "-0" {
		s = "0"
	}
	return s
}
