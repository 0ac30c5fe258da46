// Package prices prices token usage from a table of per-token prices: a
// pinned snapshot of public price catalogues, embedded in the binary
// (catalog/, described by catalog/sources.json), and any price file a
// user names, in LiteLLM's shape (model_prices_and_context_window.json)
// or models.dev's (api.json, or one provider of it).
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
	"fmt"
	"io"
	"math/big"
	"slices"
	"strings"
	"sync"
)

// Source says where a table's prices come from.
type Source struct {
	// File names the file the prices were read from: a catalogue file
	// embedded from catalog/, or the path of a --prices file.
	File string `json:"file"`
	// Shape is "litellm" or "models.dev".
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
	// Embedded is true for the snapshot evtool carries.
	Embedded bool `json:"embedded"`
}

// Model is the prices of one model, each per token and nil when the
// catalogue gives none.
type Model struct {
	// Key is the model's name in its catalogue.
	Key string
	// Source is the catalogue the prices come from.
	Source *Source
	// Base are the prices up to Threshold tokens of a kind in one
	// request; Above those past it, where the catalogue gives them.
	Base, Above Rates
	// Threshold is where Above begins: 200,000 tokens, the only tier
	// LiteLLM and models.dev state for these models.
	Threshold uint64
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
	models  map[string]*Model // by key
	lower   map[string]*Model // by lower-case key, the first source's
	keys    []string          // lower-case keys, sorted
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

// Read reads a price file, in LiteLLM's shape or models.dev's, into a
// new table whose entries take precedence over base's (nil: none); base
// itself is not changed.
func Read(r io.Reader, name string, base *Table) (*Table, error) {
	t := &Table{}
	s := &Source{File: name}
	if err := t.read(r, s); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if base != nil {
		t.Sources = append(t.Sources, base.Sources...)
		for _, k := range base.order() {
			t.add(base.models[k])
		}
	}
	return t, nil
}

// order lists the keys in the order they were added: the order of
// precedence is the sources', and within one source any.
func (t *Table) order() []string {
	keys := make([]string, 0, len(t.models))
	for k := range t.models {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int {
		ia, ib := slices.Index(t.Sources, t.models[a].Source), slices.Index(t.Sources, t.models[b].Source)
		if ia != ib {
			return ia - ib
		}
		return strings.Compare(a, b)
	})
	return keys
}

// Len is the number of models in the table.
func (t *Table) Len() int { return len(t.models) }

// Models returns the table's models, sorted by key.
func (t *Table) Models() []*Model {
	out := make([]*Model, 0, len(t.models))
	for _, m := range t.models {
		out = append(out, m)
	}
	slices.SortFunc(out, func(a, b *Model) int { return strings.Compare(a.Key, b.Key) })
	return out
}

// add adds a model unless a source read before gave the key.
func (t *Table) add(m *Model) {
	if t.models == nil {
		t.models, t.lower = map[string]*Model{}, map[string]*Model{}
	}
	if _, ok := t.models[m.Key]; ok {
		return
	}
	t.models[m.Key] = m
	lk := strings.ToLower(m.Key)
	if _, ok := t.lower[lk]; !ok {
		t.lower[lk] = m
		i, _ := slices.BinarySearch(t.keys, lk)
		t.keys = slices.Insert(t.keys, i, lk)
	}
}

// read reads one price file into t, telling its shape from its content.
func (t *Table) read(r io.Reader, s *Source) error {
	dec := json.NewDecoder(r)
	dec.UseNumber()
	var doc map[string]json.RawMessage
	if err := dec.Decode(&doc); err != nil {
		return fmt.Errorf("not a JSON object of prices: %w", err)
	}
	shape, err := shapeOf(doc)
	if err != nil {
		return err
	}
	if s.Shape == "" {
		s.Shape = shape
	} else if s.Shape != shape {
		return fmt.Errorf("sources.json says %s, the file is in %s's shape", s.Shape, shape)
	}
	t.Sources = append(t.Sources, s)
	n := 0
	add := func(key string, m *Model) {
		m.Key, m.Source, m.Threshold = key, s, Threshold
		t.add(m)
		n++
	}
	switch shape {
	case "litellm":
		err = readLiteLLM(doc, add)
	default:
		err = readModelsDev(doc, add)
	}
	if err != nil {
		return err
	}
	if n == 0 {
		return fmt.Errorf("no model in it has a price")
	}
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
	return "", fmt.Errorf("neither LiteLLM's shape (model → input_cost_per_token, …) nor models.dev's (provider → models → cost)")
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
	for _, pk := range sortedKeys(providers) {
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
			if c == nil || (c.Input == "" && c.Output == "") {
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

func mustMarshal(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
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

// Decimal writes an exact rational whose denominator divides a power of
// ten (a sum of decimal prices times counts) as a plain decimal: no
// exponent, no trailing zeros ("0.0105", "12").
func Decimal(r *big.Rat) string {
	den := new(big.Int).Set(r.Denom())
	digits := 0
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
	s := r.FloatString(digits) // exact: 10^digits is a multiple of the denominator
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	if s == "-0" {
		s = "0"
	}
	return s
}
