package cli

import (
	"io"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// progress draws convert's progress bar on stderr: bytes read of the
// input's size, lines, rate and time left.
type progress struct {
	bar   *progressbar.ProgressBar
	last  time.Time
	lines int
}

// newProgress returns a bar for --progress=MODE, or nil when none is to be
// drawn: "auto" (a bare --progress) draws only when stderr is a terminal
// and the input is a file of known size; "always" draws on any stderr (a
// spinner when the size is unknown); "never" draws none.
func newProgress(mode string, stderr io.Writer, in os.FileInfo) *progress {
	size := int64(-1)
	if in != nil && in.Mode().IsRegular() {
		size = in.Size()
	}
	switch mode {
	case "always":
	case "auto":
		f := fileOf(stderr)
		if f == nil || !term.IsTerminal(int(f.Fd())) || size < 0 {
			return nil
		}
	default:
		return nil
	}
	bar := progressbar.NewOptions64(size,
		progressbar.OptionSetWriter(stderr),
		progressbar.OptionShowBytes(true),
		progressbar.OptionShowCount(),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionSetElapsedTime(true),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionSetDescription("converting"),
		progressbar.OptionSetWidth(30),
		progressbar.OptionClearOnFinish(),
	)
	return &progress{bar: bar}
}

// update shows how far the conversion is. It is called after every line
// and redraws at most ten times a second.
func (p *progress) update(lines int, bytes int64) {
	if p == nil {
		return
	}
	p.lines = lines
	if now := time.Now(); now.Sub(p.last) >= 100*time.Millisecond {
		p.last = now
		p.bar.Describe(plural(lines, "line"))
		_ = p.bar.Set64(bytes)
	}
}

// finish clears the bar, so that the summary lines that follow stand alone.
func (p *progress) finish() {
	if p == nil {
		return
	}
	_ = p.bar.Finish()
	_ = p.bar.Clear()
}
