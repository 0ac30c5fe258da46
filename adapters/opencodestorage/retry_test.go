package opencodestorage

import (
	"errors"
	"fmt"
	"testing"
)

type sqliteErr int

func (e sqliteErr) Error() string { return fmt.Sprintf("sqlite error (%d)", int(e)) }
func (e sqliteErr) Code() int     { return int(e) }

// TestRetry: a reading SQLite refuses for a moment (busy, or the index of
// the write-ahead log being rebuilt by a writer) is tried again; any other
// error ends it at once.
func TestRetry(t *testing.T) {
	for code, want := range map[int]bool{5: true, 517: true, 264: true, 1288: true, 8: false, 1: false, 11: false} {
		if got := transient(fmt.Errorf("reading: %w", sqliteErr(code))); got != want {
			t.Errorf("transient(%d) = %v, want %v", code, got, want)
		}
	}
	if transient(errors.New("plain")) {
		t.Error("a plain error is transient")
	}
	calls := 0
	err := retry(func() error {
		if calls++; calls < 3 {
			return sqliteErr(264)
		}
		return nil
	})
	if err != nil || calls != 3 {
		t.Errorf("retry: %v after %d calls, want success after 3", err, calls)
	}
	calls = 0
	err = retry(func() error { calls++; return sqliteErr(11) })
	if calls != 1 || !errors.Is(err, sqliteErr(11)) {
		t.Errorf("retry of a lasting error: %d calls, %v", calls, err)
	}
}
