package replay

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/evtool/evtool/dialect"
	"github.com/tidwall/gjson"
)

// testLibrary holds n sessions: s0 … s(n-1), the even ones in /a, the odd
// ones in /b; each is the full recording.
type testLibrary struct{ n int }

func (l testLibrary) List(_ context.Context, cwd string) ([]Entry, error) {
	var out []Entry
	for i := range l.n {
		dir := []string{"/a", "/b"}[i%2]
		if cwd == "" || cwd == dir {
			out = append(out, Entry{ID: "s" + strconv.Itoa(i), Cwd: dir, Title: fmt.Sprintf("session %d", i), UpdatedAt: "2026-01-01T00:00:00Z"})
		}
	}
	return out, nil
}

func (l testLibrary) Open(_ context.Context, id string) (Opener, dialect.Dialect, bool, error) {
	n, err := strconv.Atoi(strings.TrimPrefix(id, "s"))
	if err != nil || !strings.HasPrefix(id, "s") || n >= l.n {
		return nil, nil, false, nil
	}
	return fileOpener(full), nil, true, nil
}

// TestLibrary: session/list pages through a library's sessions (of the
// directory asked about), session/load streams one as its history,
// session/new is refused, and an unknown id is an error.
func TestLibrary(t *testing.T) {
	p := serve(t, nil, Options{Library: testLibrary{n: 450}})
	p.send(initMsg)
	p.expect(answered(0, ""))
	list := func(id int, params string) gjson.Result {
		p.send(`{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"session/list","params":` + params + `}`)
		return gjson.Parse(p.expect(`^\{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,`))
	}
	seen, cursor, id := 0, "", 1
	for {
		params := `{}`
		if cursor != "" {
			params = `{"cursor":"` + cursor + `"}`
		}
		r := list(id, params)
		id++
		got := r.Get("result.sessions.#").Int()
		if got == 0 || got > listPage {
			t.Fatalf("a page of %d sessions: %s", got, r.Raw[:min(len(r.Raw), 300)])
		}
		if first := r.Get("result.sessions.0.sessionId").Str; first != "s"+strconv.Itoa(seen) {
			t.Errorf("page at %d begins with %s", seen, first)
		}
		seen += int(got)
		cursor = r.Get("result.nextCursor").Str
		if cursor == "" {
			break
		}
	}
	if seen != 450 {
		t.Errorf("listed %d sessions, want 450", seen)
	}
	if r := list(id, `{"cwd":"/b"}`); r.Get("result.sessions.#").Int() != 200 || r.Get("result.sessions.0.sessionId").Str != "s1" ||
		r.Get("result.sessions.0.cwd").Str != "/b" {
		t.Errorf("the sessions of /b: %.300s", r.Raw)
	}
	if r := list(id+1, `{"cursor":"-3"}`); r.Get("error.code").Int() != -32602 {
		t.Errorf("a cursor evtool did not give: %s", r.Raw)
	}
	p.send(newMsg)
	if l := p.expect(`^\{"jsonrpc":"2.0","id":1,`); !strings.Contains(l, `"error"`) || !strings.Contains(l, "load one") {
		t.Errorf("session/new: %s", l)
	}
	p.send(loadMsg(900, "s7"))
	p.expect(`"sessionId":"s7".*"user_message_chunk"`)
	p.expect(answered(900, `\{\}\}$`))
	p.send(loadMsg(901, "nope"))
	if l := p.expect(`^\{"jsonrpc":"2.0","id":901,`); !strings.Contains(l, `"error"`) {
		t.Errorf("an unknown session loads: %s", l)
	}
	p.end()
}
