package prices

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// genai-prices (Pydantic's catalogue, github.com/pydantic/genai-prices)
// is a list of providers, each with a model_match rule and models; a
// model has a match rule and prices per million tokens, a price being a
// number or tiered ({base, tiers: [{start, price}]}), and the prices
// either one list or several with constraints (a start_date, a daily
// time window). evtool reads it as the package's own code
// (dist/index.cjs, calcPrice) prices a request:
//
//   - the provider is the first whose model_match matches the name, and
//     the model the first of its models whose match matches, else of its
//     fallback_model_providers'; none: the same with a -YYYYMMDD date in
//     the name written -YYYY-MM-DD. Names are matched in lower case;
//   - a tier applies when the request's input tokens (all of them:
//     uncached, cache read and cache write) are more than its start, and
//     then to every token of the kind it prices, in the whole request;
//   - a kind the model gives no price for is priced as its parent kind:
//     cache read and cache write as input, a 1-hour cache write as a
//     cache write, reasoning as output;
//   - of the constrained lists, the last whose constraint holds at the
//     request's time, else the first.
//
// Prices of units evtool does not count (audio, image and video tokens,
// web searches, requests, pages) are not read: evtool's tokens are text.

// provider is one genai-prices provider: its models in order.
type provider struct {
	id       string
	match    *rule // model_match; nil: never chosen by the model's name
	fallback []string
	models   []*Model
}

// isGenAI tells genai-prices's shape: a list of providers, or one
// provider object, whose models are a list.
func isGenAI(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '[' {
		return true
	}
	var probe struct {
		Models json.RawMessage `json:"models"`
	}
	if json.Unmarshal(raw, &probe) != nil {
		return false
	}
	m := bytes.TrimSpace(probe.Models)
	return len(m) > 0 && m[0] == '['
}

type genaiProvider struct {
	ID         string          `json:"id"`
	ModelMatch json.RawMessage `json:"model_match"`
	Fallback   []string        `json:"fallback_model_providers"`
	Models     []struct {
		ID     string          `json:"id"`
		Match  json.RawMessage `json:"match"`
		Prices json.RawMessage `json:"prices"`
	} `json:"models"`
}

func readGenAI(raw json.RawMessage, s *Source) ([]*provider, error) {
	var list []genaiProvider
	if bytes.TrimSpace(raw)[0] == '[' {
		if err := unmarshalNumbers(raw, &list); err != nil {
			return nil, fmt.Errorf("not a list of genai-prices providers: %w", err)
		}
	} else {
		var one genaiProvider
		if err := unmarshalNumbers(raw, &one); err != nil {
			return nil, fmt.Errorf("not a genai-prices provider: %w", err)
		}
		list = []genaiProvider{one}
	}
	var out []*provider
	for _, gp := range list {
		p := &provider{id: gp.ID, fallback: gp.Fallback}
		if len(gp.ModelMatch) > 0 && string(gp.ModelMatch) != "null" {
			r, err := parseRule(gp.ModelMatch)
			if err != nil {
				return nil, fmt.Errorf("provider %s: model_match: %w", gp.ID, err)
			}
			p.match = r
		}
		for _, gm := range gp.Models {
			r, err := parseRule(gm.Match)
			if err != nil {
				return nil, fmt.Errorf("%s/%s: match: %w", gp.ID, gm.ID, err)
			}
			m := &Model{Key: gm.ID, Source: s, rule: r}
			if err := readGenAIPrices(gm.Prices, m); err != nil {
				return nil, fmt.Errorf("%s/%s: %w", gp.ID, gm.ID, err)
			}
			p.models = append(p.models, m)
		}
		out = append(out, p)
	}
	return out, nil
}

// readGenAIPrices reads a model's prices: one list, or lists with
// constraints.
func readGenAIPrices(raw json.RawMessage, m *Model) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '[' {
		var lists []struct {
			Constraint map[string]string `json:"constraint"`
			Prices     json.RawMessage   `json:"prices"`
		}
		if err := unmarshalNumbers(raw, &lists); err != nil {
			return fmt.Errorf("prices: %w", err)
		}
		if len(lists) == 0 {
			return fmt.Errorf("prices: an empty list")
		}
		for i, l := range lists {
			list, priced, err := readGenAIList(l.Prices)
			if err != nil {
				return err
			}
			if i == 0 {
				m.List, m.unpriced = list, !priced
				if l.Constraint == nil {
					continue
				}
			}
			d, err := readConstraint(l.Constraint)
			if err != nil {
				return err
			}
			d.List = list
			m.Dated = append(m.Dated, d)
		}
		return nil
	}
	list, priced, err := readGenAIList(raw)
	m.List, m.unpriced = list, !priced
	return err
}

