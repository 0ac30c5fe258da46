package replay

import (
	"context"
	"encoding/json"
	"strconv"

	sdk "github.com/coder/acp-go-sdk"
	"github.com/evtool/evtool/dialect"
	"github.com/evtool/evtool/internal/jsonenc"
	"github.com/tidwall/gjson"
)

// A Library is many recordings, each a past session, that a server offers
// at once: `evtool acp serve` offers every session the agents keep on
// disk. session/list lists its entries (those of the directory the client
// asks about), and session/load streams the one named as its history.
type Library interface {
	// List returns the sessions to list, of the directory cwd when it is
	// not "", most recent first.
	List(ctx context.Context, cwd string) ([]Entry, error)
	// Open returns how to read the session of an id, and its dialect
	// (nil: detected). ok is false for an id the library does not hold.
	Open(ctx context.Context, id string) (open Opener, from dialect.Dialect, ok bool, err error)
}

// An Entry is one session of a Library, as session/list shows it.
type Entry struct {
	ID, Cwd, Title string
	// UpdatedAt is an RFC 3339 time, "" when unknown.
	UpdatedAt string
}

// listPage is how many sessions one session/list answer holds; the
// answer's nextCursor continues the list.
const listPage = 200

// listLibrary answers session/list from the library, a page at a time.
// The cursor is evtool's own: the offset of the page, as text.
func (s *server) listLibrary(ctx context.Context, cwd, cursor gjson.Result) (any, *sdk.RequestError) {
	start := 0
	if cursor.Type == gjson.String {
		n, err := strconv.Atoi(cursor.Str)
		if err != nil || n < 0 {
			return nil, invalidParams("session/list: the cursor is not one evtool gave")
		}
		start = n
	}
	entries, err := s.opts.Library.List(ctx, cwd.Str)
	if err != nil {
		return nil, sdk.NewInternalError(map[string]string{"detail": "the sessions cannot be listed: " + err.Error()})
	}
	start = min(start, len(entries))
	end := min(start+listPage, len(entries))
	b := []byte(`{"sessions":[`)
	for i, e := range entries[start:end] {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonenc.String(append(b, `{"sessionId":`...), e.ID)
		b = jsonenc.String(append(b, `,"cwd":`...), cmpOr(e.Cwd, "/"))
		if e.Title != "" {
			b = jsonenc.String(append(b, `,"title":`...), e.Title)
		}
		if e.UpdatedAt != "" {
			b = jsonenc.String(append(b, `,"updatedAt":`...), e.UpdatedAt)
		}
		b = append(b, '}')
	}
	b = append(b, ']')
	if end < len(entries) {
		b = jsonenc.String(append(b, `,"nextCursor":`...), strconv.Itoa(end))
	}
	return json.RawMessage(append(b, '}')), nil
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
