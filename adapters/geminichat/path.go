package geminichat

import "github.com/evtool/evtool/internal/idset"

// path follows a chat's active path: the records Gemini CLI would load,
// in order, after the $rewindTo and $set.messages lines read so far. The
// decoder needs it to say how many records a rewind abandons, the checker
// to tell a rewind to a record on the path from one to nowhere.
//
// Gemini CLI's reader keeps the records in a Map: a re-appended id keeps
// its place; a $rewindTo drops its record and every later one (or, naming
// no record on the path, all of them); a $set.messages replaces them all.
// path keeps, for each id, its position and the epoch it was placed in
// (an epoch ends at each rewind), and the rewinds of the later epochs: an
// id is on the path if its position is within the path and no later
// rewind cut at or before it. It keeps no id itself (idset keeps digests)
// and at most maxCuts rewinds, so its memory is bounded however long the
// chat; an id older than idset.Generation ids may be forgotten, and a
// rewind to it then reads as a rewind to nowhere.
type path struct {
	ids   idset.Set // id → epoch<<32 | position (1-based)
	n     uint64    // records on the path
	epoch uint64
	cuts  []cut // the last maxCuts rewinds, oldest first
}

// cut is a rewind: in epoch (the one it began), the path was cut before
// position pos.
type cut struct{ epoch, pos uint64 }

// maxCuts bounds the rewinds a path remembers; a user rewinds a handful
// of times in a session.
const maxCuts = 4096

const posBits = 32

// pos returns the position of a record on the path.
func (p *path) pos(id string) (uint64, bool) {
	v, ok := p.ids.Get(id)
	if !ok {
		return 0, false
	}
	pos, epoch := v&(1<<posBits-1), v>>posBits
	if pos == 0 || pos > p.n {
		return 0, false
	}
	for i := len(p.cuts) - 1; i >= 0 && p.cuts[i].epoch > epoch; i-- {
		if p.cuts[i].pos <= pos {
			return 0, false
		}
	}
	return pos, true
}

// add places a record at the end of the path unless it is on it already
// (a re-appended record keeps its place), and reports whether it was.
func (p *path) add(id string) (onPath bool) {
	if _, ok := p.pos(id); ok {
		return true
	}
	if p.n < 1<<posBits-1 {
		p.n++
	}
	p.ids.Add(id, p.epoch<<posBits|p.n)
	return false
}

// rewind cuts the path before the record id, as a $rewindTo does. It
// returns how many records left the path and whether id was on it; a
// rewind to a record not on it empties the path, as Gemini CLI's reader
// does.
func (p *path) rewind(id string) (abandoned uint64, found bool) {
	pos, found := p.pos(id)
	if !found {
		pos = 1
	}
	abandoned = p.n - min(p.n, pos-1)
	p.cutAt(pos)
	return abandoned, found
}

// cutAt cuts the path before position pos.
func (p *path) cutAt(pos uint64) {
	p.n = min(p.n, pos-1)
	p.epoch++
	if len(p.cuts) == maxCuts {
		p.cuts = append(p.cuts[:0], p.cuts[1:]...)
	}
	p.cuts = append(p.cuts, cut{epoch: p.epoch, pos: pos})
}

// reset empties the path, as a $set.messages does before it places its
// records.
func (p *path) reset() { p.cutAt(1) }
