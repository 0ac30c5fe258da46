package view

import (
	"encoding/json"
	"strings"
)

// An edit's change is shown as a diff: the unified diff or patch a
// producer states (Codex's file changes, an apply_patch input), or one
// computed here, line by line, from the old and new text of an edit
// tool's input (Claude Code's Edit, opencode's edit, Gemini CLI's
// replace), or a new file's content as added lines. Each line is
// written as text in a span whose class says added, removed, hunk or
// header: the diff is never interpreted as markup.

// diffView is the change of one call.
type diffView struct {
	files []diffFile
	more  int // files beyond maxDiffFiles
}

// diffFile is one file's change: a path, what was done, and the diff's
// lines (each beginning with its +, - or space), when known.
type diffFile struct {
	path, op string
	t        *text
}

const maxDiffFiles = 100

// hasText reports whether the change states a diff of any file.
func (d *diffView) hasText() bool {
	for _, f := range d.files {
		if f.t != nil && f.t.n > 0 {
			return true
		}
	}
	return false
}

// isEdit reports whether a call edits files, by its kind or its name.
func isEdit(c *call) bool {
	if c.kind == "edit" {
		return true
	}
	n := strings.ToLower(c.name)
	for _, w := range []string{"edit", "patch", "write", "replace", "create_file"} {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}

// looksLikeDiff reports whether s is a unified diff or a patch.
func looksLikeDiff(s string) bool {
	for _, p := range []string{"@@", "--- ", "diff --git", "*** Begin Patch", "Index: "} {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return strings.Contains(s, "\n@@") || strings.Contains(s, "\n+++ ")
}

// editDiff reads tool_finished.edit: {"changes":[{path, kind, diff}]},
// or an object or string holding a diff.
func editDiff(raw json.RawMessage, m *model) *diffView {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		if looksLikeDiff(s) {
			return &diffView{files: []diffFile{{t: m.keep(s)}}}
		}
		return nil
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) != nil {
		return nil
	}
	var changes []map[string]json.RawMessage
	if json.Unmarshal(obj["changes"], &changes) == nil && len(changes) > 0 {
		d := &diffView{}
		for i, ch := range changes {
			if i == maxDiffFiles {
				d.more = len(changes) - i
				break
			}
			f := diffFile{path: str(ch, "path", "file_path", "filePath"), op: str(ch, "kind", "type", "op")}
			if mv := str(ch, "move_path", "movePath"); mv != "" {
				f.op += " → " + mv
			}
			if s := str(ch, "diff", "unified_diff", "patch"); s != "" {
				f.t = m.keep(s)
			}
			d.files = append(d.files, f)
		}
		return d
	}
	if s := str(obj, "diff", "patch", "unified_diff"); looksLikeDiff(s) {
		return &diffView{files: []diffFile{{path: str(obj, "path", "file_path", "filePath"), t: m.keep(s)}}}
	}
	return nil
}

// inputDiff reads an edit tool's input.
func inputDiff(raw json.RawMessage, m *model) *diffView {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		if looksLikeDiff(s) {
			return &diffView{files: []diffFile{{t: m.keep(s)}}}
		}
		return nil
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) != nil {
		return nil
	}
	path := str(obj, "file_path", "filePath", "path", "file", "filename", "target_file", "absolute_path")
	if p := str(obj, "patch", "diff", "input"); looksLikeDiff(p) {
		return &diffView{files: []diffFile{{path: path, t: m.keep(p)}}}
	}
	if old, nw, ok := oldNew(obj); ok {
		return &diffView{files: []diffFile{{path: path, op: "edit", t: m.keep(lineDiff(old, nw))}}}
	}
	var edits []map[string]json.RawMessage
	if json.Unmarshal(obj["edits"], &edits) == nil && len(edits) > 0 {
		var b strings.Builder
		for i, e := range edits {
			old, nw, ok := oldNew(e)
			if !ok {
				return nil
			}
			if i > 0 {
				b.WriteString("@@ edit " + itoa(i+1) + " @@\n")
			}
			b.WriteString(lineDiff(old, nw))
		}
		return &diffView{files: []diffFile{{path: path, op: "edit", t: m.keep(b.String())}}}
	}
	if content, ok := strOK(obj, "content", "file_text", "contents", "text"); ok && path != "" {
		return &diffView{files: []diffFile{{path: path, op: "write", t: m.keep(lineDiff("", content))}}}
	}
	return nil
}

func oldNew(obj map[string]json.RawMessage) (old, nw string, ok bool) {
	old, ok1 := strOK(obj, "old_string", "oldString", "old_str", "old_text", "oldText", "search")
	nw, ok2 := strOK(obj, "new_string", "newString", "new_str", "new_text", "newText", "replace", "replacement")
	return old, nw, ok1 && ok2
}

// str returns the first of the keys whose value is a string.
func str(obj map[string]json.RawMessage, keys ...string) string {
	s, _ := strOK(obj, keys...)
	return s
}

