package openset

import "encoding/binary"

// Pack joins strings into one, each after its length, for a caller that
// keeps a few fields of an entry in its name (Add); Fields reads them
// back. A packed name over 64 bytes is kept inline, never numbered.
func Pack(fields ...string) string {
	n := 0
	for _, f := range fields {
		n += binary.MaxVarintLen64 + len(f)
	}
	b := make([]byte, 0, n)
	for _, f := range fields {
		b = binary.AppendUvarint(b, uint64(len(f)))
		b = append(b, f...)
	}
	return string(b)
}

// Fields appends to dst the strings Pack joined into s, which share its
// memory. A string that Pack did not make yields what could be read of it.
func Fields(dst []string, s string) []string {
	for s != "" {
		n, w := binary.Uvarint([]byte(s[:min(len(s), binary.MaxVarintLen64)]))
		if w <= 0 || n > uint64(len(s)-w) {
			return dst
		}
		dst = append(dst, s[w:w+int(n)])
		s = s[w+int(n):]
	}
	return dst
}
