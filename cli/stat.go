package cli

import "os"

// statOf returns the FileInfo of an open stream that is an *os.File.
func statOf(v any) os.FileInfo {
	f, ok := v.(*os.File)
	if !ok {
		return nil
	}
	fi, err := f.Stat()
	if err != nil {
		return nil
	}
	return fi
}
