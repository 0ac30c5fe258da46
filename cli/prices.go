package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"slices"
	"strings"

	"github.com/evtool/evtool/prices"
	"github.com/urfave/cli/v3"
)

const pricesLong = `Prints where the price table evtool prices usage with comes from: each
catalogue's file, its npm package, version and publication day, and its
licence (the snapshot is embedded in evtool, which never fetches prices).
With MODEL operands, prints for each the catalogue entry it is priced as,
how the name was matched (exact; normalized: less a provider prefix or a
date suffix; substring, as ccusage matches), and its prices in US dollars
per million tokens, base and past 200k tokens: input, output, cache read,
cache write (5 minutes), cache write (1 hour: the catalogue's, else twice
the input price) and thoughts (the catalogue's reasoning price, else the
output price). --prices FILE puts a price file (LiteLLM's
model_prices_and_context_window.json or models.dev's api.json shape)
before the embedded table, as evtool stats --by takes it.

Exit status: 0; 1 when a MODEL named has no price; 2 for usage errors and
a price file that cannot be read.`

func pricesCmd() *cli.Command {
	var (
		files  []string
		format string
	)
	return &cli.Command{
		Name:        "prices",
		Usage:       "print the price table's source and date, and the prices used for a model",
		ArgsUsage:   "[MODEL...]",
		Description: pricesLong,
		Flags: []cli.Flag{
			&cli.StringSliceFlag{Name: "prices", Destination: &files, Usage: "prices from `FILE` (LiteLLM's or models.dev's JSON) before the embedded table's (repeatable)"},
			&cli.StringFlag{Name: "format", Aliases: []string{"f"}, Value: "text", Destination: &format, Usage: "the output's `FORMAT`: text or json"},
		},
		Metadata: completions(map[string][]string{"format": {"text", "json"}}),
		Action: action(func(_ context.Context, cmd *cli.Command, args []string) error {
			if format != "text" && format != "json" {
				return usageErr("--format %q: want text or json%s", format, didYouMean(format, []string{"text", "json"}))
			}
			t, err := priceTable(files)
			if err != nil {
				return err
			}
			var models []modelPrices
			missing := 0
			for _, name := range args {
				m, ok := t.Lookup(name)
				if !ok {
					missing++
					fmt.Fprintf(cmd.Root().ErrWriter, "evtool: no price for model %q in the price table (--prices FILE adds prices)\n", name)
					models = append(models, modelPrices{Model: name})
					continue
				}
				models = append(models, describe(name, m))
			}
			w := cmd.Root().Writer
			if format == "json" {
				err = writePricesJSON(w, t, models)
			} else {
				err = writePricesText(w, t, models)
			}
			if err != nil {
				return err
			}
			if missing > 0 {
				return problem("")
			}
			return nil
		}),
	}
}

// modelPrices is what prices prints of one model: US dollars per million
// tokens, as exact decimals; a price the catalogue does not give and no
// rule derives is absent.
type modelPrices struct {
	Model     string            `json:"model"`
	Found     bool              `json:"found"`
	PricedAs  string            `json:"priced_as,omitempty"`
	Match     string            `json:"match,omitempty"`
	Source    string            `json:"source,omitempty"`
	Per       string            `json:"per,omitempty"`
	Base      map[string]string `json:"base,omitempty"`
	Above200k map[string]string `json:"above_200k,omitempty"`
}

// priceKinds are the kinds of token priced, in the order printed.
var priceKinds = []string{"input", "output", "cache_read", "cache_write_5m", "cache_write_1h", "thoughts"}

// describe lists a model's prices per million tokens, with the rules of
// prices.Model.Cost applied: what a token of each kind costs there.
func describe(name string, m prices.Match) modelPrices {
	out := modelPrices{Model: name, Found: true, PricedAs: m.Model.Key, Match: m.How, Source: m.Model.Source.File, Per: "1000000 tokens"}
	million := new(big.Rat).SetInt64(1_000_000)
	// per is what one token of a kind costs: at the start, or the one
	// past the 200k threshold (the cost of threshold+1 tokens less that
	// of threshold tokens), per million.
	per := func(t prices.Tokens, above bool) string {
		var c *big.Rat
		if above {
			at := scale(t, prices.Threshold)
			c = new(big.Rat).Sub(m.Model.Cost(scale(t, prices.Threshold+1)), m.Model.Cost(at))
		} else {
			c = m.Model.Cost(t)
		}
		return prices.Decimal(c.Mul(c, million))
	}
	unit := []prices.Tokens{{Input: 1}, {Output: 1}, {CacheRead: 1}, {CacheWrite5m: 1}, {CacheWrite1h: 1}, {Thoughts: 1}}
	out.Base, out.Above200k = map[string]string{}, map[string]string{}
	for i, k := range priceKinds {
		out.Base[k] = per(unit[i], false)
		out.Above200k[k] = per(unit[i], true)
	}
	return out
}

// scale is t with each count it states set to n.
func scale(t prices.Tokens, n uint64) prices.Tokens {
	f := func(v uint64) uint64 {
		if v > 0 {
			return n
		}
		return 0
	}
	return prices.Tokens{Input: f(t.Input), Output: f(t.Output), CacheRead: f(t.CacheRead), CacheWrite5m: f(t.CacheWrite5m), CacheWrite1h: f(t.CacheWrite1h), Thoughts: f(t.Thoughts)}
}

func writePricesText(w io.Writer, t *prices.Table, models []modelPrices) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "price table: %d models from %d catalogues (evtool never fetches prices)\n", t.Len(), len(t.Sources))
	for _, s := range t.Sources {
		if s.Embedded {
			fmt.Fprintf(bw, "  %s  %s: npm %s@%s, published %s, %s licence (embedded)\n", s.File, s.Catalogue, s.Package, s.Version, s.Published, s.Licence)
		} else {
			fmt.Fprintf(bw, "  %s  a %s price file (--prices)\n", s.File, s.Shape)
		}
	}
	for _, m := range models {
		bw.WriteString("\n")
		if !m.Found {
			fmt.Fprintf(bw, "%s: no price: its cost is shown as unknown\n", m.Model)
			continue
		}
		fmt.Fprintf(bw, "%s: priced as %s (%s match, from %s), US dollars per million tokens\n", m.Model, m.PricedAs, m.Match, m.Source)
		fmt.Fprintf(bw, "  %-15s %12s %12s\n", "", "base", "past 200k")
		for _, k := range priceKinds {
			fmt.Fprintf(bw, "  %-15s %12s %12s\n", strings.ReplaceAll(k, "_", " "), m.Base[k], m.Above200k[k])
		}
	}
	return bw.Flush()
}

func writePricesJSON(w io.Writer, t *prices.Table, models []modelPrices) error {
	if models == nil {
		models = []modelPrices{}
	}
	srcs := slices.Clone(t.Sources)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(struct {
		Models  int              `json:"models_in_table"`
		Sources []*prices.Source `json:"sources"`
		Prices  []modelPrices    `json:"prices"`
	}{t.Len(), srcs, models})
}
