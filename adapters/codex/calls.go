package codex

import (
	"encoding/binary"
	"encoding/json"
	"strings"

	"github.com/evtool/evtool/event"
	"github.com/evtool/evtool/internal/openset"
)

// callSet holds the tool calls announced and not yet completed. A call
// whose output has not begun (most calls while they run) is packed into
// one string in an openset, its start in the entry's flags; one with
// output is kept whole. A stream may leave millions of calls open: as
// call values in a Go map, 120,000 open calls took 147 MiB to convert.
type callSet struct {
	hot  map[string]*call
	cold openset.Set // Name: the call, packed (packCall); Flags: flagStarted
	adds int         // calls put so far: each entry's line
}

const flagStarted = 1

func (s *callSet) has(id string) bool {
	_, ok := s.hot[id]
	return ok || s.cold.Has(id)
}

// peek returns a call to read: changing it changes nothing kept, but for
// its start (started).
func (s *callSet) peek(id string) *call {
	if c, ok := s.hot[id]; ok {
		return c
	}
	e, ok := s.cold.Get(id)
	if !ok {
		return nil
	}
	return unpackCall(e)
}

// get returns a call to change: a packed one is kept whole from now on.
func (s *callSet) get(id string) *call {
	if c, ok := s.hot[id]; ok {
		return c
	}
	e, ok := s.cold.Delete(id)
	if !ok {
		return nil
	}
	c := unpackCall(e)
	s.hot[strings.Clone(id)] = c
	return c
}

// put sets call id.
func (s *callSet) put(id string, c *call) {
	if s.hot == nil {
		s.hot = map[string]*call{}
	}
	if _, ok := s.hot[id]; ok || c.output.Len() > 0 {
		s.cold.Delete(id)
		s.hot[strings.Clone(id)] = c
		return
	}
	s.cold.Delete(id)
	s.adds++
	s.cold.Add(id, s.adds, packCall(c))
	if c.started {
		s.cold.SetFlags(id, flagStarted)
	}
}

// start marks call id's item.started as written.
func (s *callSet) start(id string) {
	if c, ok := s.hot[id]; ok {
		c.started = true
		return
	}
	s.cold.SetFlags(id, flagStarted)
}

func (s *callSet) del(id string) {
	delete(s.hot, id)
	s.cold.Delete(id)
}

// packCall writes a call's name, title, kind, item type and input, each
// after its length (the input's length plus one, 0 for none).
func packCall(c *call) string {
	var b []byte
	for _, s := range []string{c.name, c.title, string(c.kind), c.itemType} {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	if c.input != nil {
		b = binary.AppendUvarint(b, uint64(len(c.input))+1)
		b = append(b, c.input...)
	} else {
		b = append(b, 0)
	}
	return string(b)
}

func unpackCall(e openset.Entry) *call {
	s := e.Name
	next := func() (string, bool) {
		n, w := binary.Uvarint([]byte(s[:min(len(s), binary.MaxVarintLen64)]))
		v := s[w : w+int(n)]
		s = s[w+int(n):]
		return v, true
	}
	c := &call{started: e.Flags&flagStarted != 0}
	c.name, _ = next()
	c.title, _ = next()
	kind, _ := next()
	c.kind = event.ToolKind(kind)
	c.itemType, _ = next()
	n, w := binary.Uvarint([]byte(s[:min(len(s), binary.MaxVarintLen64)]))
	if n > 0 {
		c.input = json.RawMessage(s[w : w+int(n)-1])
	}
	return c
}
