package stats_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	_ "github.com/evtool/evtool/adapters/canonical"
	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/prices"
	"github.com/evtool/evtool/stats"
	"github.com/evtool/evtool/stream"
)

// canonical numbers the lines of a canonical stream: each line is the
// object's body after "seq" and "type".
func canonical(lines ...string) string {
	var b strings.Builder
	for i, l := range lines {
		typ, rest, _ := strings.Cut(l, " ")
		if rest != "" {
			rest = "," + rest
		}
		fmt.Fprintf(&b, `{"seq":%d,"type":%q%s}`+"\n", i, typ, rest)
	}
	return b.String()
}

func start(extra string) string {
	return `session_started "schema":1,"source":{"dialect":"canonical"},"session_id":"s1","workspace":"/w"` + extra
}

// report reads each stream into one report.
func report(t *testing.T, opts stats.ReportOptions, streams ...string) *stats.Report {
	t.Helper()
	d, err := dialect.Lookup("canonical")
	if err != nil {
		t.Fatal(err)
	}
	rp := stats.NewReport(opts)
	for i, s := range streams {
		if _, err := stats.Read(strings.NewReader(s), fmt.Sprintf("run%d.jsonl", i+1), stats.Options{Stream: stream.Options{Dialect: d}, Report: rp}); err != nil {
			t.Fatal(err)
		}
	}
	return rp
}

// rows renders a report's rows as "key|key: input=N output=N … cost=X source".
func rows(rp *stats.Report) []string {
	var out []string
	line := func(keys []string, r *stats.Row) string {
		var f []string
		for _, tk := range stats.Tokens() {
			if n, ok := r.Usage.Tokens[tk]; ok {
				f = append(f, fmt.Sprintf("%s=%d", tk, n))
			}
		}
		if r.Usage.CostUSD != "" {
			f = append(f, "cost="+r.Usage.CostUSD)
		}
		if r.CostSource != "" {
			f = append(f, r.CostSource)
		}
		if r.Calls > 0 {
			f = append(f, fmt.Sprintf("calls=%d failed=%d", r.Calls, r.Failed))
		}
		return strings.Join(keys, "|") + ": " + strings.Join(f, " ")
	}
	for _, r := range rp.Rows() {
		out = append(out, line(r.Keys, r))
	}
	return append(out, line([]string{"total"}, rp.Total()))
}

func check(t *testing.T, got []string, want ...string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n\t%s\nwant\n\t%s", strings.Join(got, "\n\t"), strings.Join(want, "\n\t"))
	}
}

// TestLevels spreads a run's usage over the finest events that carry it,
// keeping the sums the coarser events state.
func TestLevels(t *testing.T) {
	s := canonical(
		start(""),
		`turn_started "time":"2026-03-01T10:00:00.000000Z","turn_id":"t1"`,
		`round_finished "time":"2026-03-01T10:01:00.000000Z","turn_id":"t1","usage":{"input_tokens":10}`,
		`round_finished "time":"2026-03-01T10:02:00.000000Z","turn_id":"t1","usage":{"input_tokens":15}`,
		// 10 + 15 = 25 of the turn's 30: the turn's own remainder is 5.
		`turn_finished "time":"2026-03-01T10:03:00.000000Z","turn_id":"t1","status":"ok","usage":{"input_tokens":30,"cost_usd":0.3}`,
		`turn_started "time":"2026-03-02T10:00:00.000000Z","turn_id":"t2"`,
		`round_finished "time":"2026-03-02T10:01:00.000000Z","turn_id":"t2","usage":{"input_tokens":60}`,
		// The round's 60 is more than the turn's 50: the turn alone counts.
		`turn_finished "time":"2026-03-02T10:03:00.000000Z","turn_id":"t2","status":"ok","usage":{"input_tokens":50,"cost_usd":0.5}`,
		// Turns: 30 + 50 = 80 of 100, and 0.3 + 0.5 = 0.8 of 1: the
		// session's own remainder is 20 and 0.2, on its day.
		`session_finished "time":"2026-03-03T09:00:00.000000Z","status":"ok","usage":{"input_tokens":100,"cost_usd":1}`,
	)
	rp := report(t, stats.ReportOptions{By: []stats.Dim{stats.ByDay}}, s)
	check(t, rows(rp),
		"2026-03-01: input=30 cost=0.3 stated", // 10 + 15 + 5
		"2026-03-02: input=50 cost=0.5 stated",
		"2026-03-03: input=20 cost=0.2 stated",
		"total: input=100 cost=1 stated") // the per-run figures
}

