package acp

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/evtool/evtool/internal/jsonobj"
	"github.com/tidwall/gjson"
)

// Keys under which tool inputs and edit facts name a file and a change.
var (
	pathKeys  = []string{"path", "file_path", "filePath", "file", "filename"}
	oldKeys   = []string{"old_string", "oldString", "old_text", "oldText", "old_str", "old"}
	newKeys   = []string{"new_string", "newString", "new_text", "newText", "new_str", "new"}
	patchKeys = []string{"patch", "diff", "unified_diff"}
)

// maxDiffs bounds the diff text carried in one message.
const maxDiffs = 2 << 20

// editFields are the facts an edit is read from, each the first string
// under any of its keys.
type editFields struct {
	path, old, new, patch string
	hasPath, hasOld       bool
	hasNew, hasPatch      bool
}

// readEdit reads an object's keys once: a whole file as tool input is
// most of the line, and a lookup per key name would scan it again each
// time.
func readEdit(r gjson.Result) editFields {
	var f editFields
	// rank records, per fact, the position of the key it came from in its
	// list, so that the earliest listed key wins whatever the order of
	// the object's keys.
	rank := [4]int{len(pathKeys), len(oldKeys), len(newKeys), len(patchKeys)}
	take := func(i int, keys []string, k string, v gjson.Result, dst *string, has *bool) {
		if v.Type != gjson.String {
			return
		}
		if j := slices.Index(keys, k); j >= 0 && j < rank[i] {
			rank[i], *dst, *has = j, jsonobj.Text(v), true
		}
	}
	// A repeated key keeps its first value (the rank must improve), as
	// gjson's Get, which this replaces, reads it.
	jsonobj.ForEachRaw(r, func(k, v gjson.Result) bool {
		take(0, pathKeys, k.Str, v, &f.path, &f.hasPath)
		take(1, oldKeys, k.Str, v, &f.old, &f.hasOld)
		take(2, newKeys, k.Str, v, &f.new, &f.hasNew)
		take(3, patchKeys, k.Str, v, &f.patch, &f.hasPatch)
		return true
	})
	return f
}

// pathOf returns the path a tool input names, or "".
func pathOf(r gjson.Result) string {
	return readEdit(r).path
}

// edits reads an edit from a tool input or from edit facts: a path with
// old and new text, or a path (or a diff's own file headers) with a
// unified diff. It returns ACP diff content, hunk by hunk, and the
// locations it names; nothing when the change or its absolute path cannot
// be told, or when it is too large for one message.
func (e *Encoder) edits(raw json.RawMessage) (diffs []obj, locations []byte) {
	if len(raw) == 0 {
		return nil, nil
	}
	r := jsonobj.View(raw) // what is kept is encoded, a copy
	if !r.IsObject() {
		return nil, nil
	}
	hs := hunksOf(r)
	size := 0
	var locs []obj
	for _, h := range hs {
		p := e.absolute(h.path)
		if p == "" {
			return nil, nil
		}
		size += len(h.new)
		if h.old != nil {
			size += len(*h.old)
		}
		if size > maxDiffs {
			return nil, nil
		}
		d := obj{}.str("type", "diff").str("path", p)
		if h.old != nil {
			d = d.str("oldText", *h.old)
		} else {
			d = d.add("oldText", []byte("null"))
		}
		diffs = append(diffs, d.str("newText", h.new))
		loc := obj{}.str("path", p)
		if h.line > 0 {
			loc = loc.add("line", []byte(strconv.Itoa(h.line)))
		}
		locs = append(locs, loc)
	}
	if len(diffs) == 0 {
		return nil, nil
	}
	return diffs, arr(locs...)
}

// hunksOf reads the changes an edit names: a path with old and new text,
// a unified diff, a list of edits of one file (Claude Code's MultiEdit), a
// whole file written (Write, write_file: its content, as a file the
// change creates), or a map from path to change (Codex's patch_apply
// changes: add with content, update with a unified diff). Nothing when
// none of these can be told.
func hunksOf(r gjson.Result) []hunk {
	f := readEdit(r)
	switch {
	case f.hasOld:
		if !f.hasNew || f.path == "" {
			return nil
		}
		old := f.old
		return []hunk{{path: f.path, old: &old, new: f.new}}
	case f.hasPatch:
		return parsePatch(f.patch, f.path)
	case f.path != "":
		if list := jsonobj.Lookup(r, "edits"); list.IsArray() {
			return listEdits(f.path, list)
		}
		if c := jsonobj.Lookup(r, "content"); c.Type == gjson.String {
			return []hunk{{path: f.path, new: jsonobj.Text(c), line: 1}}
		}
		return nil
	}
	return changeMap(r)
}

