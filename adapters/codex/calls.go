package codex

import (
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
	if _, ok := s.hot[id]; ok || c.output.Len() > 0 || len(c.input) > maxPacked {
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

// packCall writes a call's name, title, kind, item type and input.
func packCall(c *call) string {
	return openset.Pack(c.name, c.title, string(c.kind), c.itemType, string(c.input))
}

func unpackCall(e openset.Entry) *call {
	f := openset.Fields(make([]string, 0, 5), e.Name)
	c := &call{name: f[0], title: f[1], kind: event.ToolKind(f[2]), itemType: f[3], started: e.Flags&flagStarted != 0}
	if f[4] != "" {
		c.input = json.RawMessage(f[4])
	}
	return c
}
