// Package openset keeps what a stream has opened and not yet closed (tool
// calls, permission requests) by id, compactly and in the order opened,
// each with the line that opened it, a name and a few flags.
//
// A stream checker must remember every open call whole: a later line
// names it by id, and the end of the stream reports each one still open,
// with its id, where it was opened. Kept in a Go map of strings and
// structs, an open call cost a few hundred bytes and the collector's time
// on every cycle (2,000,000 calls never finished: 1 GB, with most of the
// run in the collector). A Set keeps them in a log of byte blocks, in the
// order opened, with an index of 32-bit positions beside it: nothing for
// the collector to follow, and about 17 bytes a call with ids such as
// "call_1234567" (a flag byte; the line, as a varint from the block's
// first line; the name's number; the id, as what it adds to the block's
// first id; an index slot and 8 bits of its hash). Closed entries are
// dropped from the log once they are as many bytes as the open ones.
//
// The order opened is the order of the lines that opened them, so the
// oldest open entry tells below which line nothing more can be reported
// about an open entry (Earliest), and All lists them by line.
package openset

import (
	"encoding/binary"
	"hash/maphash"
	"math"
	"math/bits"
	"strings"
)

// Entry is what a Set keeps of one open id.
type Entry struct {
	Line  int    // the line that opened it
	Name  string // a name given when it was opened (a tool's, say)
	Flags uint8  // the caller's, 7 bits (Set.SetFlags)
}

const (
	dead      = 0x80 // in the flag byte of a closed entry
	blockBits = 16
	blockSize = 1 << blockBits // an entry starts below it in its block
	maxBlocks = 1 << (32 - blockBits)
	maxNames  = 1 << 12
	maxNamed  = 64 // a longer name (a value packed by the caller) is kept inline, never numbered
	// firstBlock is a new block's first capacity.
	firstBlock = 256
)

// Set is a set of open ids. The zero Set is empty and ready to use. It is
// not safe for concurrent use.
type Set struct {
	// The log: entries in the order opened, in blocks. An entry is its
	// flags, its line less the block's base, its name (k<<1|1 for the
	// k-th name, len<<1 and the bytes), how many bytes its id shares
	// with the id of the block's first entry, the length of the rest and
	// the rest. An entry longer than a block has a block of its own.
	blocks [][]byte
	base   []int // the line of each block's first entry
	// spare is the first block of a log that emptied, kept for the next
	// entry: a set that empties after each call (most streams) would
	// otherwise make a block for every call.
	spare []byte
	// index: open addressing over the positions of the open entries, a
	// block's number << blockBits | the entry's offset in it, plus 1; 0
	// is an empty slot. tags holds 8 bits of each slot's hash, so that a
	// probe rarely decodes an entry that is not the one looked for.
	index []uint32
	tags  []uint8
	n     int // open entries
	size  int // bytes of the log
	live  int // bytes of the log that are open entries
	first pos // no open entry comes before it
	seed  maphash.Seed
	made  bool // seed is made
	names []string
	named map[string]uint64
}

type pos struct{ b, off int }

// Len returns the number of open ids.
func (s *Set) Len() int { return s.n }

func (s *Set) hash(id string) uint64 {
	if !s.made {
		s.seed, s.made = maphash.MakeSeed(), true
	}
	return maphash.String(s.seed, id)
}

func tag(h uint64) uint8 { return uint8(h) }

// slot0 is where probing for a hash starts.
func (s *Set) slot0(h uint64) int {
	hi, _ := bits.Mul64(h, uint64(len(s.index)))
	return int(hi)
}

// Add opens id, on line with name, unless it is open already; it reports
// whether it was added. Lines must not decrease from one Add to the next.
func (s *Set) Add(id string, line int, name string) bool {
	if (s.n+1)*8 > len(s.index)*7 {
		s.resize(max(64, len(s.index)*3/2))
	}
	h := s.hash(id)
	i := s.find(h, id)
	if s.index[i] != 0 {
		return false
	}
	p := s.append(id, line, name)
	s.index[i], s.tags[i] = uint32(p.b<<blockBits|p.off)+1, tag(h)
	s.n++
	return true
}

// append writes an entry at the end of the log.
func (s *Set) append(id string, line int, name string) pos {
	last := len(s.blocks) - 1
	if last < 0 || len(s.blocks[last]) >= blockSize-(4+binary.MaxVarintLen64*4+len(name)+len(id)) {
		if len(s.blocks) == maxBlocks {
			panic("openset: too many open ids")
		}
		// A fresh block: its first entry carries its base line and its
		// whole id.
		b := s.spare
		s.spare = nil
		if b == nil {
			// Small at first, grown by append up to blockSize: most sets
			// never hold more than a few entries, and a stream of many
			// runs makes a set for each.
			b = make([]byte, 0, firstBlock)
		}
		s.blocks = append(s.blocks, b)
		s.base = append(s.base, line)
		last++
	}
	b := s.blocks[last]
	off := len(b)
	shared := 0
	if off > 0 {
		shared = commonPrefix(s.idAt(pos{last, 0}), id)
	}
	b = append(b, 0)
	b = binary.AppendUvarint(b, uint64(line-s.base[last]))
	b = s.appendName(b, name)
	b = binary.AppendUvarint(b, uint64(shared))
	b = binary.AppendUvarint(b, uint64(len(id)-shared))
	b = append(b, id[shared:]...)
	s.blocks[last] = b
	s.size += len(b) - off
	s.live += len(b) - off
	return pos{last, off}
}

