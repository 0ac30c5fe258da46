package event

// AppendReflect writes e the way Append did before append_gen.go: the body
// through encoding/json. The differential test compares the two.
func AppendReflect(dst []byte, e *Event) ([]byte, error) {
	saved := e.Body
	e.Body = opaque{saved}
	defer func() { e.Body = saved }()
	return Append(dst, e)
}

// opaque hides a body's type from appendBody, so Append falls back to
// encoding/json for it.
type opaque struct{ Body }

func (o opaque) MarshalJSON() ([]byte, error) { return marshalBody(o.Body) }
