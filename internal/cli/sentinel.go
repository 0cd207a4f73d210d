package cli

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"unicode"

	"github.com/redis/go-redis/v9"

	"github.com/redlock-tui/redlock-tui/internal/app"
	"github.com/redlock-tui/redlock-tui/redlock"
)

// A master named through its Sentinels is given as
//
//	redis+sentinel://[user[:password]@]host[:port][,host[:port]...]/MASTERNAME[/db]
//
// (rediss+sentinel:// for TLS to the Sentinels and the primary): one master of the Redlock set, whichever
// server its Sentinels name as its primary now. The user and password are the primary's, as in a redis://
// URL; the Sentinels are reached without credentials. A host without a port means the Sentinels' port, 26379.

// Sentinel URL schemes and the Sentinels' default port.
const (
	sentinelScheme      = "redis+sentinel"
	sentinelTLSScheme   = "rediss+sentinel"
	defaultSentinelPort = "26379"
)

// sentinelRest returns entry without its redis+sentinel:// or rediss+sentinel:// scheme (in any case), and
// whether it has one, and which.
func sentinelRest(entry string) (rest string, withTLS, ok bool) {
	scheme, rest, found := strings.Cut(entry, "://")
	switch strings.ToLower(scheme) {
	case sentinelScheme:
		return rest, false, found
	case sentinelTLSScheme:
		return rest, true, found
	}
	return "", false, false
}

// splitMasters splits one --masters value (or one entry of a profile's masters) at its commas, except those
// between the Sentinels of a redis+sentinel:// entry, whose list ends at the slash before the master name.
func splitMasters(val string) []string {
	var out []string
	for _, part := range strings.Split(val, ",") {
		if n := len(out); n > 0 {
			if rest, _, ok := sentinelRest(strings.TrimSpace(out[n-1])); ok && !strings.Contains(rest, "/") {
				out[n-1] += "," + part
				continue
			}
		}
		out = append(out, part)
	}
	return out
}

// parseSentinelURL parses a redis+sentinel:// entry (see above). Its messages show the entry without its
// password. The key it returns is empty: a Sentinel master is known by its Sentinel.Keys (see sameMaster).
func parseSentinelURL(entry string, withTLS bool, rest string) (app.Master, string, error) {
	hosts, path, hasPath := strings.Cut(rest, "/")
	user, password, hasPassword := "", "", false
	if at := strings.LastIndex(hosts, "@"); at >= 0 {
		info := hosts[:at]
		hosts = hosts[at+1:]
		u, p, hasP := strings.Cut(info, ":")
		var err1, err2 error
		user, err1 = url.PathUnescape(u)
		password, err2 = url.PathUnescape(p)
		hasPassword = hasP
		if err := errors.Join(err1, err2); err != nil {
			return app.Master{}, "", fmt.Errorf("malformed URL: bad escape in its user or password")
		}
	}
	scheme, _, _ := strings.Cut(entry, "://")
	shown := strings.ToLower(scheme) + "://"
	if user != "" || hasPassword {
		shown += url.PathEscape(user)
		if hasPassword {
			shown += ":xxxxx"
		}
		shown += "@"
	}
	shown += hosts
	if hasPath {
		shown += "/" + path
	}
	bad := func(format string, args ...any) (app.Master, string, error) {
		return app.Master{}, "", fmt.Errorf("%q: %s (want %s://host:26379[,host:26379]/MASTERNAME)", shown,
			fmt.Sprintf(format, args...), sentinelScheme)
	}
	if strings.ContainsAny(path, "?#") {
		return bad("query parameters and fragments are not supported")
	}
	var addrs []string
	for _, h := range strings.Split(hosts, ",") {
		host, port, err := sentinelHostPort(strings.TrimSpace(h))
		if err != nil {
			return bad("Sentinel %q: %v", h, err)
		}
		addrs = append(addrs, net.JoinHostPort(host, port))
	}
	nameText, dbText, hasDB := strings.Cut(path, "/")
	name, err := url.PathUnescape(nameText)
	switch {
	case err != nil:
		return bad("bad escape in the master name")
	case name == "":
		return bad("no master name")
	case strings.IndexFunc(name, func(r rune) bool { return unicode.IsSpace(r) || !unicode.IsPrint(r) }) >= 0:
		return bad("master name %q has a space or a control character", name)
	}
	db := 0
	if hasDB {
		if db, err = strconv.Atoi(dbText); err != nil || db < 0 {
			return bad("database %q is not a number from 0", dbText)
		}
	}
	spec := redlock.Sentinel{MasterName: name, Addrs: addrs}
	m := app.Master{Name: spec.Name(), Sentinel: &spec,
		Options: &redis.Options{Network: "tcp", Addr: addrs[0], Username: user, Password: password, DB: db}}
	if db != 0 {
		m.Name += "/" + strconv.Itoa(db)
	}
	if withTLS {
		host, _, _ := net.SplitHostPort(addrs[0])
		m.Options.TLSConfig = &tls.Config{ServerName: host} // each server is verified under its own name when dialled
		m.Name = "rediss://" + m.Name
	}
	return m, "", nil
}

// sentinelHostPort splits one Sentinel's host[:port] and checks both; without a port it is 26379.
func sentinelHostPort(s string) (host, port string, err error) {
	if s == "" {
		return "", "", errors.New("empty address")
	}
	if !strings.Contains(s, ":") || strings.HasPrefix(s, "[") && strings.HasSuffix(s, "]") {
		s = net.JoinHostPort(strings.Trim(s, "[]"), defaultSentinelPort)
	}
	return splitHostPort(s)
}

// sameMaster returns the name of an earlier master that m (parsed with key, parseMaster's) is the same as,
// by redlock's rule (a master given by address: its ServerKey; one named through Sentinels: its name with
// any of its Sentinels), or records m in seen and returns "" when there is none.
func sameMaster(seen map[string]string, m app.Master, key string) string {
	keys := []string{key}
	if m.Sentinel != nil {
		keys = m.Sentinel.Keys()
	}
	for _, k := range keys {
		if first, dup := seen[k]; dup {
			return first
		}
	}
	for _, k := range keys {
		seen[k] = m.Name
	}
	return ""
}