func commonPrefix(a []byte, b string) int {
	n := min(len(a), len(b), 255)
	i := 0
	for i < n && a[i] == b[i] {
		i++
	}
	return i
}

// appendName writes a name: its number if it has one, or itself.
func (s *Set) appendName(b []byte, name string) []byte {
	if name == "" {
		return append(b, 0)
	}
	k, ok := s.named[name]
	if !ok && len(name) <= maxNamed && len(s.names) < maxNames {
		if s.named == nil {
			s.named = map[string]uint64{}
		}
		name = strings.Clone(name) // it may share a line's memory
		s.names = append(s.names, name)
		k, ok = uint64(len(s.names)), true
		s.named[name] = k
	}
	if ok {
		return binary.AppendUvarint(b, k<<1|1)
	}
	b = binary.AppendUvarint(b, uint64(len(name))<<1)
	return append(b, name...)
}

// lookup returns the index slot of an open id, or -1.
func (s *Set) lookup(id string) int {
	if s.n == 0 {
		return -1
	}
	i := s.find(s.hash(id), id)
	if s.index[i] == 0 {
		return -1
	}
	return i
}

func at(v uint32) pos { return pos{int(v-1) >> blockBits, int(v-1) & (blockSize - 1)} }

// Get returns the entry of an open id.
func (s *Set) Get(id string) (Entry, bool) {
	i := s.lookup(id)
	if i < 0 {
		return Entry{}, false
	}
	e, _ := s.entry(at(s.index[i]))
	return e, true
}

// Has reports whether id is open.
func (s *Set) Has(id string) bool { return s.lookup(id) >= 0 }

// SetFlags sets the flags of an open id (the low 7 bits of f); it reports
// whether id is open.
func (s *Set) SetFlags(id string, f uint8) bool {
	i := s.lookup(id)
	if i < 0 {
		return false
	}
	p := at(s.index[i])
	s.blocks[p.b][p.off] = f &^ dead
	return true
}

// Delete closes id and returns its entry.
func (s *Set) Delete(id string) (Entry, bool) {
	i := s.lookup(id)
	if i < 0 {
		return Entry{}, false
	}
	p := at(s.index[i])
	e, size := s.entry(p) // the entry is returned: its name is copied out
	s.blocks[p.b][p.off] |= dead
	s.n--
	s.live -= size
	s.unindex(i)
	if s.n == 0 {
		s.clearLog()
		if len(s.index) > 1<<10 {
			s.index, s.tags = nil, nil
		}
	} else if closed := s.size - s.live; closed > 64<<10 && closed > s.live {
		s.compact()
	}
	return e, true
}

func (s *Set) clearLog() {
	if len(s.blocks) > 0 && cap(s.blocks[0]) <= blockSize+blockSize/4 {
		s.spare = s.blocks[0][:0]
	}
	clear(s.blocks)
	s.blocks, s.base = s.blocks[:0], s.base[:0]
	s.size, s.live, s.first = 0, 0, pos{}
}

// Earliest returns the line of the oldest open entry, math.MaxInt if
// there is none.
func (s *Set) Earliest() int {
	for p := s.first; p.b < len(s.blocks); p = s.next(p) {
		s.first = p
		if p.off < len(s.blocks[p.b]) && s.blocks[p.b][p.off]&dead == 0 {
			e, _, _, _ := s.fields(p, false)
			return e.Line
		}
	}
	return math.MaxInt
}

// next returns the position after the entry at p (or after an end of
// block).
func (s *Set) next(p pos) pos {
	if p.off >= len(s.blocks[p.b]) {
		return pos{p.b + 1, 0}
	}
	_, _, _, size := s.fields(p, false)
	return pos{p.b, p.off + size}
}

// All calls yield with every open id and its entry, in the order they
// were opened, until yield returns false. The Set must not change
// meanwhile.
func (s *Set) All(yield func(id string, e Entry) bool) {
	var id []byte
	for p := s.first; p.b < len(s.blocks); p = s.next(p) {
		if p.off >= len(s.blocks[p.b]) || s.blocks[p.b][p.off]&dead != 0 {
			continue
		}
		e, _ := s.entry(p)
		id = s.appendID(id[:0], p)
		if !yield(string(id), e) {
			return
		}
	}
}