// TestCappedSessionCount: a session count capped at 2^64-1 (a sum the
// producer stopped there) says only "at least": the rounds' own counts
// stand, each at its model and price, and the sum says it is capped (a
// hostile sweep: the capped figure took every round's place, at the
// session's last model, priced as one request).
func TestCappedSessionCount(t *testing.T) {
	table, _ := prices.Default()
	const max = "18446744073709551615"
	s := canonical(
		start(`,"model":"claude-sonnet-4-20250514"`),
		`round_finished "time":"2026-03-01T10:00:00.000000Z","usage":{"input_tokens":`+max+`}`,
		`model_configured "model":"no-such-model"`,
		`round_finished "time":"2026-03-01T10:01:00.000000Z","usage":{"input_tokens":100}`,
		`session_finished "time":"2026-03-01T10:02:00.000000Z","status":"ok","usage":{"input_tokens":`+max+`}`,
	)
	rp := report(t, stats.ReportOptions{By: []stats.Dim{stats.ByModel}, Prices: table}, s)
	// 18446744073709551615 at sonnet 4's $3/M, $6/M past 200k tokens (as
	// ccusage tiers it, TestPricing): 200000 × 0.000003 +
	// 18446744073709351615 × 0.000006 = 0.6 + 110680464442256.10969.
	check(t, rows(rp),
		"claude-sonnet-4-20250514: input="+max+" cost=110680464442256.70969 priced",
		"no-such-model: input=100 unknown",
		"total: input="+max+" unknown")
	if got := rp.Total().Usage.Saturated; len(got) != 1 || got[0] != stats.Input {
		t.Errorf("the total's capped counts: %v, want input", got)
	}
	// A table says so too, under it.
	for _, format := range []string{"text", "markdown"} {
		var b strings.Builder
		if err := stats.WriteReport(&b, format, rp); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), "the input tokens' sum exceeds 18446744073709551615 (2^64-1), where it stops: in the total") {
			t.Errorf("%s: no note of the capped sum:\n%s", format, b.String())
		}
	}
}

// TestTimeAndModel: an event without a time has the one before it; the
// events before the first time have that first time; the model is the
// one in force for the event's agent.
func TestTimeAndModel(t *testing.T) {
	s := canonical(
		start(`,"model":"m-main"`),
		`usage "input_tokens":1`, // before any time: the first time, 2026-03-01
		`turn_started "time":"2026-03-01T23:59:00.000000Z","turn_id":"t1"`,
		`usage "turn_id":"t1","input_tokens":2`, // the time before: 2026-03-01
		`model_configured "time":"2026-03-02T00:10:00.000000Z","model":"m-two"`,
		`usage "turn_id":"t1","input_tokens":4`, // 2026-03-02, m-two
		`model_configured "agent_id":"sub","model":"m-sub"`,
		`usage "agent_id":"sub","input_tokens":8`,    // the subagent's model
		`usage "agent_id":"other","input_tokens":16`, // none of its own: the main agent's
	)
	rp := report(t, stats.ReportOptions{By: []stats.Dim{stats.ByDay, stats.ByModel}}, s)
	check(t, rows(rp),
		"2026-03-01|m-main: input=3 unknown", // 1 + 2
		"2026-03-02|m-sub: input=8 unknown",  // the subagent's
		"2026-03-02|m-two: input=20 unknown", // 4 + 16
		"total: input=31 unknown")
}

