//go:build unix

package sessions

import (
	"io/fs"
	"strconv"
	"syscall"
)

// fileID names the file a FileInfo is of (device and inode), so that a
// file replaced by another of the same size and time is not taken for it.
func fileID(st fs.FileInfo) string {
	if s, ok := st.Sys().(*syscall.Stat_t); ok {
		return strconv.FormatUint(uint64(s.Dev), 10) + ":" + strconv.FormatUint(s.Ino, 10)
	}
	return ""
}
