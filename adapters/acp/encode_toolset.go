package acp

import (
	"iter"
	"slices"
	"strings"

	"github.com/evtool/evtool/event"
	"github.com/evtool/evtool/internal/openset"
)

// toolSet holds the open tool calls of an encoder. A call that has shown
// no more than its announcement (its name, title and kind: most calls
// while they run) is kept compactly, in an openset, about 30 bytes a
// call; one with more (output, progress, diffs, a subagent's prompt) is
// kept whole. A stream can leave millions of calls open: as whole tools,
// 2,000,000 open calls took 727 MiB to convert to ACP.
type toolSet struct {
	hot  map[string]*tool
	cold openset.Set // Line: the rank; Name: packName; Flags: kind, placeholder
}

const placeholderFlag = 0x40 // in a cold entry's flags, beside the kind's index

// maxCold bounds what a compact call holds: a larger one is kept whole,
// so that reading it does not copy it out of the set each time.
const maxCold = 4 << 10

// light reports whether t is no more than its announcement.
func (t *tool) light() bool {
	return t.output.n == 0 && len(t.output.b) == 0 && t.sent == 0 && t.progress == "" && len(t.diffs) == 0 && t.prompt == ""
}

// add takes a call just announced, whose rank is above every other's.
func (s *toolSet) add(id string, t *tool) {
	k := slices.Index(event.ToolKinds(), t.kind)
	if !t.light() || k < 0 || len(t.name)+len(t.title) > maxCold {
		if s.hot == nil {
			s.hot = map[string]*tool{}
		}
		s.hot[strings.Clone(id)] = t
		return
	}
	f := uint8(k)
	if t.placeholder {
		f |= placeholderFlag
	}
	s.cold.Add(id, t.rank, openset.Pack(t.name, t.title))
	s.cold.SetFlags(id, f)
}

func unpack(e openset.Entry) *tool {
	f := openset.Fields(make([]string, 0, 2), e.Name) // name, title
	return &tool{rank: e.Line, name: f[0], title: f[1],
		kind: event.ToolKinds()[e.Flags&^placeholderFlag], placeholder: e.Flags&placeholderFlag != 0}
}

// has reports whether a call is open.
func (s *toolSet) has(id string) bool {
	_, ok := s.hot[id]
	return ok || s.cold.Has(id)
}

// get returns an open call, to read or to change: a compact one is made
// whole for good.
func (s *toolSet) get(id string) (*tool, bool) {
	if t, ok := s.hot[id]; ok {
		return t, true
	}
	e, ok := s.cold.Delete(id)
	if !ok {
		return nil, false
	}
	t := unpack(e)
	if s.hot == nil {
		s.hot = map[string]*tool{}
	}
	s.hot[strings.Clone(id)] = t
	return t, true
}

// peek returns an open call to read only: a compact one stays compact.
func (s *toolSet) peek(id string) (*tool, bool) {
	if t, ok := s.hot[id]; ok {
		return t, true
	}
	e, ok := s.cold.Get(id)
	if !ok {
		return nil, false
	}
	return unpack(e), true
}

// del forgets a call.
func (s *toolSet) del(id string) {
	delete(s.hot, id)
	s.cold.Delete(id)
}

// byRank yields every open call in the order announced. The set must not
// change meanwhile.
func (s *toolSet) byRank() iter.Seq2[string, *tool] {
	return func(yield func(string, *tool) bool) {
		hot := make([]string, 0, len(s.hot))
		for id := range s.hot {
			hot = append(hot, id)
		}
		slices.SortFunc(hot, func(a, b string) int { return s.hot[a].rank - s.hot[b].rank })
		for id, e := range s.cold.All {
			for len(hot) > 0 && s.hot[hot[0]].rank < e.Line {
				if !yield(hot[0], s.hot[hot[0]]) {
					return
				}
				hot = hot[1:]
			}
			if !yield(id, unpack(e)) {
				return
			}
		}
		for _, id := range hot {
			if !yield(id, s.hot[id]) {
				return
			}
		}
	}
}

// clear forgets every call.
func (s *toolSet) clear() {
	clear(s.hot)
	s.cold = openset.Set{}
}
