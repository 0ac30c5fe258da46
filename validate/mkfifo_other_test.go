//go:build !unix

package validate_test

import "errors"

func mkfifo(string) error { return errors.New("no named pipes") }