// TestTimezones puts one event on the day, week and month of each zone.
func TestTimezones(t *testing.T) {
	// 2026-03-01T23:30Z is a Sunday: 2026-03-01 23:30 in UTC, 2026-03-02
	// 08:30 (a Monday) in Tokyo (UTC+9), 2026-03-01 18:30 in New York
	// (UTC-5 in March before the 8th).
	s := canonical(start(""), `usage "time":"2026-03-01T23:30:00.000000Z","input_tokens":7`)
	for _, c := range []struct {
		zone string
		sow  time.Weekday
		want string
	}{
		{"UTC", time.Sunday, "2026-03-01|2026-03-01|2026-03"},
		{"UTC", time.Monday, "2026-03-01|2026-02-23|2026-03"}, // the Monday before
		{"Asia/Tokyo", time.Sunday, "2026-03-02|2026-03-01|2026-03"},
		{"Asia/Tokyo", time.Monday, "2026-03-02|2026-03-02|2026-03"}, // a Monday itself
		{"America/New_York", time.Sunday, "2026-03-01|2026-03-01|2026-03"},
	} {
		loc, err := time.LoadLocation(c.zone)
		if err != nil {
			t.Fatal(err)
		}
		rp := report(t, stats.ReportOptions{By: []stats.Dim{stats.ByDay, stats.ByWeek, stats.ByMonth}, Location: loc, StartOfWeek: c.sow}, s)
		check(t, rows(rp), c.want+": input=7 unknown", "total: input=7 unknown")
	}
	// --since and --until: only the range; a run's other events outside.
	two := canonical(start(""), `usage "time":"2026-03-01T23:30:00.000000Z","input_tokens":7`, `usage "time":"2026-03-03T00:30:00.000000Z","input_tokens":9`)
	tokyo, _ := time.LoadLocation("Asia/Tokyo")
	since := time.Date(2026, 3, 2, 0, 0, 0, 0, tokyo) // 2026-03-01T15:00Z
	until := time.Date(2026, 3, 3, 0, 0, 0, 0, tokyo) // 2026-03-02T15:00Z: the 2nd event is after
	rp := report(t, stats.ReportOptions{By: []stats.Dim{stats.ByDay}, Location: tokyo, Since: since, Until: until}, two)
	check(t, rows(rp), "2026-03-02: input=7 unknown", "total: input=7 unknown")
	if rp.Outside != 1 {
		t.Errorf("outside: %d, want 1", rp.Outside)
	}
}

// TestBlocks makes 5-hour blocks as ccusage does.
func TestBlocks(t *testing.T) {
	at := func(hm string, n int) string {
		return fmt.Sprintf(`usage "time":"2026-03-01T%s:00.000000Z","input_tokens":%d`, hm, n)
	}
	s := canonical(start(""),
		at("10:15", 1),  // a block from 10:00 (the hour floored) to 15:00
		at("14:59", 2),  // 4h59m after its start
		at("15:00", 4),  // 5h after: ccusage starts a new block only past 5h
		at("15:01", 8),  // 5h01m: a new block from 15:00
		at("20:02", 16), // 5h02m after 15:00: a new block from 20:00
	)
	rp := report(t, stats.ReportOptions{By: []stats.Dim{stats.ByBlock}}, s,
		// A second run, 12h later: a gap of more than 5h, a new block.
		canonical(start(""), `usage "time":"2026-03-02T08:30:00.000000Z","input_tokens":32`))
	check(t, rows(rp),
		"2026-03-01T10:00Z: input=7 unknown", // 1 + 2 + 4
		"2026-03-01T15:00Z: input=8 unknown",
		"2026-03-01T20:00Z: input=16 unknown",
		"2026-03-02T08:00Z: input=32 unknown",
		"total: input=63 unknown")
}

