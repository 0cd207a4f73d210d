package whoholds

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/redlock-tui/redlock-tui/monitor"
	"github.com/redlock-tui/redlock-tui/monitor/vocab/untrusted"
)

// Target is where a lock is sampled: one master, and the holder's tokens as that master has them.
type Target struct {
	Master string   // the master's name: the snapshot's, or a Redis Cluster's primary that owns the key
	Key    string   // the lock's key, raw
	Tokens []string // raw; none when the key holds no token there that could be matched
}

// ErrNotOnAnyMaster is TargetOf's answer for a lock whose key no master that answered has.
var ErrNotOnAnyMaster = errors.New("no master that answered has the lock's key: nothing to sample")

// TargetOf picks where to sample lock v of snapshot s: the first master that answered the last poll and holds
// the lock's leading token (its holder's, or the most common one), else the first that has the key. A holder
// writes its token to every master, so one is enough; the tokens are that master's own, since a Redisson
// RedLock's holder field differs from master to master.
func TargetOf(s *monitor.Snapshot, v *monitor.LockView) (Target, error) {
	lead := monitor.LeadToken(v)
	pick := -1
	for j, c := range v.Masters {
		if j >= len(s.Masters) || !s.Masters[j].Up || s.Masters[j].DuplicateOf != "" || !c.Present() {
			continue
		}
		if c.Token == lead {
			pick = j
			break
		}
		if pick < 0 {
			pick = j
		}
	}
	if pick < 0 {
		return Target{}, ErrNotOnAnyMaster
	}
	c := v.Masters[pick]
	t := Target{Master: s.Masters[pick].Addr, Key: v.Resource, Tokens: cellTokens(c)}
	if c.Node() != "" {
		t.Master = c.Node()
	}
	return t, nil
}

// cellTokens are the tokens a master's cell holds: a hash lock's holder fields, a sorted set's members, a
// string's value.
func cellTokens(c monitor.MasterLock) []string {
	switch {
	case c.Set() != nil:
		var out []string
		for _, m := range c.Set() {
			if m.Member != "__write__" { // Symfony Lock's marker beside a writer's token
				out = append(out, m.Member)
			}
		}
		return out
	case c.Hash():
		return strings.Split(c.Token, ",")
	case c.Token != "":
		return []string{c.Token}
	}
	return nil
}

// Masters are the masters a sample may run on, by the names a snapshot gives them, each with the client that
// reaches it: its options (address, TLS, credentials) open the sampling connection.
type Masters struct {
	clients map[string]*redis.Client
}

// NewMasters returns the masters of clients, named by names (aligned with clients, as monitor.New takes them).
func NewMasters(clients []*redis.Client, names []string) *Masters {
	m := &Masters{clients: map[string]*redis.Client{}}
	for i, c := range clients {
		if i < len(names) && c != nil {
			m.clients[names[i]] = c
		}
	}
	return m
}

// Sample samples t's master for its lock (see Sample), for d and at most maxLines lines (0: the defaults).
func (m *Masters) Sample(ctx context.Context, t Target, d time.Duration, maxLines int) (Report, error) {
	c, ok := m.clients[t.Master]
	if !ok {
		return Report{}, fmt.Errorf("%s is not one of the masters given: it cannot be sampled", untrusted.Escape(t.Master))
	}
	return Sample(ctx, c, t.Master, Request{Key: t.Key, Tokens: t.Tokens, For: d, MaxLines: maxLines})
}

// Hints are what the lock's values say of its holder without sampling, one line each, safe for a terminal:
// Redisson's instance id and thread id from a hash lock's holder field "<instance-uuid>:<thread-id>" (every
// master's: a Redisson RedLock takes each master through another instance), and the identifier suffix a
// redis-semaphore client puts after its UUID. Nil when they say nothing.
func Hints(v *monitor.LockView) []string {
	var out []string
	add := func(s string) {
		if !slices.Contains(out, s) && len(out) < maxHints {
			out = append(out, s)
		}
	}
	lead := monitor.LeadToken(v)
	for _, c := range v.Masters {
		if !c.Hash() || c.Token == "" {
			continue
		}
		for _, f := range strings.Split(c.Token, ",") {
			i := strings.LastIndexByte(f, ':')
			if i <= 0 {
				continue
			}
			add("Redisson instance " + untrusted.Escape(f[:i]) + ", thread " + untrusted.Escape(f[i+1:]) +
				" (from its hash field)")
		}
	}
	if slices.Contains(v.Families, "redis-semaphore") {
		if m := semaphoreSuffix.FindStringSubmatch(lead); m != nil {
			add("redis-semaphore client with identifier suffix " + untrusted.Escape(m[1]) + " (from its token)")
		}
	}
	return out
}

// maxHints bounds Hints' lines: a read-write lock read by many threads has as many holder fields.
const maxHints = 8

// semaphoreSuffix reads redis-semaphore's identifier: a UUID, then "-<identifierSuffix>" when the client was
// given one.
var semaphoreSuffix = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}-(.+)$`)
