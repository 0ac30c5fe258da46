// Command genhistory writes a generated history of Claude Code transcripts
// of any size, in Claude Code's layout (DIR/.claude/projects/<encoded
// cwd>/<session>.jsonl), and, when asked, Codex rollouts and Gemini CLI
// chats beside them (agents.go), for measuring `evtool sessions` and
// `evtool usage` beside ccusage (bench/sessions.sh, bench/mixed.sh). It
// is deterministic: the same flags write the same bytes.
//
//	go run ./bench/genhistory -out /tmp/h -files 750 -bytes 4G -seed 1
//
// The transcripts are modelled on internal/testkit/ccusagediff's generator and on
// the real captures in ../shared/ondisk/captures/claude-code/: user
// prompts; API responses written one content block a line (thinking, text,
// tool_use), the lines of one response sharing message.id and requestId,
// their output_tokens growing and only the last with a stop_reason (one in
// ten never gets its final line); tool_use/tool_result pairs whose outputs
// are a few KB (Bash stdout, Read file contents, Grep matches), duplicated
// in toolUseResult as Claude Code does; a few lines of 100–600 KB (a large
// file read); several models (and a /model switch mid-session), days and
// projects; summary lines; and resumed sessions (claude --resume), whose
// file begins with the earlier file's lines under the new sessionId.
// Files are written in constant memory, whatever their size.
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

func main() {
	out := flag.String("out", "", "the `DIR` to write under (DIR/.claude/projects/…)")
	files := flag.Int("files", 750, "how many transcript files")
	size := flag.String("bytes", "4G", "their total `SIZE` (bytes; K, M, G suffixes are powers of 1024)")
	seed := flag.Uint64("seed", 1, "the random seed")
	days := flag.Int("days", 60, "spread the sessions over this many days")
	codexFiles := flag.Int("codex-files", 0, "how many Codex rollouts besides (DIR/.codex/sessions/…)")
	codexSize := flag.String("codex-bytes", "1G", "their total `SIZE`")
	geminiFiles := flag.Int("gemini-files", 0, "how many Gemini CLI chats besides (DIR/.gemini/tmp/…)")
	geminiSize := flag.String("gemini-bytes", "1G", "their total `SIZE`")
	flag.Parse()
	total, err := parseSize(*size)
	codexTotal, cerr := parseSize(*codexSize)
	geminiTotal, gerr := parseSize(*geminiSize)
	if *out == "" || err != nil || cerr != nil || gerr != nil || *files < 0 || *codexFiles < 0 || *geminiFiles < 0 {
		fmt.Fprintln(os.Stderr, "usage: genhistory -out DIR [-files N] [-bytes SIZE] [-codex-files N] [-codex-bytes SIZE] [-gemini-files N] [-gemini-bytes SIZE] [-seed N] [-days N]")
		os.Exit(2)
	}
	g := newGen(*seed, *days)
	for _, a := range []struct {
		name  string
		files int
		total int64
		write func(string, int, int64) (int64, int, error)
	}{
		{"Claude Code transcripts", *files, total, g.history},
		{"Codex rollouts", *codexFiles, codexTotal, g.codexHistory},
		{"Gemini CLI chats", *geminiFiles, geminiTotal, g.geminiHistory},
	} {
		if a.files == 0 {
			continue
		}
		n, longest, err := a.write(*out, a.files, a.total)
		if err != nil {
			fmt.Fprintln(os.Stderr, "genhistory:", err)
			os.Exit(1)
		}
		fmt.Printf("%d %s, %d bytes, longest line %d bytes\n", a.files, a.name, n, longest)
	}
}

