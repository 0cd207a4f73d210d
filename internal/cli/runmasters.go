package cli

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/redis/go-redis/v9"

	"github.com/redlock-tui/redlock-tui/redlock"
)

// acquiredOn is what the SETs that won run's lock did on the masters it did not land on (redlock's
// Lock.Unreached): which masters cannot hold its key, and why each was not reached.
type acquiredOn struct {
	unreached []redlock.NodeResult
}

// mayHold reports whether master addr may hold the lock's key: it is not among the masters the SET never went
// out to (refused connection, failed TLS handshake, bad DB number or password: Unsent) or that refused it with
// an error reply. Extensions never create a key.
func (a *acquiredOn) mayHold(addr string) bool {
	for _, n := range a.unreached {
		if n.Addr == addr && (n.Unsent || isReply(n.Err)) {
			return false
		}
	}
	return true
}

// sayUnreached writes, once, the masters the winning round did not get the key on for want of an answer or
// because they refused it, each with the reason it gave: a master down shows here, not after every job.
func (a *acquiredOn) sayUnreached(resource string, masters int, w io.Writer) {
	var parts []string
	for _, n := range a.unreached {
		if n.Outcome == redlock.OutcomeTimeout {
			parts = append(parts, n.Addr+" (no answer within the node timeout)")
		} else {
			parts = append(parts, fmt.Sprintf("%s (%v)", n.Addr, n.Err))
		}
	}
	if len(parts) > 0 {
		fmt.Fprintf(w, "redlock-tui run: acquired %q without %d of %d masters: %s\n", resource, len(parts),
			masters, strings.Join(parts, "; "))
	}
}

// unconfirmedWhereHeld lists the masters of a release round that did not confirm the release and may hold
// the key, each with its reason; masters that never got the key are left out, whatever they answered.
func (a *acquiredOn) unconfirmedWhereHeld(r redlock.Round) []string {
	var out []string
	for _, n := range r.Nodes {
		switch n.Outcome {
		case redlock.OutcomeError, redlock.OutcomeTimeout, redlock.OutcomePending, redlock.OutcomeReplica:
			if !a.mayHold(n.Addr) {
				continue
			}
			reason := "no answer"
			if n.Err != nil {
				reason = n.Err.Error()
			}
			out = append(out, fmt.Sprintf("%s (%s)", n.Addr, reason))
		}
	}
	return out
}

// isReply reports whether err is the master's answer to the command: an error reply, which proves it did not
// run it.
func isReply(err error) bool {
	var reply redis.Error
	return errors.As(err, &reply)
}
