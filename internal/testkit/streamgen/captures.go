package streamgen

import (
	"bufio"
	"bytes"
	"fmt"
	"hash/fnv"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/internal/testkit/teststreams"
	"github.com/evtool/evtool/validate"
)

// ShapeCaptures is the real captures of a dialect kept beside the
// repository (../shared: the corpus, the next dialects' captures and the
// on-disk sessions), one after another and again until the stream has the
// size asked for. Each copy after the first gets fresh ids (see
// ReplicateCaptures), so that the stream stays one valid stream of that
// dialect rather than a run of repeated sessions.
const ShapeCaptures = "captures"

// SharedCaptures returns the real captures of a dialect beside the module
// at root: the streams of teststreams.ValidAt that lie under ../shared.
func SharedCaptures(root, dialectName string) []string {
	shared := filepath.Clean(filepath.Join(root, "..", "shared")) + string(filepath.Separator)
	var out []string
	for _, p := range teststreams.ValidAt(root, dialectName) {
		if strings.HasPrefix(filepath.Clean(p), shared) {
			out = append(out, p)
		}
	}
	return out
}

// A CaptureSet is the captures one replicated stream is made of.
type CaptureSet struct {
	Files []string
	// Skipped are the captures left out, each with the reason: the first
	// error validate reports on the set with it, twice over.
	Skipped map[string]string
	data    [][]byte
	quirk   quirk
	ids     []string // the id values, in the order met
}

// quirk is what a dialect needs beyond fresh ids for copies of its
// captures to make one valid stream.
type quirk struct {
	// one are keys whose values all become the first one met: a codex
	// stream holds the processes of one thread.
	one []string
	// headOnce writes the first line of a capture (its metadata) only in
	// the first copy: a gemini chat has one.
	headOnce bool
}

var quirks = map[string]quirk{
	"codex":       {one: []string{"thread_id"}},
	"gemini-chat": {headOnce: true},
}

// LoadCaptures reads the captures of a dialect, in order, and keeps those
// that make a valid stream together: each is tried with the ones kept so
// far, the set written twice (the second time with fresh ids) and
// validated; a capture that brings an error there is skipped. Shapes a
// dialect cannot mix in one stream (opencode's run output and its server
// bus) are the usual reason.
func LoadCaptures(dialectName string, files []string) (*CaptureSet, error) {
	d, err := dialect.Lookup(dialectName)
	if err != nil {
		return nil, err
	}
	cs := &CaptureSet{Skipped: map[string]string{}, quirk: quirks[dialectName]}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		if len(data) > 0 && data[len(data)-1] != '\n' {
			data = append(data, '\n')
		}
		try := &CaptureSet{Files: append(cs.Files[:len(cs.Files):len(cs.Files)], f), data: append(cs.data[:len(cs.data):len(cs.data)], data), quirk: cs.quirk}
		try.collect()
		var b bytes.Buffer
		if err := try.write(&b, 0, 2); err != nil {
			return nil, err
		}
		first := ""
		_, err = validate.Stream(bytes.NewReader(b.Bytes()), "captures", validate.Options{Dialect: d}, func(dg validate.Diagnostic) {
			if dg.Severity == dialect.Error && first == "" {
				first = dg.String()
			}
		})
		if err != nil {
			return nil, err
		}
		if first != "" {
			cs.Skipped[f] = first
			continue
		}
		cs.Files, cs.data, cs.ids = try.Files, try.data, try.ids
	}
	if len(cs.Files) == 0 {
		return nil, fmt.Errorf("gen: no capture of %s makes a valid stream (%d tried)", dialectName, len(files))
	}
	return cs, nil
}

// Size is the bytes of one copy of the set.
func (cs *CaptureSet) Size() int64 {
	var n int64
	for _, d := range cs.data {
		n += int64(len(d))
	}
	return n
}

// ReplicateCaptures writes the set again and again, as one stream, until
// at least size bytes are written (one copy at least). The first copy is
// the captures as they are; in copy k every id — a string value of a key
// named id, *_id, *Id, *ID or *uuid, but those of providers, models,
// profiles and projects — is replaced, wherever it appears as a whole JSON
// string, by a fresh one of the same form: the last 12 characters of its
// last run of letters and digits are redrawn in the same classes (hex
// stays hex, so a UUID keeps its version), or, when that run is shorter
// than 8, "r" and k are appended. The same id gets the same fresh id
// throughout a copy, so references between lines hold. Nothing else
// changes: times repeat from copy to copy.
func (cs *CaptureSet) ReplicateCaptures(w io.Writer, size int64) error {
	bw := bufio.NewWriterSize(w, 256<<10)
	per := cs.Size()
	copies := 1
	if per > 0 && size > per {
		copies = int((size + per - 1) / per)
	}
	if err := cs.write(bw, 0, copies); err != nil {
		return err
	}
	return bw.Flush()
}