// TestPricing prices tokens where the log states no cost: tiers, cache
// writes of 5 minutes and 1 hour (the split in the residue, as
// claude-transcript keeps it), thoughts; an unknown model once.
func TestPricing(t *testing.T) {
	table, err := prices.Default()
	if err != nil {
		t.Fatal(err)
	}
	var unpriced []string
	opts := stats.ReportOptions{By: []stats.Dim{stats.ByModel}, Prices: table, Unpriced: func(m string) { unpriced = append(unpriced, m) }}
	s := canonical(
		start(`,"model":"claude-sonnet-4-20250514"`),
		`round_finished "time":"2026-03-01T10:00:00.000000Z","usage":{"input_tokens":1000,"output_tokens":500,"cache_read_tokens":300000,"cache_creation_tokens":2000},"ext":{"x":{"usage":{"cache_creation":{"ephemeral_5m_input_tokens":1000,"ephemeral_1h_input_tokens":1000}}}}`,
		`model_configured "model":"no-such-model"`,
		`round_finished "time":"2026-03-01T10:01:00.000000Z","usage":{"input_tokens":1}`,
		`round_finished "time":"2026-03-01T10:02:00.000000Z","usage":{"input_tokens":2}`,
	)
	rp := report(t, opts, s)
	// claude-sonnet-4-20250514 in LiteLLM: input 3e-6, output 1.5e-5, cache
	// read 3e-7 (6e-7 past 200k), cache write 3.75e-6, no 1-hour price.
	//   input        1000 × 0.000003                           = 0.003
	//   output        500 × 0.000015                           = 0.0075
	//   cache read 200000 × 0.0000003 + 100000 × 0.0000006     = 0.06 + 0.06 = 0.12
	//   write 5m     1000 × 0.00000375                         = 0.00375
	//   write 1h     1000 × 2 × 0.000003                       = 0.006
	//   sum                                                    = 0.14025
	check(t, rows(rp),
		"claude-sonnet-4-20250514: input=1000 output=500 cache_read=300000 cache_write=2000 cost=0.14025 priced",
		"no-such-model: input=3 unknown",
		"total: input=1003 output=500 cache_read=300000 cache_write=2000 unknown")
	if strings.Join(unpriced, ",") != "no-such-model" {
		t.Errorf("unpriced reported %q, want no-such-model once", unpriced)
	}
	// Thoughts (Gemini's) at the output price: gemini-2.5-pro in
	// genai-prices (Google's current list: input 1.25/M, output 10/M,
	// cache read 0.125/M; a prompt of 3,000 tokens is under the 200k tier):
	// 1000 × 0.00000125 + 100 × 0.00001 + 2000 × 0.000000125 + 50 × 0.00001
	// = 0.00125 + 0.001 + 0.00025 + 0.0005 = 0.003
	g := canonical(start(`,"model":"gemini-2.5-pro"`),
		`usage "time":"2026-03-01T10:00:00.000000Z","input_tokens":1000,"output_tokens":100,"cache_read_tokens":2000,"thoughts_tokens":50`)
	check(t, rows(report(t, opts, g)),
		"gemini-2.5-pro: input=1000 output=100 cache_read=2000 thoughts=50 cost=0.003 priced",
		"total: input=1000 output=100 cache_read=2000 thoughts=50 cost=0.003 priced")
}

// TestCostSources: stated where the log states it (the turn's cost covers
// its rounds), priced where it does not, mixed in a row with both.
func TestCostSources(t *testing.T) {
	table, _ := prices.Default()
	s := canonical(
		start(`,"model":"claude-sonnet-4-20250514"`),
		`turn_started "time":"2026-03-01T10:00:00.000000Z","turn_id":"t1"`,
		`round_finished "turn_id":"t1","usage":{"input_tokens":100}`,
		`turn_finished "turn_id":"t1","status":"ok","usage":{"input_tokens":100,"cost_usd":0.5}`,
		`turn_started "time":"2026-03-02T10:00:00.000000Z","turn_id":"t2"`,
		// t2 states no cost: its round is priced, 1000 × 0.000003 = 0.003.
		`round_finished "turn_id":"t2","usage":{"input_tokens":1000}`,
		`turn_finished "turn_id":"t2","status":"ok","usage":{"input_tokens":1000}`,
	)
	rp := report(t, stats.ReportOptions{By: []stats.Dim{stats.ByDay}, Prices: table}, s)
	check(t, rows(rp),
		"2026-03-01: input=100 cost=0.5 stated",
		"2026-03-02: input=1000 cost=0.003 priced",
		"total: input=1100 cost=0.503 mixed")
}

