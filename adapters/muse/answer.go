package muse

import (
	"fmt"
	"io"
	"iter"
	"os"
	"strings"
)

// answer is the text of a turn's answer, gathered from its deltas for the
// run.terminal that carries it whole. A stream of one long turn makes it
// as long as all its deltas together (60 MB of a 300 MB stream): held in
// memory, it was most of the live heap, above the collector's soft limit
// for the rest of the run, and a strings.Builder of it copied itself as it
// grew. It is kept in blocks of answerBlock bytes, and past answerSpill
// bytes in a temporary file, read back when the run.terminal is written.
type answer struct {
	blocks []string // full blocks not in the file, in order
	cur    strings.Builder
	n      int      // bytes in all
	file   *os.File // the first bytes of the answer, when it is long
	name   string   // file's name, until it is removed
	inFile int64    // bytes in file
	// err is the first error of writing the file, kept for the next call
	// that returns one.
	err error
	// noFile: no temporary file could be made; the answer is in blocks.
	noFile bool
}

const (
	// answerBlock is the size of a block of an answer.
	answerBlock = 1 << 20
	// answerSpill is how much of an answer is kept in memory.
	answerSpill = 4 * answerBlock
)

// WriteString adds s to the answer.
func (a *answer) WriteString(s string) error {
	a.n += len(s)
	if a.cur.Len() > 0 && a.cur.Len()+len(s) > answerBlock {
		a.block(a.cur.String())
		a.cur = strings.Builder{}
	}
	if len(s) >= answerBlock {
		// A block of its own, cloned unless it goes to the file: s may
		// share a longer line's memory.
		if a.n-int(a.inFile) <= answerSpill {
			s = strings.Clone(s)
		}
		a.block(s)
		return a.err
	}
	if a.cur.Cap() == 0 && len(a.blocks)+int(a.inFile) > 0 {
		// Past the first block the answer is long: each block is made
		// whole at once, not grown by copying.
		a.cur.Grow(answerBlock)
	}
	a.cur.WriteString(s)
	return a.err
}

// block adds a full block, and moves the blocks to the file once they are
// more than answerSpill bytes.
func (a *answer) block(b string) {
	a.blocks = append(a.blocks, b)
	if a.err != nil || a.n-int(a.inFile) <= answerSpill {
		return
	}
	if a.noFile {
		return
	}
	if a.file == nil {
		f, err := os.CreateTemp("", "evtool-muse-answer-*")
		if err != nil {
			// No temporary directory to write in (read-only, say): the
			// answer stays in memory, as long as it is.
			a.noFile = true
			return
		}
		// Unlinked at once where the system allows it, so that nothing
		// is left of it however the run ends; else at Reset.
		a.file, a.name = f, f.Name()
		if os.Remove(a.name) == nil {
			a.name = ""
		}
	}
	for _, b := range a.blocks {
		if _, err := io.WriteString(a.file, b); err != nil {
			a.err = fmt.Errorf("muse: keeping a long answer: %w", err)
			return
		}
		a.inFile += int64(len(b))
	}
	clear(a.blocks)
	a.blocks = a.blocks[:0]
}

// Len returns the answer's length in bytes.
func (a *answer) Len() int { return a.n }

// Reset empties the answer, and removes its file.
func (a *answer) Reset() error {
	err := a.err
	if a.file != nil {
		if cerr := a.file.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("muse: a long answer's file: %w", cerr)
		}
		if a.name != "" {
			os.Remove(a.name)
		}
	}
	*a = answer{}
	return err
}

// pieces returns the answer's text in order, in pieces; once the range is
// done, *err holds the first error of reading them.
func (a *answer) pieces(err *error) iter.Seq[string] {
	return func(yield func(string) bool) {
		*err = a.err
		if *err != nil {
			return
		}
		if a.inFile > 0 {
			buf := make([]byte, answerBlock)
			for off := int64(0); off < a.inFile; {
				n, rerr := a.file.ReadAt(buf[:min(int64(len(buf)), a.inFile-off)], off)
				off += int64(n)
				if n > 0 && !yield(string(buf[:n])) {
					return
				}
				if rerr != nil && off < a.inFile {
					*err = fmt.Errorf("muse: reading a long answer back: %w", rerr)
					return
				}
			}
		}
		for _, b := range a.blocks {
			if !yield(b) {
				return
			}
		}
		if a.cur.Len() > 0 {
			yield(a.cur.String())
		}
	}
}

// String returns the answer whole.
func (a *answer) String() (string, error) {
	if a.err == nil && a.inFile == 0 && len(a.blocks) == 0 {
		return a.cur.String(), nil
	}
	var b strings.Builder
	b.Grow(a.n)
	var err error
	for p := range a.pieces(&err) {
		b.WriteString(p)
	}
	return b.String(), err
}
