package dialect

import "github.com/evtool/evtool/event"

// KeepInPlace returns an Encoder that passes events to enc, holding back
// the unknown events that would otherwise change the meaning of the events
// around them.
//
// A line the reading kept as an unknown event (a banner that is not JSON
// from stderr merged into stdout, a wrapper's log line, a line of no
// dialect) may stand anywhere in a stream. Two places matter to a writer:
//
//   - Before the stream's first other event. Every encoder takes its header
//     facts (session id, model, whether the stream is its own dialect read
//     back) from the first event it is given, so an unknown event must never
//     be first: it is passed on right after the first other event.
//   - Inside a run of streamed chunks of one kind (message or reasoning
//     deltas, a tool's output). Writers join such a run into one message,
//     and any other event ends it: an unknown event there would cut one
//     message in two. It is passed on right before the event that ends the
//     run.
//
// Elsewhere an unknown event keeps its place: after the stream's end too,
// where stderr merged into stdout often has a line, since holding the end
// back would keep a live pipe's reader waiting for it. Holding is bounded: past
// maxHeld events or maxHeldBytes of their raw data the held events are
// passed on as they are, so memory stays bounded on a stream of nothing
// but unknown lines. Close passes on whatever is still held.
func KeepInPlace(enc Encoder) Encoder {
	return &keepInPlace{enc: enc}
}

// The bound on unknown events held back.
const (
	maxHeld      = 1024
	maxHeldBytes = 8 << 20
)

type keepInPlace struct {
	enc   Encoder
	begun bool       // an event other than an unknown one has been passed on
	run   event.Type // the type of a run of chunks under way, or ""
	held  []*event.Event
	bytes int
}

// closers maps the type of a streamed chunk, which a writer joins with
// the chunks that follow it, to the type of the event that closes such a
// run: the whole message a decoder adds after its deltas, the tool's end
// after its output.
var closers = map[event.Type]event.Type{
	event.TypeMessageDelta:   event.TypeMessage,
	event.TypeReasoningDelta: event.TypeReasoning,
	event.TypeToolOutput:     event.TypeToolFinished,
}

func (k *keepInPlace) Encode(e *event.Event) error {
	t := e.Type()
	if t == event.TypeUnknown {
		if k.begun && k.run == "" {
			return k.enc.Encode(e)
		}
		k.held = append(k.held, e)
		if u, ok := e.Body.(*event.Unknown); ok {
			k.bytes += len(u.Raw)
		}
		if len(k.held) < maxHeld && k.bytes < maxHeldBytes {
			return nil
		}
		// Too many to hold: pass them on in their order.
		k.begun, k.run = true, ""
		return k.release()
	}
	if !k.begun {
		// The header first, then what stood before it.
		k.begun = true
		k.run = runOf(t)
		if err := k.enc.Encode(e); err != nil {
			return err
		}
		return k.release()
	}
	switch {
	case t == k.run:
	case k.run != "" && t == closers[k.run]:
		// The event that closes the run, then what came inside it.
		k.run = ""
		if err := k.enc.Encode(e); err != nil {
			return err
		}
		return k.release()
	default:
		// The run ends here: what came inside it, then this event.
		k.run = runOf(t)
		if err := k.release(); err != nil {
			return err
		}
	}
	return k.enc.Encode(e)
}

// runOf returns t if it starts a run of chunks, else "".
func runOf(t event.Type) event.Type {
	if _, ok := closers[t]; ok {
		return t
	}
	return ""
}

// release passes on the held events.
func (k *keepInPlace) release() error {
	held := k.held
	k.held, k.bytes = nil, 0
	for _, e := range held {
		if err := k.enc.Encode(e); err != nil {
			return err
		}
	}
	return nil
}

func (k *keepInPlace) Close() error {
	if err := k.release(); err != nil {
		return err
	}
	return k.enc.Close()
}
