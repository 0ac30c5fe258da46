package ndjson

import (
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"
)

// SyntaxError describes why a line is not one JSON value.
type SyntaxError struct {
	Offset int // byte offset of the problem in the line
	Col    int // 1-based character column of the problem
	Msg    string
}

func (e *SyntaxError) Error() string { return e.Msg }

// Check reports whether line is valid UTF-8 holding exactly one JSON value,
// and where it goes wrong if it is not.
func Check(line []byte) *SyntaxError {
	if !utf8.Valid(line) {
		for i := 0; i < len(line); {
			r, size := utf8.DecodeRune(line[i:])
			if r == utf8.RuneError && size == 1 {
				return newSyntaxError(line, i, fmt.Sprintf("invalid UTF-8 at byte %d", i+1))
			}
			i += size
		}
	}
	if json.Valid(line) {
		return nil
	}
	var v any
	err := json.Unmarshal(line, &v)
	var se *json.SyntaxError
	if !errors.As(err, &se) {
		return newSyntaxError(line, 0, "invalid JSON")
	}
	off := int(se.Offset)
	msg := se.Error()
	if msg == "unexpected end of JSON input" {
		// Point just past the last character, where more was expected.
		return newSyntaxError(line, len(line), "invalid JSON: the line ends inside a value")
	}
	// Offset counts the bytes read, including the offending one.
	if off > 0 {
		off--
	}
	return newSyntaxError(line, off, "invalid JSON: "+msg)
}

func newSyntaxError(line []byte, off int, msg string) *SyntaxError {
	if off > len(line) {
		off = len(line)
	}
	return &SyntaxError{Offset: off, Col: utf8.RuneCount(line[:off]) + 1, Msg: msg}
}