// TestZeroUsageIsPriced: a response that used no tokens costs 0 at a
// model the table has (ccusage says $0 too), not an unknown cost; of a
// model the table lacks it is not priced, and not reported missing.
func TestZeroUsageIsPriced(t *testing.T) {
	table, _ := prices.Default()
	var unpriced []string
	opts := stats.ReportOptions{By: []stats.Dim{stats.ByModel}, Prices: table, Unpriced: func(m string) { unpriced = append(unpriced, m) }}
	s := canonical(
		start(`,"model":"claude-sonnet-4-20250514"`),
		`round_finished "time":"2026-03-01T10:00:00.000000Z","usage":{"input_tokens":0,"output_tokens":0}`,
		`model_configured "model":"no-such-model"`,
		`round_finished "time":"2026-03-01T10:01:00.000000Z","usage":{"input_tokens":0}`,
	)
	rp := report(t, opts, s)
	check(t, rows(rp),
		"claude-sonnet-4-20250514: input=0 output=0 cost=0 priced",
		"no-such-model: input=0",
		"total: input=0 output=0 cost=0 priced")
	if _, ok := rp.Priced()["claude-sonnet-4-20250514"]; !ok || len(rp.Priced()) != 1 {
		t.Errorf("the report lists %v as the prices it used, want claude-sonnet-4-20250514's alone", rp.Priced())
	}
	if len(unpriced) != 0 {
		t.Errorf("reported %q as missing from the table, want none", unpriced)
	}
}

// TestDuplicates: an API response two files repeat (a resumed session)
// counts once, and so does a tool call; the resumed file's session total
// loses the copy too.
func TestDuplicates(t *testing.T) {
	first := canonical(start(""),
		`tool_call "time":"2026-03-01T10:00:00.000000Z","call_id":"toolu_1","name":"Bash"`,
		`tool_finished "call_id":"toolu_1","status":"error"`,
		`round_finished "time":"2026-03-01T10:00:01.000000Z","usage":{"input_tokens":10,"output_tokens":5},"ext":{"claude-transcript":{"message_id":"msg_1"}}`,
		`session_finished "status":"ok","usage":{"input_tokens":10,"output_tokens":5}`)
	second := canonical(start(""),
		`tool_call "time":"2026-03-01T10:00:00.000000Z","call_id":"toolu_1","name":"Bash"`,
		`tool_finished "call_id":"toolu_1","status":"error"`,
		`round_finished "time":"2026-03-01T10:00:01.000000Z","usage":{"input_tokens":10,"output_tokens":5},"ext":{"claude-transcript":{"message_id":"msg_1"}}`,
		`tool_call "time":"2026-03-02T10:00:00.000000Z","call_id":"toolu_2","name":"Read"`,
		`tool_finished "call_id":"toolu_2","status":"success"`,
		`round_finished "time":"2026-03-02T10:00:01.000000Z","usage":{"input_tokens":20,"output_tokens":7},"ext":{"claude-transcript":{"message_id":"msg_2"}}`,
		// The resumed file's total includes the copy: 10 + 20, 5 + 7.
		`session_finished "status":"ok","usage":{"input_tokens":30,"output_tokens":12}`)
	rp := report(t, stats.ReportOptions{By: []stats.Dim{stats.ByDay, stats.ByTool}}, first, second)
	check(t, rows(rp),
		"2026-03-01|Bash: input=10 output=5 unknown calls=1 failed=1",
		"2026-03-02|Read: input=20 output=7 unknown calls=1 failed=0",
		"total: input=30 output=12 unknown calls=2 failed=1")
}

// TestSplitByModel: a session whose configured model is an alias ("auto")
// and whose session_finished states each model's counts (Gemini CLI's
// stats.models, kept in the residue) is reported by those models, which
// the price table knows; a map that does not add up to the session's
// figures is not used.
func TestSplitByModel(t *testing.T) {
	stream := func(flashIn string) string {
		return canonical(
			start(`,"model":"auto"`),
			`turn_started "time":"2026-10-01T09:00:00.100000Z","turn_id":"t1"`,
			`turn_finished "time":"2026-10-01T09:00:05.100000Z","turn_id":"t1","status":"ok","usage":{"input_tokens":4904,"output_tokens":60,"cache_read_tokens":4096,"total_tokens":9220}`,
			`session_finished "time":"2026-10-01T09:00:05.100000Z","status":"ok","usage":{"input_tokens":4904,"output_tokens":60,"cache_read_tokens":4096,"total_tokens":9220},`+
				`"ext":{"gemini":{"stats":{"models":{"gemini-2.5-flash":{"total_tokens":9120,"input_tokens":`+flashIn+`,"output_tokens":60,"cached":4096,"input":4804},"gemini-2.5-flash-lite":{"total_tokens":100,"input_tokens":100,"output_tokens":0,"cached":0,"input":100}}}}}`,
		)
	}
	p, err := prices.Default()
	if err != nil {
		t.Fatal(err)
	}
	rp := report(t, stats.ReportOptions{By: []stats.Dim{stats.ByModel}, Prices: p}, stream("8900"))
	check(t, rows(rp),
		// 4804 × 0.3 + 60 × 2.5 + 4096 × 0.03 per million
		"gemini-2.5-flash: input=4804 output=60 cache_read=4096 total=9120 cost=0.00171408 priced",
		"gemini-2.5-flash-lite: input=100 output=0 cache_read=0 total=100 cost=0.00001 priced",
		"total: input=4904 output=60 cache_read=4096 total=9220 cost=0.00172408 priced")
	// 8899 + 100 ≠ 9000: the map does not account for the session's input.
	rp = report(t, stats.ReportOptions{By: []stats.Dim{stats.ByModel}, Prices: p}, stream("8899"))
	check(t, rows(rp),
		"auto: input=4904 output=60 cache_read=4096 total=9220 unknown",
		"total: input=4904 output=60 cache_read=4096 total=9220 unknown")
}

