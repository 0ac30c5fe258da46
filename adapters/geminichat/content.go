package geminichat

import (
	"strconv"
	"strings"

	"github.com/evtool/evtool/internal/jsonobj"
	"github.com/tidwall/gjson"
)

// content is what a record's content (a PartListUnion of @google/genai:
// a string, a Part, or a list of strings and Parts) says.
type content struct {
	text string
	// thought is the text of the parts marked as thoughts, which text
	// leaves out.
	thought string
	// plain says the content is its text and nothing more (a string, or
	// parts that each hold only "text"): nothing of it need be kept beside
	// the text.
	plain bool
	// images counts inline and file data of an image type.
	images uint64
	// parts counts the parts, and responses the functionResponse parts
	// among them.
	parts, responses int
}

// onlyResponses reports whether the content is function responses and
// nothing else: the tool results Gemini CLI records as a user record.
func (c *content) onlyResponses() bool { return c.parts > 0 && c.responses == c.parts }

// readContent reads a content value at ptr; a value that is no
// PartListUnion is a field error. A missing value is an empty, plain
// content.
func readContent(f *faults, ptr string, v gjson.Result) content {
	var c content
	switch {
	case !v.Exists():
		c.plain = true
	case v.Type == gjson.String:
		c.text, c.plain = v.Str, true
	case v.Type == gjson.Null:
	case v.IsObject():
		c.plain = true
		var b strings.Builder
		c.part(f, ptr, v, &b)
		c.text = b.String()
	case v.IsArray():
		c.plain = true
		var b strings.Builder
		i := 0
		jsonobj.ForEach(v, func(_, e gjson.Result) bool {
			p := ptr + "/" + strconv.Itoa(i)
			i++
			switch {
			case e.Type == gjson.String:
				c.parts++
				b.WriteString(e.Str)
			case e.IsObject():
				c.part(f, p, e, &b)
			default:
				f.fail(p, "got %s, want a string or a part object", jsonobj.TypeName(e))
				return false
			}
			return true
		})
		c.text = b.String()
	default:
		f.fail(ptr, "got %s, want a string, a part or a list of parts", jsonobj.TypeName(v))
	}
	return c
}

// part reads one Part: its text, unless it is a thought, goes to b.
func (c *content) part(f *faults, ptr string, e gjson.Result, b *strings.Builder) {
	c.parts++
	keys := 0
	thought := false
	jsonobj.ForEach(e, func(k, v gjson.Result) bool {
		keys++
		switch k.Str {
		case "text":
			if v.Type != gjson.String {
				f.fail(ptr+"/text", "got %s, want a string", jsonobj.TypeName(v))
				return false
			}
		case "thought":
			thought = v.Type == gjson.True
		case "functionResponse":
			c.responses++
		case "inlineData", "fileData":
			if strings.HasPrefix(jsonobj.Lookup(v, "mimeType").Str, "image/") {
				c.images++
			}
		}
		return true
	})
	t := jsonobj.Lookup(e, "text")
	if keys != 1 || !t.Exists() {
		c.plain = false
	}
	switch {
	case t.Type != gjson.String:
	case thought:
		c.thought += t.Str
	default:
		b.WriteString(t.Str)
	}
}
