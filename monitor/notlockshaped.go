package monitor

import (
	"fmt"

	"github.com/redlock-tui/redlock-tui/internal/textfmt"
)

// NotLockShaped is how many keys with a TTL the masters hold that are not lock-shaped, so not listed (default
// pattern only): the sum over distinct servers of their last full sweep's count (or, before one finished,
// the count so far).
func (s Snapshot) NotLockShaped() int64 {
	var n int64
	for _, m := range s.Masters {
		if m.DuplicateOf == "" {
			n += m.Sweep.NotLockShaped
		}
	}
	return n
}

// notLockShapedText is the line that tells how many keys were left out as not lock-shaped, "" for none.
func notLockShapedText(n int64) string {
	switch {
	case n <= 0:
		return ""
	case n == 1:
		return "1 key with a TTL is not lock-shaped: --pattern shows it"
	}
	return fmt.Sprintf("%s keys with a TTL are not lock-shaped: --pattern shows them", textfmt.Thousands(int(n)))
}