// readConstraint reads a start_date ("2027-01-01") or a daily window
// ("00:30:00Z" to "16:30:00Z"), with or without its type, as
// genai-prices accepts them.
func readConstraint(c map[string]string) (Dated, error) {
	if c == nil {
		return Dated{Always: true}, nil
	}
	if d, ok := c["start_date"]; ok && (c["type"] == "" || c["type"] == "start_date") {
		t, err := time.Parse(time.DateOnly, d)
		if err != nil {
			return Dated{}, fmt.Errorf("constraint start_date %q: %w", d, err)
		}
		return Dated{From: t}, nil
	}
	if a, ok := c["start_time"]; ok && (c["type"] == "" || c["type"] == "time_of_date") {
		start, err := timeOfDay(a)
		if err != nil {
			return Dated{}, err
		}
		end, err := timeOfDay(c["end_time"])
		if err != nil {
			return Dated{}, err
		}
		return Dated{Daily: true, Start: start, End: end}, nil
	}
	return Dated{}, fmt.Errorf("a price constraint neither start_date nor time_of_date: %v", c)
}

var timeOfDayRe = regexp.MustCompile(`^(\d\d):(\d\d):(\d\d)(\.\d+)?(Z|([+-])(\d\d):(\d\d))$`)

// timeOfDay is a time of day with its offset as the time after midnight
// in UTC.
func timeOfDay(s string) (time.Duration, error) {
	m := timeOfDayRe.FindStringSubmatch(s)
	if m == nil {
		return 0, fmt.Errorf("time of day %q: not HH:MM:SS with Z or an offset", s)
	}
	h, _ := strconv.Atoi(m[1])
	mi, _ := strconv.Atoi(m[2])
	se, _ := strconv.Atoi(m[3])
	oh, _ := strconv.Atoi(m[7])
	om, _ := strconv.Atoi(m[8])
	if h > 23 || mi > 59 || se > 59 || oh > 23 || om > 59 {
		return 0, fmt.Errorf("time of day %q: out of range", s)
	}
	d := time.Duration(h)*time.Hour + time.Duration(mi)*time.Minute + time.Duration(se)*time.Second
	if m[4] != "" {
		f, _ := time.ParseDuration(m[4][1:] + "ns")
		for range 9 - (len(m[4]) - 1) {
			f *= 10
		}
		d += f
	}
	off := time.Duration(oh)*time.Hour + time.Duration(om)*time.Minute
	if m[6] == "-" {
		off = -off
	}
	day := 24 * time.Hour
	return ((d-off)%day + day) % day, nil
}

// genaiKinds are the price keys evtool reads, by the kind they price:
// input (uncached), cache read, cache write (of any lifetime), a
// 5-minute and a 1-hour cache write, output, reasoning.
var genaiKeys = []string{"input_mtok", "cache_read_mtok", "cache_write_mtok", "cache_write_5m_mtok", "cache_write_1h_mtok", "output_mtok", "output_reasoning_mtok"}