func parseSize(s string) (int64, error) {
	mult := int64(1)
	switch {
	case strings.HasSuffix(s, "K"):
		mult, s = 1<<10, s[:len(s)-1]
	case strings.HasSuffix(s, "M"):
		mult, s = 1<<20, s[:len(s)-1]
	case strings.HasSuffix(s, "G"):
		mult, s = 1<<30, s[:len(s)-1]
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f <= 0 {
		return 0, fmt.Errorf("bad size %q", s)
	}
	return int64(f * float64(mult)), nil
}

// models each have a price in both ccusage's table and evtool's.
var models = []string{"claude-sonnet-4-20250514", "claude-opus-4-1-20250805", "claude-3-5-haiku-20241022", "claude-sonnet-4-5-20250929", "claude-opus-4-5-20251101"}

type gen struct {
	r     *rand.Rand
	days  int
	start time.Time
	pool  []byte  // escaped JSON string text
	cuts  []int32 // offsets in pool where a token begins
	n     int
}

// words are the text's tokens, already escaped for a JSON string: ASCII
// words, non-ASCII ones, and characters that need escaping.
var words = []string{
	"the", "a", "function", "returns", "error", "nil", "if", "err", "!=", "test", "file", "line", "value", "config", "build",
	"package", "import", "struct", "type", "func", "for", "range", "go", "make", "string", "int", "map", "slice", "main",
	"handler", "request", "response", "context", "ctx", "server", "client", "json", "decode", "encode", "reader", "writer",
	"naïve", "café", "résumé", "→", "✓", "日本語", "データ", "über", "señal", "—", "…", "😀",
	`\n`, `\n`, `\n\n`, `\t`, `\"quoted\"`, `\\path\\to`, `\u2028`, "{", "}", "(", ")", "[i]", ":=", "==", "//", "/*", "*/",
}

func newGen(seed uint64, days int) *gen {
	g := &gen{r: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), days: max(days, 1),
		start: time.Date(2025, 9, 1, 0, 0, 0, 0, time.UTC)}
	// A pool of text that any token-aligned slice of is a valid escaped
	// JSON string's content.
	for len(g.pool) < 8<<20 {
		g.cuts = append(g.cuts, int32(len(g.pool)))
		g.pool = append(g.pool, words[g.r.IntN(len(words))]...)
		g.pool = append(g.pool, ' ')
	}
	return g
}

// text appends about n bytes of escaped text (at least n, ending on a
// token).
func (g *gen) text(b []byte, n int) []byte {
	for n > 0 {
		i := g.r.IntN(len(g.cuts) / 2)
		from := int(g.cuts[i])
		want := min(n, len(g.pool)/2)
		// the first cut at or past from+want
		j := i + want/7
		for j < len(g.cuts) && int(g.cuts[j]) < from+want {
			j++
		}
		to := len(g.pool)
		if j < len(g.cuts) {
			to = int(g.cuts[j])
		}
		b = append(b, g.pool[from:to]...)
		n -= to - from
	}
	return b
}

func (g *gen) hex(b []byte, n int) []byte {
	const digits = "0123456789abcdef"
	for range n {
		b = append(b, digits[g.r.IntN(16)])
	}
	return b
}

func (g *gen) uuid() string {
	return fmt.Sprintf("%08x-%04x-4%03x-8%03x-%012x", g.r.Uint32(), g.r.Uint32()&0xffff, g.r.Uint32()&0xfff, g.r.Uint32()&0xfff, g.r.Uint64()&0xffffffffffff)
}

func (g *gen) id(prefix string) string {
	const alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	g.n++
	b := []byte(prefix)
	for range 20 {
		b = append(b, alnum[g.r.IntN(len(alnum))])
	}
	return string(b) + strconv.Itoa(g.n%10)
}

// history writes files transcripts of total bytes in all under out and
// returns the bytes written and the longest line.
func (g *gen) history(out string, files int, total int64) (int64, int, error) {
	// Sizes: log-normal weights (many small sessions, a few large ones),
	// scaled to the total.
	w := make([]float64, files)
	sum := 0.0
	for i := range w {
		w[i] = math.Exp(g.r.NormFloat64() * 0.9)
		sum += w[i]
	}
	var written int64
	longest := 0
	var last []prev // per project, its last file
	projects := max(1, min(12, files/8+1))
	last = make([]prev, projects)
	for i := range files {
		target := int64(float64(total) * w[i] / sum)
		if i == files-1 {
			target = max(total-written, 1024)
		}
		p := g.r.IntN(projects)
		cwd := fmt.Sprintf("/home/dev/src/project-%d", p)
		if p%4 == 3 {
			cwd = fmt.Sprintf("/home/dev/src/my.app-%d", p)
		}
		dir := filepath.Join(out, ".claude", "projects", strings.NewReplacer("/", "-", ".", "-").Replace(cwd))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return written, longest, err
		}
		// One file in ten resumes its project's last session, when that
		// one fits in this one's size.
		var resume *prev
		if l := last[p]; l.path != "" && g.r.IntN(10) == 0 && l.size < target*3/4 {
			resume = &l
		}
		sid := g.uuid()
		path := filepath.Join(dir, sid+".jsonl")
		n, long, err := g.session(path, sid, cwd, target, resume)
		if err != nil {
			return written, longest, err
		}
		written += n
		longest = max(longest, long)
		last[p] = prev{path, sid, n}
	}
	return written, longest, nil
}

// prev is a project's last file, which a resumed session repeats.
type prev struct {
	path, sid string
	size      int64
}

type writer struct {
	f       *os.File
	w       *bufio.Writer
	n       int64
	longest int
	err     error
}

func (w *writer) line(b []byte) {
	if w.err != nil {
		return
	}
	w.longest = max(w.longest, len(b))
	b = append(b, '\n')
	_, w.err = w.w.Write(b)
	w.n += int64(len(b))
}