// fields decodes the entry at p: it (its id aside, and its name only when
// name is set: a name kept inline is copied out), how many bytes its id
// shares with the block's first, the rest of its id, its size.
func (s *Set) fields(p pos, name bool) (e Entry, shared int, rest []byte, size int) {
	b := s.blocks[p.b][p.off:]
	e.Flags = b[0] &^ dead
	i := 1
	d, n := binary.Uvarint(b[i:])
	i += n
	e.Line = s.base[p.b] + int(d)
	v, n := binary.Uvarint(b[i:])
	i += n
	switch {
	case v&1 == 1:
		e.Name = s.names[v>>1-1]
	case v > 0:
		if name {
			e.Name = string(b[i : i+int(v>>1)])
		}
		i += int(v >> 1)
	}
	sh, n := binary.Uvarint(b[i:])
	i += n
	l, n := binary.Uvarint(b[i:])
	i += n
	return e, int(sh), b[i : i+int(l)], i + int(l)
}

func (s *Set) entry(p pos) (Entry, int) {
	e, _, _, size := s.fields(p, true)
	return e, size
}

// idAt returns the id of the first entry of a block, or of any entry
// that shares nothing with it.
func (s *Set) idAt(p pos) []byte {
	_, _, rest, _ := s.fields(p, false)
	return rest
}

// appendID appends the id of the entry at p.
func (s *Set) appendID(dst []byte, p pos) []byte {
	_, shared, rest, _ := s.fields(p, false)
	if shared > 0 {
		dst = append(dst, s.idAt(pos{p.b, 0})[:shared]...)
	}
	return append(dst, rest...)
}

// is reports whether the entry at p has id.
func (s *Set) is(p pos, id string) bool {
	_, shared, rest, _ := s.fields(p, false)
	if shared+len(rest) != len(id) || string(rest) != id[shared:] {
		return false
	}
	return shared == 0 || string(s.idAt(pos{p.b, 0})[:shared]) == id[:shared]
}

// hashAt is hash of the id of the entry at p.
func (s *Set) hashAt(p pos) uint64 {
	var buf [64]byte
	return maphash.Bytes(s.seed, s.appendID(buf[:0], p))
}

// find returns the slot of id, or the empty slot where it would go.
func (s *Set) find(h uint64, id string) int {
	n, t := len(s.index), tag(h)
	for i := s.slot0(h); ; i++ {
		if i == n {
			i = 0
		}
		v := s.index[i]
		if v == 0 || s.tags[i] == t && s.is(at(v), id) {
			return i
		}
	}
}

// unindex empties slot i, moving back the entries after it that probed
// past it (backward-shift deletion, so that no tombstones pile up).
func (s *Set) unindex(i int) {
	n := len(s.index)
	for j := (i + 1) % n; s.index[j] != 0; j = (j + 1) % n {
		home := s.slot0(s.hashAt(at(s.index[j])))
		// j may move to i unless its home lies in (i, j], cyclically.
		if (j > i && (home <= i || home > j)) || (j < i && home <= i && home > j) {
			s.index[i], s.index[j] = s.index[j], 0
			s.tags[i] = s.tags[j]
			i = j
		}
	}
	s.index[i] = 0
}

// resize makes an index of n slots for the open entries.
func (s *Set) resize(n int) {
	s.index, s.tags = make([]uint32, n), make([]uint8, n)
	for p := s.first; p.b < len(s.blocks); p = s.next(p) {
		if p.off >= len(s.blocks[p.b]) || s.blocks[p.b][p.off]&dead != 0 {
			continue
		}
		h := s.hashAt(p)
		i := s.slot0(h)
		for s.index[i] != 0 {
			if i++; i == n {
				i = 0
			}
		}
		s.index[i], s.tags[i] = uint32(p.b<<blockBits|p.off)+1, tag(h)
	}
}

// compact drops the closed entries from the log, and makes the index fit.
func (s *Set) compact() {
	fresh := &Set{names: s.names, named: s.named}
	var id []byte
	for p := s.first; p.b < len(s.blocks); {
		if p.off >= len(s.blocks[p.b]) {
			s.blocks[p.b] = nil // copied: let it go
			p = pos{p.b + 1, 0}
			continue
		}
		_, _, _, size := s.fields(p, false)
		if s.blocks[p.b][p.off]&dead == 0 {
			e, _ := s.entry(p)
			id = s.appendID(id[:0], p)
			q := fresh.append(string(id), e.Line, e.Name)
			fresh.blocks[q.b][q.off] = e.Flags
		}
		p.off += size
	}
	s.blocks, s.base, s.size, s.live, s.first = fresh.blocks, fresh.base, fresh.size, fresh.live, pos{}
	s.names, s.named = fresh.names, fresh.named
	s.resize(max(64, s.n*4/3+1))
}
