package outfile_test

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/evtool/evtool/internal/outfile"
)

// A command declares what it reads and writes, opens its outputs
// together, writes them, and commits them together on success.
func Example() {
	dir, _ := os.MkdirTemp("", "outfile-example")
	defer os.RemoveAll(dir)
	in := filepath.Join(dir, "in.jsonl")
	os.WriteFile(in, []byte("{}\n[\n"), 0o644)

	// validate in.jsonl --valid-out in.jsonl: refused before anything is
	// written, whatever the spelling.
	s := outfile.NewSet()
	s.Input(in)
	s.Stream("stdout", os.Stdout)
	s.Add("--valid-out", dir+"/./in.jsonl")
	if err := s.Open(); err != nil {
		fmt.Println(strings.ReplaceAll(err.Error(), dir, "DIR"))
	}

	// validate in.jsonl --valid-out v.jsonl --invalid-out i.jsonl
	s = outfile.NewSet()
	s.Input(in)
	s.Stream("stdout", os.Stdout)
	valid := s.Add("--valid-out", filepath.Join(dir, "v.jsonl"))
	invalid := s.Add("--invalid-out", filepath.Join(dir, "i.jsonl"))
	defer s.AbortAll() // removes the temporary files unless committed
	if err := s.Open(); err != nil {
		fmt.Println(err)
		return
	}
	io.WriteString(valid, "{}\n")
	io.WriteString(invalid, "[\n")
	if err := s.CommitAll(); err != nil {
		fmt.Println(err)
		return
	}
	v, _ := os.ReadFile(filepath.Join(dir, "v.jsonl"))
	i, _ := os.ReadFile(filepath.Join(dir, "i.jsonl"))
	fmt.Printf("%q %q\n", v, i)
	// Output:
	// --valid-out DIR/./in.jsonl: is the same file as the input DIR/in.jsonl
	// "{}\n" "[\n"
}