// write writes copies from to to (not included).
func (cs *CaptureSet) write(w io.Writer, from, to int) error {
	one := map[string]string{}
	for _, key := range cs.quirk.one {
		for _, d := range cs.data {
			forPairs(d, func(k, v []byte) {
				if string(k) == key {
					if _, ok := one[key]; !ok {
						one[key] = string(v)
					}
				}
			})
		}
	}
	fixed := map[string]string{} // values of the "one" keys, to their one value
	for _, key := range cs.quirk.one {
		for _, d := range cs.data {
			forPairs(d, func(k, v []byte) {
				if string(k) == key {
					fixed[string(v)] = one[key]
				}
			})
		}
	}
	var out []byte
	for k := from; k < to; k++ {
		m := make(map[string]string, len(cs.ids))
		for _, id := range cs.ids {
			if v, ok := fixed[id]; ok {
				m[id] = v
			} else if k > 0 {
				m[id] = freshID(id, k)
			}
		}
		for i, d := range cs.data {
			for first := true; len(d) > 0; first = false {
				j := bytes.IndexByte(d, '\n')
				line := d[:j+1]
				d = d[j+1:]
				if first && k > 0 && cs.quirk.headOnce || first && i > 0 && cs.quirk.headOnce {
					continue
				}
				out = rewrite(out[:0], line, m)
				if _, err := w.Write(out); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// collect gathers the id values of the set, each once, in the order met.
func (cs *CaptureSet) collect() {
	seen := map[string]bool{}
	cs.ids = cs.ids[:0]
	for _, d := range cs.data {
		forPairs(d, func(k, v []byte) {
			if idKey(string(k)) && len(v) > 0 && !seen[string(v)] {
				seen[string(v)] = true
				cs.ids = append(cs.ids, string(v))
			}
		})
	}
	for _, key := range cs.quirk.one {
		forPairs(bytes.Join(cs.data, nil), func(k, v []byte) {
			if string(k) == key && !seen[string(v)] {
				seen[string(v)] = true
				cs.ids = append(cs.ids, string(v))
			}
		})
	}
}

// idKey says whether the values of a key are ids a copy renames.
func idKey(k string) bool {
	lk := strings.ToLower(k)
	for _, p := range []string{"provider", "model", "profile", "project"} {
		if strings.HasPrefix(lk, p) {
			return false
		}
	}
	return lk == "id" || lk == "uuid" || strings.HasSuffix(lk, "_id") || strings.HasSuffix(k, "Id") ||
		strings.HasSuffix(k, "ID") || strings.HasSuffix(lk, "uuid")
}

// freshID is id's replacement in copy k (k > 0).
func freshID(id string, k int) string {
	end := len(id)
	start := end
	for start > 0 && isAlnum(id[start-1]) {
		start--
	}
	if end-start < 8 {
		return id + "r" + strconv.Itoa(k)
	}
	run := id[start:end]
	hex := true
	for i := 0; i < len(run); i++ {
		if !(run[i] >= '0' && run[i] <= '9' || run[i] >= 'a' && run[i] <= 'f') {
			hex = false
			break
		}
	}
	h := fnv.New64a()
	h.Write([]byte(id))
	rng := rand.New(rand.NewPCG(h.Sum64(), uint64(k)))
	b := []byte(id)
	for i := max(start, end-12); i < end; i++ {
		c := b[i]
		switch {
		case hex:
			b[i] = "0123456789abcdef"[rng.IntN(16)]
		case c >= '0' && c <= '9':
			b[i] = byte('0' + rng.IntN(10))
		case c >= 'a' && c <= 'z':
			b[i] = byte('a' + rng.IntN(26))
		default:
			b[i] = byte('A' + rng.IntN(26))
		}
	}
	return string(b)
}

func isAlnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// stringEnd returns the index just past the JSON string that begins at
// data[i] (a quote), or len(data).
func stringEnd(data []byte, i int) int {
	for j := i + 1; j < len(data); j++ {
		switch data[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(data)
}

func skipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\r' || data[i] == '\n') {
		i++
	}
	return i
}

// forPairs calls f with the raw text (between the quotes) of each key
// whose value is a string, and of that value, in data.
func forPairs(data []byte, f func(k, v []byte)) {
	for i := 0; i < len(data); {
		if data[i] != '"' {
			i++
			continue
		}
		e := stringEnd(data, i)
		j := skipSpace(data, e)
		if j < len(data) && data[j] == ':' {
			j = skipSpace(data, j+1)
			if j < len(data) && data[j] == '"' {
				ve := stringEnd(data, j)
				f(data[i+1:e-1], data[j+1:ve-1])
				i = ve
				continue
			}
		}
		i = e
	}
}

// rewrite appends line to out with every JSON string whose raw text is a
// key of m replaced by its value.
func rewrite(out, line []byte, m map[string]string) []byte {
	last := 0
	for i := 0; i < len(line); {
		if line[i] != '"' {
			i++
			continue
		}
		e := stringEnd(line, i)
		if e-i >= 2 {
			if v, ok := m[string(line[i+1:e-1])]; ok {
				out = append(out, line[last:i+1]...)
				out = append(out, v...)
				last = e - 1
			}
		}
		i = e
	}
	return append(out, line[last:]...)
}
