package opencode

import (
	"github.com/evtool/evtool/event"
	"github.com/evtool/evtool/internal/jsonenc"
	"github.com/tidwall/gjson"
)

// bus writes an event read from the server bus back in the bus's shape:
// {"id", "type", "properties"}. Only an opencode source has such events.
func (e *Encoder) bus(ev *event.Event, res gjson.Result) error {
	var typ string
	switch ev.Body.(type) {
	case *event.Message, *event.Reasoning, *event.ToolFinished, *event.RoundFinished, *event.UserMessage:
		typ = "message.part.updated"
	case *event.MessageDelta, *event.ReasoningDelta:
		typ = "message.part.delta"
	case *event.Error:
		typ = "session.error"
	case *event.TurnFinished:
		typ = "session.idle"
	default:
		return nil
	}
	e.b = e.b[:0]
	o := open(&e.b, res)
	o.opt("id")
	o.key("type")
	*o.b = jsonenc.String(*o.b, typ)
	o.sub("properties", func(p *obj) {
		p.str("sessionID", e.session)
		switch b := ev.Body.(type) {
		case *event.Message:
			p.sub("part", func(q *obj) { e.textPart(q, b.Text, b.MessageID) })
		case *event.UserMessage:
			p.sub("part", func(q *obj) {
				q.opt("id")
				q.str("sessionID", e.session)
				q.opt("messageID")
				q.opt("type")
				q.str("text", b.Text)
			})
		case *event.Reasoning:
			p.sub("part", func(q *obj) { e.reasoningPart(q, b.Text) })
		case *event.ToolFinished:
			p.sub("part", func(q *obj) { e.toolPart(q, b, ev) })
		case *event.RoundFinished:
			p.sub("part", func(q *obj) {
				e.ids(q, "step-finish", "")
				word, _ := finishWord(b.StopReason)
				q.str("reason", word)
				q.opt("snapshot")
				e.usage(q, b.Usage)
			})
		case *event.MessageDelta:
			p.str("messageID", b.MessageID)
			p.opt("partID")
			p.opt("field")
			p.str("delta", b.Text)
		case *event.ReasoningDelta:
			p.opt("messageID")
			p.opt("partID")
			p.opt("field")
			p.str("delta", b.Text)
		case *event.Error:
			p.opt("error")
		}
		if ev.Time != "" {
			if ms, ok := e.millis(ev.Time); ok {
				p.raw("time", []byte(ms))
			}
		}
	})
	o.close()
	e.b = append(e.b, '\n')
	return e.write(e.b)
}
