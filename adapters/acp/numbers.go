package acp

import (
	"strconv"

	"github.com/evtool/evtool/internal/jsonenc"
)

// finiteNumbers returns raw JSON with every number that float64 cannot
// hold (1e400, say) written as a string of the same text, and whether it
// changed anything. ACP clients read JSON numbers as doubles: the Go SDK's
// typed values refuse such a number and drop the whole message, and a
// JavaScript client turns it into Infinity and then null. As a string the
// exact text still reaches them.
func finiteNumbers(raw []byte) ([]byte, bool) {
	var out []byte
	last := 0
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		switch {
		case c == '"':
			i = jsonenc.SkipString(raw, i) - 1
		case c == '-' || c >= '0' && c <= '9':
			j := i
			big := false
			for j < len(raw) && (raw[j] == '-' || raw[j] == '+' || raw[j] == '.' || raw[j] == 'e' || raw[j] == 'E' || raw[j] >= '0' && raw[j] <= '9') {
				if raw[j] == 'e' || raw[j] == 'E' {
					big = true // only an exponent takes a number out of range
				}
				j++
			}
			if big || j-i > 300 {
				if _, err := strconv.ParseFloat(string(raw[i:j]), 64); err != nil {
					out = append(out, raw[last:i]...)
					out = append(append(append(out, '"'), raw[i:j]...), '"')
					last = j
				}
			}
			i = j - 1
		}
	}
	if out == nil {
		return raw, false
	}
	return append(out, raw[last:]...), true
}
