package monitor

import (
	"fmt"
	"strings"

	"github.com/redlock-tui/redlock-tui/monitor/vocab"
)

// stuckRemedy is what an operator does about a lock key without a TTL: it is never released by expiry, so
// whoever waits for it waits for ever once its holder is gone.
const stuckRemedy = "once its holder is gone (check it), DEL the key, or give it a TTL (PEXPIRE)"

// stuckEventText is the text of a lock-stuck event: the key has no TTL on count masters (appeared: it was first
// seen so), it never expires, and the remedy.
func stuckEventText(appeared bool, count int) string {
	what := "has no TTL"
	if appeared {
		what = "appeared without a TTL"
	}
	return fmt.Sprintf("%s on %s: it never expires; %s", what, vocab.Count(count, "master"), stuckRemedy)
}

// stuckWarningText is the banner's text of lock l without a TTL: the key, the masters where it has none, and
// the remedy.
func stuckWarningText(l *LockView, masters []MasterStatus) string {
	var where []string
	for j, c := range l.Masters {
		if j < len(masters) && c.Present() && c.PTTL == NoTTL {
			where = append(where, masters[j].Addr)
		}
	}
	on := vocab.Count(l.Count, "master")
	if len(where) > 0 {
		on = strings.Join(where, ", ")
	}
	return fmt.Sprintf("lock %s has no TTL on %s: it is never released by expiry; %s", vocab.Quote(l.Resource), on, stuckRemedy)
}
