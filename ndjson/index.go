package ndjson

import "sort"

// Index is where the objects and arrays of a line stand and what they
// hold, as the syntax check read them (CheckIndex): the one reading of the
// line's structure that the schema check and a decoder share, so that
// neither reads the line's bytes again to find a member, skipping over
// the texts inside it, as each did before.
//
// It is bounded: at most MaxIndexed members and containers a line, and
// one for every eight bytes of the line (and 64 more), so that it takes
// at most about three times the line's size however dense the line. A
// container the index has no room for is not in it (Find says so), and
// its reader reads its bytes as before; a line the check refuses has an
// empty index. An Index is valid for the bytes it was made from.
type Index struct {
	// Containers are the line's objects and arrays in the order they
	// open, which is the order of their Start.
	Containers []Container
	// Members are the containers' members, each container's together; an
	// array's elements are members whose key span is empty (KeyStart ==
	// KeyEnd).
	Members []Member
}

// Container is one object or array of a line: its span, brackets
// included, and where its members are in Index.Members.
type Container struct {
	Start, End int32
	From, To   int32 // From < 0: its members are not indexed
}

// MaxIndexed bounds the members, and the containers, one line's Index
// keeps: 1 MiB of index at the most, whatever the line.
const MaxIndexed = 1 << 15

// Reset empties x, keeping its memory.
func (x *Index) Reset() {
	x.Containers, x.Members = x.Containers[:0], x.Members[:0]
}

// Find returns the members of the container that spans line[start:end],
// and whether the index holds them.
func (x *Index) Find(start, end int) ([]Member, bool) {
	if x == nil || len(x.Containers) == 0 {
		return nil, false
	}
	cs := x.Containers
	i := sort.Search(len(cs), func(i int) bool { return int(cs[i].Start) >= start })
	if i == len(cs) || int(cs[i].Start) != start || int(cs[i].End) != end || cs[i].From < 0 {
		return nil, false
	}
	return x.Members[cs[i].From:cs[i].To:cs[i].To], true
}

// Top returns the members of the line's top-level object, or nil when the
// line is not an object or its members are not indexed.
func (x *Index) Top(line []byte) []Member {
	if x == nil || len(x.Containers) == 0 {
		return nil
	}
	c := x.Containers[0]
	if c.From < 0 || int(c.Start) >= len(line) || line[c.Start] != '{' {
		return nil
	}
	return x.Members[c.From:c.To:c.To]
}

// CheckIndex is CheckNesting that also fills x (emptied first) with the
// line's containers and their members. For a line the check refuses, x
// is left empty.
func CheckIndex(line []byte, opts Options, x *Index) (depth int, err *SyntaxError) {
	x.Reset()
	depth, _, err = check(line, opts, nil, x)
	if err != nil {
		x.Reset()
	}
	return depth, err
}

// open reserves a container for the object or array opening at s.i, when
// the index is kept and has room; the frame remembers it.
func (s *scanner) open(f *frame) {
	f.cont = -1
	x := s.index
	if x == nil || len(x.Containers)+len(x.Members)+len(s.pend) >= s.room {
		return
	}
	f.cont = int32(len(x.Containers))
	f.pend = len(s.pend)
	x.Containers = append(x.Containers, Container{Start: int32(s.i), From: -1, To: -1})
}

// member adds a member to the open container of frame f, when it is kept;
// a container that outgrows the index is dropped from it.
func (s *scanner) member(f *frame, m Member) {
	if f.cont < 0 {
		return
	}
	if len(s.index.Containers)+len(s.index.Members)+len(s.pend) >= s.room {
		s.pend = s.pend[:f.pend]
		f.cont = -1
		return
	}
	s.pend = append(s.pend, m)
}

// close completes the container of frame f, which ends at s.i: its
// members move from the pending stack to the index.
func (s *scanner) close(f *frame) {
	if f.cont < 0 {
		return
	}
	x := s.index
	c := &x.Containers[f.cont]
	c.End = int32(s.i)
	c.From = int32(len(x.Members))
	x.Members = append(x.Members, s.pend[f.pend:]...)
	c.To = int32(len(x.Members))
	s.pend = s.pend[:f.pend]
}
