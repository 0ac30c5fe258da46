package opencodestorage

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/evtool/evtool/internal/jsonenc"
	"github.com/evtool/evtool/internal/jsonobj"
	"github.com/tidwall/gjson"
)

// storageSession makes the lines of one session of the JSON storage
// (opencode up to 1.1): storage/session/<project>/<id>.json, then
// storage/message/<id>/<message>.json in order of time.created (then id),
// each followed by storage/part/<message>/<part>.json in id order, then
// storage/todo/<id>.json. It holds the list of the session's messages
// (id and time) and of one message's part files, never their content.
type storageSession struct {
	storage string
	file    string
	id      string
	phase   int // 0 session, 1 messages, 2 todo, 3 done
	msgs    []storedMessage
	m       int      // the next message
	parts   []string // the current message's part files, sorted
	p       int
}

type storedMessage struct {
	id      string
	created uint64
}

func openStorageSession(storage, file, id string) (io.ReadCloser, error) {
	s := &storageSession{storage: storage, file: file, id: id}
	// The messages are sorted by creation, which only their files tell.
	dir := filepath.Join(storage, "message", id)
	names, err := jsonFiles(dir)
	if err != nil {
		return nil, err
	}
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			return nil, err
		}
		m := storedMessage{id: strings.TrimSuffix(n, ".json")}
		m.created, _ = jsonobj.ParseUint(gjson.GetBytes(b, "time.created"), jsonobj.U64)
		s.msgs = append(s.msgs, m)
	}
	sort.SliceStable(s.msgs, func(i, j int) bool {
		a, b := s.msgs[i], s.msgs[j]
		return a.created < b.created || (a.created == b.created && a.id < b.id)
	})
	return &lineReader{next: s.next}, nil
}

// jsonFiles lists the .json files of a directory, sorted; none when it
// does not exist.
func jsonFiles(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range ents {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".json") {
			out = append(out, e.Name())
		}
	}
	sort.Strings(out)
	return out, nil
}

func (s *storageSession) next(buf []byte) ([]byte, error) {
	for {
		switch s.phase {
		case 0:
			s.phase = 1
			return s.record(buf, s.file, "session", s.id, "", "")
		case 1:
			if s.p < len(s.parts) {
				name := s.parts[s.p]
				s.p++
				mid := s.msgs[s.m-1].id
				return s.record(buf, filepath.Join(s.storage, "part", mid, name), "part", strings.TrimSuffix(name, ".json"), mid, s.id)
			}
			if s.m >= len(s.msgs) {
				s.phase = 2
				continue
			}
			m := s.msgs[s.m]
			s.m++
			parts, err := jsonFiles(filepath.Join(s.storage, "part", m.id))
			if err != nil {
				return buf, err
			}
			s.parts, s.p = parts, 0
			return s.record(buf, filepath.Join(s.storage, "message", s.id, m.id+".json"), "message", m.id, "", s.id)
		case 2:
			s.phase = 3
			f := filepath.Join(s.storage, "todo", s.id+".json")
			if _, err := os.Stat(f); err == nil {
				return s.record(buf, f, "todo", "", "", s.id)
			}
		default:
			return buf, io.EOF
		}
	}
}

// record appends the line of one file: the frame (the ids, from the
// file's path, as opencode's migration takes them) and the record,
// compacted, less the ids the frame states (the database keeps them in
// columns, not in the record, and so the lines of both storages agree).
// An id the record states otherwise than its path stays in it.
func (s *storageSession) record(buf []byte, file, typ, id, messageID, sessionID string) ([]byte, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return buf, err
	}
	data, ok := compactJSON(nil, b)
	if !ok {
		return buf, fmt.Errorf("%s: not a JSON document", file)
	}
	buf = append(buf, `{"type":`...)
	buf = jsonenc.String(buf, typ)
	frame := map[string]string{}
	if id != "" {
		buf = append(buf, `,"id":`...)
		buf = jsonenc.String(buf, id)
		frame["id"] = id
	}
	if messageID != "" {
		buf = append(buf, `,"messageID":`...)
		buf = jsonenc.String(buf, messageID)
		frame["messageID"] = messageID
	}
	if sessionID != "" {
		buf = append(buf, `,"sessionID":`...)
		buf = jsonenc.String(buf, sessionID)
		frame["sessionID"] = sessionID
	}
	buf = append(buf, `,"data":`...)
	if typ == "session" {
		// The session's record is kept whole: its id is its own.
		buf = append(buf, data...)
	} else {
		buf = appendWithout(buf, data, frame)
	}
	return append(buf, "}\n"...), nil
}

// appendWithout appends a JSON value; an object less the members whose
// key and string value frame holds. Keys and values keep their text.
func appendWithout(buf, data []byte, frame map[string]string) []byte {
	v := gjson.ParseBytes(data)
	if !v.IsObject() {
		return append(buf, data...)
	}
	buf = append(buf, '{')
	first := true
	jsonobj.ForEach(v, func(k, e gjson.Result) bool {
		if want, ok := frame[k.Str]; ok && e.Type == gjson.String && e.Str == want {
			return true
		}
		if !first {
			buf = append(buf, ',')
		}
		first = false
		buf = append(buf, k.Raw...)
		buf = append(buf, ':')
		buf = append(buf, e.Raw...)
		return true
	})
	return append(buf, '}')
}