// readGenAIList reads one list of prices per million tokens, with its
// tier; priced is false when it gives neither an input nor an output
// price (a model genai-prices lists as free, or priced by units evtool
// does not count).
func readGenAIList(raw json.RawMessage) (List, bool, error) {
	var doc map[string]json.RawMessage
	if err := unmarshalNumbers(raw, &doc); err != nil {
		return List{}, false, fmt.Errorf("prices: %w", err)
	}
	type tiered struct{ base, above *big.Rat }
	got := map[string]tiered{}
	var start *uint64
	for _, k := range genaiKeys {
		v, ok := doc[k]
		if !ok || string(v) == "null" {
			continue
		}
		var n json.Number
		if unmarshalNumbers(v, &n) == nil {
			p, err := parsePrice(n, 1_000_000)
			if err != nil {
				return List{}, false, fmt.Errorf("%s: %w", k, err)
			}
			got[k] = tiered{base: p}
			continue
		}
		var tp struct {
			Base  json.Number `json:"base"`
			Tiers []struct {
				Start json.Number `json:"start"`
				Price json.Number `json:"price"`
			} `json:"tiers"`
		}
		if err := unmarshalNumbers(v, &tp); err != nil || tp.Base == "" {
			return List{}, false, fmt.Errorf("%s: neither a price nor {base, tiers}", k)
		}
		base, err := parsePrice(tp.Base, 1_000_000)
		if err != nil {
			return List{}, false, fmt.Errorf("%s: %w", k, err)
		}
		t := tiered{base: base}
		switch len(tp.Tiers) {
		case 0:
		case 1:
			s, err := strconv.ParseUint(string(tp.Tiers[0].Start), 10, 64)
			if err != nil {
				return List{}, false, fmt.Errorf("%s: tier start %s: not a count of tokens", k, tp.Tiers[0].Start)
			}
			if start != nil && *start != s {
				return List{}, false, fmt.Errorf("%s: a tier from %d tokens, another price's from %d: one tier start per model is supported", k, s, *start)
			}
			start = &s
			if t.above, err = parsePrice(tp.Tiers[0].Price, 1_000_000); err != nil {
				return List{}, false, fmt.Errorf("%s: %w", k, err)
			}
		default:
			return List{}, false, fmt.Errorf("%s: %d tiers: one tier per price is supported", k, len(tp.Tiers))
		}
		got[k] = t
	}
	// A kind without a price is priced as its parent, tier and all.
	kind := func(k string, parents ...string) tiered {
		for _, p := range append([]string{k}, parents...) {
			if t, ok := got[p]; ok {
				return t
			}
		}
		return tiered{}
	}
	in := kind("input_mtok")
	read := kind("cache_read_mtok", "input_mtok")
	w5 := kind("cache_write_5m_mtok", "cache_write_mtok", "input_mtok")
	w1 := kind("cache_write_1h_mtok", "cache_write_mtok", "input_mtok")
	out := kind("output_mtok")
	reason := kind("output_reasoning_mtok", "output_mtok")
	l := List{
		Base:       Rates{Input: in.base, Output: out.base, CacheRead: read.base, CacheWrite: w5.base, CacheWrite1h: w1.base, Reasoning: reason.base},
		Above:      Rates{Input: in.above, Output: out.above, CacheRead: read.above, CacheWrite: w5.above, CacheWrite1h: w1.above, Reasoning: reason.above},
		Threshold:  Threshold,
		PerRequest: true,
	}
	if start != nil {
		l.Threshold = *start
	}
	return l, in.base != nil || out.base != nil, nil
}

// rule is a genai-prices match rule.
type rule struct {
	op   string // equals, starts_with, ends_with, contains, regex, or, and
	arg  string // lower case, but a regex's
	re   *regexp.Regexp
	not  *regexp.Regexp // a regex's leading negative lookahead, ^(?!…)
	subs []*rule
}

func parseRule(raw json.RawMessage) (*rule, error) {
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(raw, &doc); err != nil || len(doc) != 1 {
		return nil, fmt.Errorf("not a match rule (one of equals, starts_with, ends_with, contains, regex, or, and): %s", raw)
	}
	for op, v := range doc {
		r := &rule{op: op}
		switch op {
		case "or", "and":
			var subs []json.RawMessage
			if err := json.Unmarshal(v, &subs); err != nil {
				return nil, fmt.Errorf("%s: not a list of rules", op)
			}
			for _, sub := range subs {
				sr, err := parseRule(sub)
				if err != nil {
					return nil, err
				}
				r.subs = append(r.subs, sr)
			}
		case "equals", "starts_with", "ends_with", "contains", "regex":
			if err := json.Unmarshal(v, &r.arg); err != nil {
				return nil, fmt.Errorf("%s: not a string", op)
			}
			if op != "regex" {
				r.arg = strings.ToLower(r.arg)
				break
			}
			var err error
			if r.re, r.not, err = compileJSRegex(r.arg); err != nil {
				return nil, err
			}
		default:
			return nil, fmt.Errorf("match rule %q: unknown", op)
		}
		return r, nil
	}
	panic("unreachable")
}