// session writes one transcript of about target bytes.
func (g *gen) session(path, sid, cwd string, target int64, resume *prev) (int64, int, error) {
	f, err := os.Create(path)
	if err != nil {
		return 0, 0, err
	}
	w := &writer{f: f, w: bufio.NewWriterSize(f, 1<<20)}
	day := g.r.IntN(g.days)
	t := g.start.AddDate(0, 0, day).Add(time.Duration(g.r.IntN(24*60)) * time.Minute)
	parent := ""
	if resume != nil {
		// claude --resume: the earlier file's lines, under this sessionId.
		old, err := os.Open(resume.path)
		if err != nil {
			return 0, 0, err
		}
		sc := bufio.NewScanner(old)
		sc.Buffer(nil, 64<<20)
		from := []byte(`"sessionId":"` + resume.sid + `"`)
		to := []byte(`"sessionId":"` + sid + `"`)
		for sc.Scan() {
			w.line(bytes.ReplaceAll(sc.Bytes(), from, to))
		}
		old.Close()
		if sc.Err() != nil {
			return 0, 0, sc.Err()
		}
		t = t.Add(time.Duration(1+g.r.IntN(10)) * time.Hour)
	}
	model := models[g.r.IntN(len(models))]
	version := []string{"1.0.98", "1.0.108", "2.0.14", "2.0.37"}[g.r.IntN(4)]
	branch := []string{"main", "", "feature/x", "fix-123"}[g.r.IntN(4)]
	var b []byte
	// env appends a line's envelope up to and including `"message":`
	// or the type-specific fields.
	head := func(typ string) []byte {
		u := g.uuid()
		b = b[:0]
		b = append(b, `{"parentUuid":`...)
		if parent == "" {
			b = append(b, "null"...)
		} else {
			b = append(b, '"')
			b = append(b, parent...)
			b = append(b, '"')
		}
		b = append(b, `,"isSidechain":false,"userType":"external","cwd":"`...)
		b = append(b, cwd...)
		b = append(b, `","sessionId":"`...)
		b = append(b, sid...)
		b = append(b, `","version":"`...)
		b = append(b, version...)
		b = append(b, `","gitBranch":"`...)
		b = append(b, branch...)
		b = append(b, `","type":"`...)
		b = append(b, typ...)
		b = append(b, `","uuid":"`...)
		b = append(b, u...)
		b = append(b, `","timestamp":"`...)
		b = append(b, t.UTC().Format("2006-01-02T15:04:05.000Z")...)
		b = append(b, '"')
		parent = u
		t = t.Add(time.Duration(300+g.r.IntN(6000)) * time.Millisecond)
		return b
	}
	turn := 0
	for w.n < target && w.err == nil {
		turn++
		if g.r.IntN(5) == 0 {
			model = models[g.r.IntN(len(models))] // /model mid-session
		}
		b = head("user")
		b = append(b, `,"message":{"role":"user","content":"`...)
		b = g.text(b, 40+g.r.IntN(600))
		b = append(b, `"}}`...)
		w.line(b)
		rounds := 1 + g.r.IntN(12)
		for round := range rounds {
			msg, req := g.id("msg_01"), g.id("req_011C")
			in := 1 + g.r.IntN(20)
			cr := g.r.IntN(120_000)
			c5 := g.r.IntN(12_000)
			c1 := 0
			if g.r.IntN(3) == 0 {
				c1 = g.r.IntN(4_000)
			}
			if g.r.IntN(30) == 0 {
				cr = 200_000 + g.r.IntN(100_000)
			}
			outTok := 20 + g.r.IntN(2000)
			tool := round < rounds-1
			var blocks []string
			if g.r.IntN(2) == 0 {
				blocks = append(blocks, "thinking")
			}
			blocks = append(blocks, "text")
			toolName := ""
			var callID string
			if tool {
				blocks = append(blocks, "tool_use")
				toolName = []string{"Bash", "Read", "Read", "Edit", "Grep", "Glob", "TodoWrite"}[g.r.IntN(7)]
				callID = g.id("toolu_01")
			}
			partial := g.r.IntN(10) == 0
			grow := 1 + g.r.IntN(10)
			for bi, kind := range blocks {
				lastBlock := bi == len(blocks)-1
				o := min(outTok, grow)
				if lastBlock && !partial {
					o = outTok
				}
				grow += 1 + g.r.IntN(40)
				b = head("assistant")
				b = append(b, `,"requestId":"`...)
				b = append(b, req...)
				b = append(b, `","message":{"id":"`...)
				b = append(b, msg...)
				b = append(b, `","type":"message","role":"assistant","model":"`...)
				b = append(b, model...)
				b = append(b, `","content":[`...)
				switch kind {
				case "thinking":
					b = append(b, `{"type":"thinking","thinking":"`...)
					b = g.text(b, 200+g.r.IntN(3000))
					b = append(b, `","signature":"`...)
					b = g.hex(b, 300)
					b = append(b, `"}`...)
				case "text":
					b = append(b, `{"type":"text","text":"`...)
					b = g.text(b, 50+g.r.IntN(1500))
					b = append(b, `"}`...)
				case "tool_use":
					b = append(b, `{"type":"tool_use","id":"`...)
					b = append(b, callID...)
					b = append(b, `","name":"`...)
					b = append(b, toolName...)
					b = append(b, `","input":`...)
					switch toolName {
					case "Bash":
						b = append(b, `{"command":"go test ./... -run `...)
						b = g.text(b, 20)
						b = append(b, `","description":"Run the tests"}`...)
					case "Edit":
						b = append(b, `{"file_path":"`...)
						b = append(b, cwd...)
						b = append(b, `/main.go","old_string":"`...)
						b = g.text(b, 100+g.r.IntN(800))
						b = append(b, `","new_string":"`...)
						b = g.text(b, 100+g.r.IntN(800))
						b = append(b, `"}`...)
					case "TodoWrite":
						b = append(b, `{"todos":[{"content":"`...)
						b = g.text(b, 40)
						b = append(b, `","status":"in_progress","activeForm":"`...)
						b = g.text(b, 40)
						b = append(b, `"}]}`...)
					default:
						b = append(b, `{"pattern":"`...)
						b = g.text(b, 10)
						b = append(b, `","path":"`...)
						b = append(b, cwd...)
						b = append(b, `"}`...)
					}
					b = append(b, '}')
				}
				b = append(b, `],"stop_reason":`...)
				switch {
				case !lastBlock || partial:
					b = append(b, "null"...)
				case tool:
					b = append(b, `"tool_use"`...)
				default:
					b = append(b, `"end_turn"`...)
				}
				b = fmt.Appendf(b, `,"stop_sequence":null,"usage":{"input_tokens":%d,"cache_creation_input_tokens":%d,"cache_read_input_tokens":%d,"cache_creation":{"ephemeral_5m_input_tokens":%d,"ephemeral_1h_input_tokens":%d},"output_tokens":%d,"service_tier":"standard"}}}`,
					in, c5+c1, cr, c5, c1, o)
				w.line(b)
			}
			if !tool {
				continue
			}
			// The result: a few KB, now and then a large file read.
			size := 500 + g.r.IntN(6000)
			if g.r.IntN(400) == 0 {
				size = 100_000 + g.r.IntN(500_000)
			}
			isErr := g.r.IntN(12) == 0
			b = head("user")
			b = append(b, `,"message":{"role":"user","content":[{"tool_use_id":"`...)
			b = append(b, callID...)
			b = append(b, `","type":"tool_result","content":"`...)
			mark := len(b)
			b = g.text(b, size)
			body := len(b) - mark
			b = append(b, `","is_error":`...)
			b = strconv.AppendBool(b, isErr)
			b = append(b, `}]},"toolUseResult":`...)
			switch toolName {
			case "Read":
				b = append(b, `{"type":"text","file":{"filePath":"`...)
				b = append(b, cwd...)
				b = append(b, `/internal/x.go","content":"`...)
				b = append(b, b[mark:mark+body]...)
				b = fmt.Appendf(b, `","numLines":%d,"startLine":1,"totalLines":%d}}}`, 1+body/40, 1+body/40)
			case "Bash":
				b = append(b, `{"stdout":"`...)
				b = append(b, b[mark:mark+body]...)
				b = append(b, `","stderr":"","interrupted":false,"isImage":false}}`...)
			default:
				b = append(b, `"`...)
				short := b[mark : mark+min(body, 2000)]
				if i := bytes.LastIndexByte(short, ' '); i >= 0 && body > 2000 {
					short = short[:i] // on a token's end
				}
				b = append(b, short...)
				b = append(b, `"}`...)
			}
			w.line(b)
		}
		if turn%7 == 0 {
			b = b[:0]
			b = append(b, `{"type":"summary","summary":"`...)
			b = g.text(b, 60)
			b = append(b, `","leafUuid":"`...)
			b = append(b, parent...)
			b = append(b, `"}`...)
			w.line(b)
		}
		t = t.Add(time.Duration(g.r.IntN(40)) * time.Minute)
	}
	if err := w.w.Flush(); w.err == nil {
		w.err = err
	}
	if err := f.Close(); w.err == nil {
		w.err = err
	}
	return w.n, w.longest, w.err
}
