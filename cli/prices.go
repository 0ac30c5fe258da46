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
	"time"

	"github.com/evtool/evtool/prices"
	"github.com/urfave/cli/v3"
)

const pricesLong = `Prints where the price table evtool prices usage with comes from: each
catalogue's file, its npm package, version and publication day, and its
licence (the snapshot is embedded in evtool, which never fetches prices),
in the order they are asked (a fallback catalogue only when no other has
the model). With MODEL operands, prints for each the catalogue entry it
is priced as, how the name was matched (exact; normalized: less a
provider prefix or a date suffix; rule: by genai-prices's match rules;
substring, as ccusage matches), and its prices in US dollars per million
tokens, base and past the catalogue's tier (200k tokens but where it says
otherwise): input, output, cache read, cache write (5 minutes), cache
write (1 hour: the catalogue's, else twice the input price; genai-prices:
else the cache write price) and thoughts (the catalogue's reasoning
price, else the output price). A LiteLLM or models.dev tier prices the
tokens of a kind past it in one request; a genai-prices tier every token
of a request whose prompt (input, cache read and cache write) is past
it. Prices that change on a day or at a time of day are listed after the
ones a request of unknown time is priced at: those in force the day the
catalogue was published. --prices FILE puts a price file (LiteLLM's
model_prices_and_context_window.json, models.dev's api.json or
genai-prices's data.json shape) before the embedded table, as evtool
usage takes it.

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
			&cli.StringSliceFlag{Name: "prices", Destination: &files, Usage: "prices from `FILE` (LiteLLM's, models.dev's or genai-prices's JSON) before the embedded table's (repeatable)"},
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
// rule derives is "0".
type modelPrices struct {
	Model    string `json:"model"`
	Found    bool   `json:"found"`
	PricedAs string `json:"priced_as,omitempty"`
	Match    string `json:"match,omitempty"`
	Source   string `json:"source,omitempty"`
	Per      string `json:"per,omitempty"`
	listPrices
	// Dated are the lists in force from a day on, or at a time of day.
	Dated []datedPrices `json:"dated,omitempty"`
}

// listPrices is one list of a model's prices.
type listPrices struct {
	// Threshold is where Above begins, in tokens; Tier says of what:
	// "kind" (the tokens of one kind in a request) or "prompt" (the
	// request's input, cache read and cache write: then every token of
	// it is at Above).
	Threshold uint64            `json:"threshold,omitempty"`
	Tier      string            `json:"tier,omitempty"`
	Base      map[string]string `json:"base,omitempty"`
	Above     map[string]string `json:"above,omitempty"`
}

type datedPrices struct {
	// From is a day (UTC); Daily a window of each day, in UTC; neither:
	// always, in place of the lists before it.
	From  string `json:"from,omitempty"`
	Daily string `json:"daily,omitempty"`
	listPrices
}

// priceKinds are the kinds of token priced, in the order printed.
var priceKinds = []string{"input", "output", "cache_read", "cache_write_5m", "cache_write_1h", "thoughts"}

// describe lists a model's prices per million tokens, with the rules of
// prices.Model.Cost applied: what a token of each kind costs there.
func describe(name string, m prices.Match) modelPrices {
	out := modelPrices{Model: name, Found: true, PricedAs: m.Model.Key, Match: m.How, Source: m.Model.Source.File, Per: "1000000 tokens"}
	out.listPrices = describeList(m.Model.At(time.Time{}))
	for _, d := range m.Model.Dated {
		dp := datedPrices{listPrices: describeList(&d.List)}
		switch {
		case !d.From.IsZero():
			dp.From = d.From.Format(time.DateOnly)
		case d.Daily:
			dp.Daily = clock(d.Start) + "-" + clock(d.End)
		}
		out.Dated = append(out.Dated, dp)
	}
	return out
}

func describeList(l *prices.List) listPrices {
	million := new(big.Rat).SetInt64(1_000_000)
	per := func(k prices.Kind, above bool) string {
		p := l.Price(k, above)
		if p == nil {
			return "0"
		}
		return prices.Decimal(new(big.Rat).Mul(p, million))
	}
	out := listPrices{Threshold: l.Threshold, Tier: "kind", Base: map[string]string{}, Above: map[string]string{}}
	if l.PerRequest {
		out.Tier = "prompt"
	}
	for i, k := range priceKinds {
		out.Base[k] = per(prices.Kind(i), false)
		out.Above[k] = per(prices.Kind(i), true)
	}
	return out
}

// clock writes a time after midnight as HH:MM:SS.
func clock(d time.Duration) string {
	return time.Time{}.Add(d).Format(time.TimeOnly)
}

// tokensShort writes a count of tokens as 200k where it can.
func tokensShort(n uint64) string {
	if n >= 1000 && n%1000 == 0 {
		return fmt.Sprintf("%dk", n/1000)
	}
	return fmt.Sprint(n)
}

func writePricesText(w io.Writer, t *prices.Table, models []modelPrices) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "price table: %d models from %d catalogues (evtool never fetches prices)\n", t.Len(), len(t.Sources))
	for _, s := range t.Sources {
		fallback := ""
		if s.Fallback {
			fallback = ", a fallback"
		}
		if s.Embedded {
			fmt.Fprintf(bw, "  %s  %s: npm %s@%s, published %s, %s licence (embedded%s)\n", s.File, s.Catalogue, s.Package, s.Version, s.Published, s.Licence, fallback)
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
		writeList(bw, m.listPrices)
		for _, d := range m.Dated {
			switch {
			case d.From != "":
				fmt.Fprintf(bw, "from %s (UTC):\n", d.From)
			case d.Daily != "":
				fmt.Fprintf(bw, "each day from %s UTC:\n", strings.Replace(d.Daily, "-", " to ", 1))
			default:
				fmt.Fprintf(bw, "in place of the above:\n")
			}
			writeList(bw, d.listPrices)
		}
	}
	return bw.Flush()
}

func writeList(bw *bufio.Writer, l listPrices) {
	fmt.Fprintf(bw, "  %-15s %12s %12s\n", "", "base", "past "+tokensShort(l.Threshold))
	for _, k := range priceKinds {
		fmt.Fprintf(bw, "  %-15s %12s %12s\n", strings.ReplaceAll(k, "_", " "), l.Base[k], l.Above[k])
	}
	tiered := false
	for _, k := range priceKinds {
		tiered = tiered || l.Base[k] != l.Above[k]
	}
	if tiered && l.Tier == "prompt" {
		fmt.Fprintf(bw, "  (past %s: all the tokens of a request whose input, cache read and cache write tokens together pass %[1]s)\n", tokensShort(l.Threshold))
	}
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