func strOK(obj map[string]json.RawMessage, keys ...string) (string, bool) {
	for _, k := range keys {
		var s string
		if v, ok := obj[k]; ok && json.Unmarshal(v, &s) == nil {
			return s, true
		}
	}
	return "", false
}

// maxLCS bounds the table of the line diff (lines × lines): past it the
// old lines are shown removed and the new ones added, which is still
// true, only less precise.
const maxLCS = 1 << 20

// contextLines is how many unchanged lines a computed diff shows around
// a change.
const contextLines = 3

// lineDiff returns the diff of two texts, line by line: each line with
// its " ", "-" or "+", unchanged runs longer than twice contextLines
// shortened to a "@@ … @@" line.
func lineDiff(a, b string) string {
	al, bl := splitLines(a), splitLines(b)
	// The common head and tail need no table.
	p := 0
	for p < len(al) && p < len(bl) && al[p] == bl[p] {
		p++
	}
	s := 0
	for s < len(al)-p && s < len(bl)-p && al[len(al)-1-s] == bl[len(bl)-1-s] {
		s++
	}
	var ops []byte
	var lines []string
	for i := 0; i < p; i++ {
		ops, lines = append(ops, ' '), append(lines, al[i])
	}
	am, bm := al[p:len(al)-s], bl[p:len(bl)-s]
	if len(am)*len(bm) > maxLCS {
		for _, l := range am {
			ops, lines = append(ops, '-'), append(lines, l)
		}
		for _, l := range bm {
			ops, lines = append(ops, '+'), append(lines, l)
		}
	} else {
		o, l := lcsDiff(am, bm)
		ops, lines = append(ops, o...), append(lines, l...)
	}
	for i := len(al) - s; i < len(al); i++ {
		ops, lines = append(ops, ' '), append(lines, al[i])
	}
	var out strings.Builder
	for i := 0; i < len(ops); {
		if ops[i] != ' ' {
			out.WriteByte(ops[i])
			out.WriteString(lines[i])
			out.WriteByte('\n')
			i++
			continue
		}
		j := i
		for j < len(ops) && ops[j] == ' ' {
			j++
		}
		// An unchanged run: its ends near changes are kept.
		keepHead, keepTail := contextLines, contextLines
		if i == 0 {
			keepHead = 0
		}
		if j == len(ops) {
			keepTail = 0
		}
		if j-i > keepHead+keepTail+1 {
			for k := i; k < i+keepHead; k++ {
				out.WriteString(" " + lines[k] + "\n")
			}
			out.WriteString("@@ " + itoa(j-i-keepHead-keepTail) + " unchanged lines @@\n")
			for k := j - keepTail; k < j; k++ {
				out.WriteString(" " + lines[k] + "\n")
			}
		} else {
			for k := i; k < j; k++ {
				out.WriteString(" " + lines[k] + "\n")
			}
		}
		i = j
	}
	return out.String()
}

func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// lcsDiff diffs two short lists of lines through their longest common
// subsequence.
func lcsDiff(a, b []string) ([]byte, []string) {
	n, m := len(a), len(b)
	t := make([]int32, (n+1)*(m+1))
	at := func(i, j int) int32 { return t[i*(m+1)+j] }
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i] == b[j] {
				t[i*(m+1)+j] = at(i+1, j+1) + 1
			} else {
				t[i*(m+1)+j] = max(at(i+1, j), at(i, j+1))
			}
		}
	}
	var ops []byte
	var lines []string
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && a[i] == b[j]:
			ops, lines = append(ops, ' '), append(lines, a[i])
			i, j = i+1, j+1
		case j < m && (i == n || at(i, j+1) >= at(i+1, j)):
			ops, lines = append(ops, '+'), append(lines, b[j])
			j++
		default:
			ops, lines = append(ops, '-'), append(lines, a[i])
			i++
		}
	}
	// Removals before additions within a change, as diff tools show it.
	for k := 0; k < len(ops); {
		if ops[k] == ' ' {
			k++
			continue
		}
		e := k
		for e < len(ops) && ops[e] != ' ' {
			e++
		}
		var del, add []string
		for x := k; x < e; x++ {
			if ops[x] == '-' {
				del = append(del, lines[x])
			} else {
				add = append(add, lines[x])
			}
		}
		x := k
		for _, l := range del {
			ops[x], lines[x] = '-', l
			x++
		}
		for _, l := range add {
			ops[x], lines[x] = '+', l
			x++
		}
		k = e
	}
	return ops, lines
}

// diffClass is the class of a line of a diff or patch.
func diffClass(line string) string {
	switch {
	case strings.HasPrefix(line, "+++ "), strings.HasPrefix(line, "--- "), strings.HasPrefix(line, "diff "),
		strings.HasPrefix(line, "index "), strings.HasPrefix(line, "*** "), strings.HasPrefix(line, "Index: "):
		return "dh"
	case strings.HasPrefix(line, "@@"):
		return "dk"
	case strings.HasPrefix(line, "+"):
		return "da"
	case strings.HasPrefix(line, "-"):
		return "dd"
	}
	return ""
}