// compileJSRegex compiles a genai-prices regex (JavaScript's syntax) for
// Go's regexp, which has no lookaround: a leading negative lookahead
// ^(?!X)Y, the one form the catalogue uses, is read as "not ^X, and
// ^Y". Any other construct Go lacks is an error.
func compileJSRegex(s string) (re, not *regexp.Regexp, err error) {
	body := s
	if strings.HasPrefix(s, "^(?!") {
		depth, end := 0, -1
	scan:
		for i := 1; i < len(s); i++ {
			switch s[i] {
			case '\\':
				i++
			case '(':
				depth++
			case ')':
				if depth--; depth == 0 {
					end = i
					break scan
				}
			}
		}
		if end < 0 {
			return nil, nil, fmt.Errorf("regex %q: unbalanced", s)
		}
		if not, err = regexp.Compile("^(?:" + s[4:end] + ")"); err != nil {
			return nil, nil, fmt.Errorf("regex %q: %w", s, err)
		}
		body = "^" + s[end+1:]
	}
	if re, err = regexp.Compile(body); err != nil {
		return nil, nil, fmt.Errorf("regex %q: not in the syntax evtool reads (Go's, with a leading (?!…)): %w", s, err)
	}
	return re, not, nil
}

// matches tells whether the rule matches name, in lower case.
func (r *rule) matches(name string) bool {
	switch r.op {
	case "or":
		for _, s := range r.subs {
			if s.matches(name) {
				return true
			}
		}
		return false
	case "and":
		for _, s := range r.subs {
			if !s.matches(name) {
				return false
			}
		}
		return true
	case "equals":
		return name == r.arg
	case "starts_with":
		return strings.HasPrefix(name, r.arg)
	case "ends_with":
		return strings.HasSuffix(name, r.arg)
	case "contains":
		return strings.Contains(name, r.arg)
	case "regex":
		return (r.not == nil || !r.not.MatchString(name)) && r.re.MatchString(name)
	}
	return false
}

// find matches a name, in lower case, as genai-prices's calcPrice does:
// the provider by its model_match, the model by its match, else among
// the fallback providers' models; then the same with a date written
// with dashes. A model the rules give but with no token price is not
// found.
func (c *catalogue) find(name string) (*Model, bool) {
	var p *provider
	for _, q := range c.providers {
		if q.match != nil && q.match.matches(name) {
			p = q
			break
		}
	}
	if p == nil {
		return nil, false
	}
	m := c.inProvider(p, name, true)
	if m == nil {
		if d := dashDates(name); d != name {
			m = c.inProvider(p, d, true)
		}
	}
	if m == nil || m.unpriced {
		return nil, false
	}
	return m, true
}

func (c *catalogue) inProvider(p *provider, name string, fallbacks bool) *Model {
	for _, m := range p.models {
		if m.rule.matches(name) {
			return m
		}
	}
	if !fallbacks {
		return nil
	}
	for _, id := range p.fallback {
		for _, q := range c.providers {
			if q.id == id {
				if m := c.inProvider(q, name, false); m != nil {
					return m
				}
				break
			}
		}
	}
	return nil
}

// compactDate is a date -YYYYMMDD followed by -, : or the end.
var compactDate = regexp.MustCompile(`-(20\d\d)(0[1-9]|1[0-2])(0[1-9]|[12]\d|3[01])`)

// dashDates writes each valid -YYYYMMDD date in name as -YYYY-MM-DD.
func dashDates(name string) string {
	var b strings.Builder
	last := 0
	for _, ix := range compactDate.FindAllStringSubmatchIndex(name, -1) {
		end := ix[1]
		if end < len(name) && name[end] != '-' && name[end] != ':' {
			continue
		}
		y, mo, d := name[ix[2]:ix[3]], name[ix[4]:ix[5]], name[ix[6]:ix[7]]
		if _, err := time.Parse("20060102", y+mo+d); err != nil {
			continue // 20250231
		}
		b.WriteString(name[last:ix[0]])
		b.WriteString("-" + y + "-" + mo + "-" + d)
		last = end
	}
	if last == 0 {
		return name
	}
	b.WriteString(name[last:])
	return b.String()
}