// TestSessionsOwnFigures: two processes of one stream, each closing with
// its own session_finished and nothing finer, count on their own days.
func TestSessionsOwnFigures(t *testing.T) {
	s := canonical(
		start(`,"model":"m"`),
		`session_finished "time":"2026-03-01T10:00:00.000000Z","status":"ok","usage":{"input_tokens":10}`,
		`session_started "time":"2026-03-02T10:00:00.000000Z","schema":1,"source":{"dialect":"canonical"},"session_id":"s1","workspace":"/w"`,
		`session_finished "time":"2026-03-02T10:01:00.000000Z","status":"ok","usage":{"input_tokens":5}`,
	)
	rp := report(t, stats.ReportOptions{By: []stats.Dim{stats.ByDay}}, s)
	check(t, rows(rp),
		"2026-03-01: input=10 unknown",
		"2026-03-02: input=5 unknown",
		"total: input=15 unknown")
}

// TestBlocksPerAgentAndRange: each agent has blocks of its own (a Codex
// record at 10:00 opened a block that took Claude's 13:00 records), and a
// range leaves records out after the blocks are formed over all of them
// (with --since the blocks began at the first record in range: 02:00 and
// 07:00, blocks this history has not; hunt-usage2 #3, #4).
func TestBlocksPerAgentAndRange(t *testing.T) {
	run := func(agent string, recs ...string) string {
		lines := []string{start(`,"agent":{"name":"` + agent + `"}`)}
		for _, r := range recs {
			at, in, _ := strings.Cut(r, " ")
			lines = append(lines, `usage "time":"2026-06-0`+at+`:00.000000Z","input_tokens":`+in)
		}
		return canonical(lines...)
	}
	claude := run("claude-code", "1T22:10 1", "1T23:50 2", "2T02:30 4", "2T03:00 8", "2T03:01 16", "2T07:59 32", "2T13:00 64", "2T13:30 128")
	codex := run("codex", "2T10:00 1000")
	rp := report(t, stats.ReportOptions{By: []stats.Dim{stats.ByBlock, stats.ByAgent}}, claude, codex)
	check(t, rows(rp),
		"2026-06-01T22:00Z|claude-code: input=15 unknown", // 1 + 2 + 4 + 8: 03:00 is 5 h after, not more
		"2026-06-02T03:00Z|claude-code: input=48 unknown",
		"2026-06-02T10:00Z|codex: input=1000 unknown",
		"2026-06-02T13:00Z|claude-code: input=192 unknown", // not in codex's 10:00 block
		"total: input=1255 unknown")
	since := time.Date(2026, 6, 2, 0, 0, 0, 0, time.UTC)
	rp = report(t, stats.ReportOptions{By: []stats.Dim{stats.ByBlock}, Since: since}, claude)
	check(t, rows(rp),
		"2026-06-01T22:00Z: input=12 unknown", // the records of the 22:00 block in range
		"2026-06-02T03:00Z: input=48 unknown",
		"2026-06-02T13:00Z: input=192 unknown",
		"total: input=252 unknown")
	if rp.Outside != 2 {
		t.Errorf("outside: %d, want 2", rp.Outside)
	}
}
