package cli

import (
	"errors"
	"io"
	"slices"
	"strings"
	"syscall"

	"github.com/redlock-tui/redlock-tui/internal/app"
)

// Error texts that name the next step. A master's error is the server's or the network's own words ("NOAUTH
// Authentication required.", "EOF"); where those words have a usual cause that a flag of this program fixes,
// the advice names the flag.

// Advice for the errors that have a usual fix.
const (
	adviceNoAuth    = "the master needs a password: set $REDISCLI_AUTH or give --password-file (in a profile: password_env or password_file)"
	adviceWrongPass = "check the user and the password: a URL's own, else --password-file, else $REDISCLI_AUTH (in a profile: password_env or password_file)"
	adviceNeedsTLS  = "the server may require TLS: use rediss:// (in a profile: tls = true)"
	adviceCluster   = "the master is a node of a Redis Cluster, which is one lock service: give the cluster's nodes alone " +
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
// connection end (EOF) or reset. (The other way round, a TLS handshake with a plain port, redis-server waits
// for the end of a line that never comes: a timeout, which says nothing certain.)
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
	case strings.HasPrefix(msg, "MOVED ") || strings.HasPrefix(msg, "ASK "):
		return adviceCluster // a cluster's node not known as one at the start (an ACL refusing INFO and CLUSTER)
	case !tls && (errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) ||
		strings.Contains(msg, "EOF") || strings.Contains(msg, "connection reset by peer")):
		return adviceNeedsTLS
	}
	return ""
}

// anyAdvice is the advice for an error that may come from any of masters (a Redlock round's), "" when none
// applies: an EOF is taken for a TLS port only when some master connects without TLS.
func anyAdvice(err error, masters []app.Master) string {
	plain := slices.ContainsFunc(masters, func(m app.Master) bool { return m.Options.TLSConfig == nil })
	return advice(err, !plain)
}