// listEdits reads a list of old and new texts of one file.
func listEdits(path string, list gjson.Result) []hunk {
	var out []hunk
	ok := true
	jsonobj.ForEach(list, func(_, v gjson.Result) bool {
		f := readEdit(v)
		if !f.hasOld || !f.hasNew {
			ok = false
			return false
		}
		old := f.old
		out = append(out, hunk{path: path, old: &old, new: f.new})
		return true
	})
	if !ok {
		return nil
	}
	return out
}

// changeMap reads a map from path to change, as Codex's FileChange:
// {"type":"add","content":…}, {"type":"update","unified_diff":…,
// "move_path":…}, {"type":"delete"} (which shows no text: left out).
func changeMap(r gjson.Result) []hunk {
	var out []hunk
	ok := true
	jsonobj.ForEach(r, func(k, v gjson.Result) bool {
		switch jsonobj.Lookup(v, "type").Str {
		case "add":
			if c := jsonobj.Lookup(v, "content"); c.Type == gjson.String {
				out = append(out, hunk{path: k.Str, new: jsonobj.Text(c), line: 1})
			}
		case "update":
			if d := jsonobj.Lookup(v, "unified_diff"); d.Type == gjson.String {
				out = append(out, parsePatch(jsonobj.Text(d), k.Str)...)
			}
		case "delete":
		default:
			ok = false
		}
		return ok
	})
	if !ok {
		return nil
	}
	return out
}

// hunk is one change to one file: old and new text hunk-local (context
// lines in both), old nil for a file the change creates, line the first
// line of the new text (0 when unknown).
type hunk struct {
	path string
	old  *string
	new  string
	line int
}

// parsePatch reads a unified diff into hunks. file names the file when
// the diff has no headers of its own.
func parsePatch(patch, file string) []hunk {
	var out []hunk
	var cur *hunk
	var oldB, newB strings.Builder
	created := false
	flush := func() {
		if cur == nil {
			return
		}
		cur.new = newB.String()
		if !created {
			o := oldB.String()
			cur.old = &o
		}
		out = append(out, *cur)
		cur = nil
		oldB.Reset()
		newB.Reset()
	}
	lines := strings.SplitAfter(patch, "\n")
	for i, l := range lines {
		switch {
		case strings.HasPrefix(l, "--- ") && i+1 < len(lines) && strings.HasPrefix(lines[i+1], "+++ "):
			flush()
			created = strings.TrimSpace(l[4:]) == "/dev/null"
		case strings.HasPrefix(l, "+++ ") && (i == 0 || strings.HasPrefix(lines[i-1], "--- ")):
			p := strings.TrimSpace(strings.SplitN(l[4:], "\t", 2)[0])
			if p != "/dev/null" {
				p = strings.TrimPrefix(strings.TrimPrefix(p, "b/"), "a/")
				file = p
			}
		case strings.HasPrefix(l, "@@"):
			flush()
			cur = &hunk{path: file, line: newStart(l)}
		case cur == nil:
		case strings.HasPrefix(l, "+"):
			newB.WriteString(l[1:])
		case strings.HasPrefix(l, "-"):
			oldB.WriteString(l[1:])
		case strings.HasPrefix(l, " "):
			oldB.WriteString(l[1:])
			newB.WriteString(l[1:])
		case l == "\n" || l == "":
			// a blank context line some tools leave without its space
		case strings.HasPrefix(l, `\`):
			// "\ No newline at end of file"
		default:
			flush()
		}
	}
	flush()
	for _, h := range out {
		if h.path == "" {
			return nil
		}
	}
	return out
}

// newStart reads c from a hunk header "@@ -a,b +c,d @@".
func newStart(h string) int {
	i := strings.Index(h, " +")
	if i < 0 {
		return 0
	}
	s := h[i+2:]
	if j := strings.IndexAny(s, ", @"); j >= 0 {
		s = s[:j]
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || n > 1<<31 {
		return 0
	}
	return n
}
