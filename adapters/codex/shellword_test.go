package codex

import "testing"

// An argument vector is written as a shell reads it back: each word
// quoted where it must be, as Codex writes "/bin/bash -lc 'exit 42'".
func TestShellWord(t *testing.T) {
	for in, want := range map[string]string{
		"bash": "bash", "-lc": "-lc", "./x_y-1.go": "./x_y-1.go",
		"go test ./...": "'go test ./...'", "": "''", "it's": `'it'\''s'`, "a;b": "'a;b'", "$HOME": "'$HOME'",
	} {
		if got := shellWord(in); got != want {
			t.Errorf("shellWord(%q) = %s, want %s", in, got, want)
		}
	}
}
