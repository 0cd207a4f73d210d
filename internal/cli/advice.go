package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/redlock-tui/redlock-tui/internal/app"
	"github.com/redlock-tui/redlock-tui/redlock"
)

// Error texts that name the next step. A master's error is the server's or the network's own words ("NOAUTH
// Authentication required.", "EOF"); where those words have a usual cause that a flag of this program fixes,
// the advice names the flag.

// Advice for the errors that have a usual fix.
const (
	adviceNoAuth    = "the master needs a password: set $REDISCLI_AUTH or give --password-file (in a profile: password_env or password_file)"
	adviceWrongPass = "check the user and the password: a URL's own, else --password-file, else $REDISCLI_AUTH (in a profile: password_env or password_file)"
	adviceNeedsTLS  = "the server may require TLS: use rediss:// (in a profile: tls = true)"
	adviceNoTLS     = "the server may not speak TLS on this port (a plain port leaves the TLS handshake unanswered): " +
		"use redis:// (in a profile: tls = false), or the port of its tls-port"
	adviceScriptsACL = "the user needs +eval and +evalsha (docs/acl.md): the client loads its release and extend scripts " +
		"with EVAL and runs them with EVALSHA"
	adviceScriptsRenamed = "the master's configuration renames EVAL or EVALSHA away (rename-command): a Redlock master needs both"
	adviceCluster        = "the master is a node of a Redis Cluster, which is one lock service: give the cluster's nodes alone " +
		"(or --cluster) to watch and lock on it as one"
)

// connectionAdvice returns the monitor's Config.Advise for masters: what to do about a refused login, or about
// a plain connection to a TLS port.
func connectionAdvice(masters []app.Master) func(addr string, err error) string {
	tls := make(map[string]bool, len(masters))
	for _, m := range masters {
		tls[m.Name] = m.Options.TLSConfig != nil
	}
	return func(addr string, err error) string { return advice(err, tls[addr]) }
}

// advice says what to do about err, met by a connection with TLS or without, or "" when there is no usual fix.
// A plain connection to a TLS port is closed by the server as soon as the client speaks: the client sees the
// connection end (EOF) or reset. The other way round, a TLS handshake with a plain port, redis-server waits
// for the end of a line that never comes: the handshake times out once connected (a connection that could not
// be made says "dial"), or, when the server answers the handshake's bytes with an error line, the client finds
// no TLS record. A timeout is not proof, so the advice says "may".
func advice(err error, tls bool) string {
	if err == nil {
		return ""
	}
	msg := err.Error()
	switch {
	case strings.Contains(msg, "NOAUTH"):
		return adviceNoAuth
	case strings.Contains(msg, "WRONGPASS") || strings.Contains(msg, "invalid username-password") ||
		strings.Contains(msg, "invalid password"):
		return adviceWrongPass
	case strings.Contains(msg, "cannot run Lua scripts") && strings.Contains(msg, "NOPERM"):
		return adviceScriptsACL
	case strings.Contains(msg, "cannot run Lua scripts"):
		return adviceScriptsRenamed
	case strings.HasPrefix(msg, "MOVED ") || strings.HasPrefix(msg, "ASK "):
		return adviceCluster // a cluster's node not known as one at the start (an ACL refusing INFO and CLUSTER)
	case !tls && (errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) ||
		strings.Contains(msg, "EOF") || strings.Contains(msg, "connection reset by peer")):
		return adviceNeedsTLS
	case tls && strings.Contains(msg, "first record does not look like a TLS handshake"):
		return adviceNoTLS
	case tls && !strings.Contains(msg, "dial ") && (errors.Is(err, context.DeadlineExceeded) ||
		strings.Contains(msg, "context deadline exceeded") || strings.Contains(msg, "i/o timeout")):
		return adviceNoTLS
	}
	return ""
}

// anyAdvice is the advice for an error that may come from any of masters (a Redlock round's), "" when none
// applies. A round's error is advised master by master, each named, with what that master said (a timeout
// where it said nothing) and whether it connects with TLS; any other error as a whole, an EOF taken for a TLS
// port only when some master connects without TLS.
func anyAdvice(err error, masters []app.Master) string {
	var re *redlock.RoundError
	if errors.As(err, &re) {
		var out []string
		for _, n := range re.Round.Nodes {
			nerr := n.Err
			if nerr == nil && n.Outcome == redlock.OutcomeTimeout {
				nerr = context.DeadlineExceeded
			}
			if nerr == nil {
				continue
			}
			if a := advice(nerr, masterTLS(masters, n.Addr)); a != "" {
				out = append(out, n.Addr+": "+a)
			}
		}
		if len(out) > 0 {
			return strings.Join(out, "; ")
		}
	}
	plain := slices.ContainsFunc(masters, func(m app.Master) bool { return m.Options.TLSConfig == nil })
	return advice(err, !plain)
}

// masterTLS reports whether the master at addr (a round's address for it) connects with TLS.
func masterTLS(masters []app.Master, addr string) bool {
	for _, m := range masters {
		if m.Options.Addr == addr || m.Name == addr {
			return m.Options.TLSConfig != nil
		}
	}
	return false
}

// waitHint is what run adds to its "not acquired" message (exit status 75): how to keep trying, or how long
// it tried.
func waitHint(wait time.Duration) string {
	if wait > 0 {
		return fmt.Sprintf(" (tried for --wait %s)", wait)
	}
	return "; --wait DURATION keeps trying that long (e.g. --wait 30s)"
}
