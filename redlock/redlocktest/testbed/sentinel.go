package testbed

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// SentinelOptions configures StartSentinelGroup. Zero fields take the defaults documented on each.
type SentinelOptions struct {
	MasterName string        // the name the Sentinels know the primary by; default "mymaster"
	Replicas   int           // replicas of the primary; default 1
	Sentinels  int           // Sentinels watching it; default 3, with a quorum of a majority of them
	DownAfter  time.Duration // down-after-milliseconds: how long a silent primary takes to be down; default 5s
}

// withDefaults returns o with every zero field set to its default.
func (o SentinelOptions) withDefaults() SentinelOptions {
	if o.MasterName == "" {
		o.MasterName = "mymaster"
	}
	if o.Replicas <= 0 {
		o.Replicas = 1
	}
	if o.Sentinels <= 0 {
		o.Sentinels = 3
	}
	if o.DownAfter <= 0 {
		// Long enough that a loaded machine's stall is not taken for a dead primary, which would fail over
		// in the middle of a test; tests that kill the primary wait this long, tests that fail over on
		// purpose use Failover, which does not wait for it.
		o.DownAfter = 5 * time.Second
	}
	return o
}

// SentinelGroup is a primary, its replicas and the Sentinels that watch them under one master name, all real
// redis-server processes on loopback ports: one master of a Redlock set as Sentinel deployments make it.
type SentinelGroup struct {
	Name      string    // the master name
	Servers   []*Server // the data nodes: the primary at the start, then its replicas
	Sentinels []*Server // redis-server --sentinel processes
}

// StartSentinelGroup starts the primary, its replicas (waiting until each has synchronised), then the
// Sentinels, and waits until every Sentinel names the primary, knows every replica and every other Sentinel,
// so that Failover is accepted at once. ctx bounds the wait; on error everything started is closed.
func StartSentinelGroup(ctx context.Context, opts SentinelOptions) (*SentinelGroup, error) {
	opts = opts.withDefaults()
	g := &SentinelGroup{Name: opts.MasterName}
	ok := false
	defer func() {
		if !ok {
			g.Close()
		}
	}()
	primary, err := StartServer(ServerOptions{})
	if err != nil {
		return nil, err
	}
	g.Servers = append(g.Servers, primary)
	for range opts.Replicas {
		r, err := StartServer(ServerOptions{Args: []string{"--replicaof", "127.0.0.1", strconv.Itoa(primary.Port())}})
		if err != nil {
			return nil, err
		}
		g.Servers = append(g.Servers, r)
	}
	for _, r := range g.Servers[1:] {
		if err := waitFor(ctx, func(ctx context.Context) error { return linkUp(ctx, r) }); err != nil {
			return nil, fmt.Errorf("testbed: replica %s did not synchronise with %s: %w", r.Addr(), primary.Addr(), err)
		}
	}
	conf := fmt.Sprintf("sentinel monitor %s 127.0.0.1 %d %d\n"+
		"sentinel down-after-milliseconds %[1]s %[4]d\n"+
		"sentinel failover-timeout %[1]s 10000\n"+
		"sentinel parallel-syncs %[1]s 1\n", opts.MasterName, primary.Port(), opts.Sentinels/2+1, opts.DownAfter.Milliseconds())
	for range opts.Sentinels {
		s, err := startSentinel(conf)
		if err != nil {
			return nil, err
		}
		g.Sentinels = append(g.Sentinels, s)
	}
	if err := waitFor(ctx, g.ready); err != nil {
		return nil, fmt.Errorf("testbed: Sentinels of %s not ready: %w", g.Name, err)
	}
	ok = true
	return g, nil
}

// sentinelConfFile is the name of a Sentinel's configuration file in its directory.
const sentinelConfFile = "sentinel.conf"

// startSentinel starts a Sentinel on a free loopback port with configuration conf.
func startSentinel(conf string) (*Server, error) {
	return startServer(&Server{sentinelConf: sentinelConfFile}, func(dir string) error {
		return os.WriteFile(filepath.Join(dir, sentinelConfFile), []byte(conf), 0o600)
	})
}

// sentinelArgs is the command line of a Sentinel with the options every server gets (common): its
// configuration file first, which it rewrites as it learns the primary, replicas and other Sentinels, so that a
// Sentinel started again after Stop remembers them.
func (s *Server) sentinelArgs(common []string) []string {
	return append([]string{filepath.Join(s.dir, s.sentinelConf), "--sentinel"}, common...)
}

// SentinelAddrs returns the Sentinels' addresses, "127.0.0.1:PORT".
func (g *SentinelGroup) SentinelAddrs() []string {
	addrs := make([]string, len(g.Sentinels))
	for i, s := range g.Sentinels {
		addrs[i] = s.Addr()
	}
	return addrs
}

// Primary returns the data node that the first Sentinel to answer names as the primary.
func (g *SentinelGroup) Primary(ctx context.Context) (*Server, error) {
	var errs []error
	for _, s := range g.Sentinels {
		addr, err := primaryOf(ctx, s, g.Name)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		return g.server(addr)
	}
	return nil, fmt.Errorf("testbed: no Sentinel named the primary of %s: %w", g.Name, errors.Join(errs...))
}

// Failover makes the Sentinels fail the primary over to a replica (SENTINEL FAILOVER, asked again while a
// Sentinel answers that it has no replica good enough yet or a failover is in progress), then waits until
// every Sentinel names the new primary and it says it is a master. It returns the former and the new primary.
// A forced failover does not wait for the replica to have every write: WAIT on the primary first for a test
// that needs them.
func (g *SentinelGroup) Failover(ctx context.Context) (from, to *Server, err error) {
	if from, err = g.Primary(ctx); err != nil {
		return nil, nil, err
	}
	c := g.Sentinels[0].NewClient()
	defer c.Close()
	err = waitFor(ctx, func(ctx context.Context) error {
		err := c.Do(ctx, "sentinel", "failover", g.Name).Err()
		if redis.HasErrorPrefix(err, "NOGOODSLAVE") || redis.HasErrorPrefix(err, "INPROG") {
			return err // retried until ctx ends
		}
		if err != nil {
			return permanent{err}
		}
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("testbed: SENTINEL FAILOVER %s: %w", g.Name, err)
	}
	err = waitFor(ctx, func(ctx context.Context) error {
		var named string
		for _, s := range g.Sentinels {
			addr, err := primaryOf(ctx, s, g.Name)
			switch {
			case err != nil:
				return err
			case addr == from.Addr():
				return fmt.Errorf("%s still names %s", s.Addr(), addr)
			case named != "" && addr != named:
				return fmt.Errorf("the Sentinels name %s and %s", named, addr)
			}
			named = addr
		}
		s, err := g.server(named)
		if err != nil {
			return err
		}
		if role, err := infoField(ctx, s, "replication", "role"); err != nil || role != "master" {
			return fmt.Errorf("%s is %q (%v), not yet a master", s.Addr(), role, err)
		}
		to = s
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("testbed: failover of %s from %s: %w", g.Name, from.Addr(), err)
	}
	return from, to, nil
}

// Close kills every process of the group. It is idempotent.
func (g *SentinelGroup) Close() error {
	var errs []error
	for _, s := range append(append([]*Server{}, g.Sentinels...), g.Servers...) {
		errs = append(errs, s.Close())
	}
	return errors.Join(errs...)
}

// server returns the data node at addr.
func (g *SentinelGroup) server(addr string) (*Server, error) {
	for _, s := range g.Servers {
		if s.Addr() == addr {
			return s, nil
		}
	}
	return nil, fmt.Errorf("testbed: %s is none of the data nodes of %s", addr, g.Name)
}

// ready reports nil once every Sentinel names the primary, sees every replica connected to it, and knows the
// other Sentinels.
func (g *SentinelGroup) ready(ctx context.Context) error {
	for _, s := range g.Sentinels {
		c := s.NewClient()
		master, err := c.Do(ctx, "sentinel", "master", g.Name).Result()
		if err != nil {
			c.Close()
			return fmt.Errorf("%s: %w", s.Addr(), err)
		}
		replicas, err := c.Do(ctx, "sentinel", "replicas", g.Name).Result()
		c.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", s.Addr(), err)
		}
		fields := pairs(master)
		if want := strconv.Itoa(len(g.Sentinels) - 1); fields["num-other-sentinels"] != want {
			return fmt.Errorf("%s knows %s other Sentinels, want %s", s.Addr(), fields["num-other-sentinels"], want)
		}
		list, _ := replicas.([]any)
		good := 0
		for _, r := range list {
			f := pairs(r)
			if f["master-link-status"] == "ok" && !strings.Contains(f["flags"], "disconnected") && !strings.Contains(f["flags"], "down") {
				good++
			}
		}
		if good != len(g.Servers)-1 {
			return fmt.Errorf("%s sees %d of %d replicas connected", s.Addr(), good, len(g.Servers)-1)
		}
	}
	return nil
}

// pairs reads a Sentinel's description of an instance: a map in RESP3, a flat list of names and values in
// RESP2.
func pairs(v any) map[string]string {
	out := map[string]string{}
	switch v := v.(type) {
	case map[any]any:
		for k, x := range v {
			out[fmt.Sprint(k)] = fmt.Sprint(x)
		}
	case []any:
		for i := 0; i+1 < len(v); i += 2 {
			out[fmt.Sprint(v[i])] = fmt.Sprint(v[i+1])
		}
	}
	return out
}

// primaryOf asks Sentinel s for the address of master name's primary.
func primaryOf(ctx context.Context, s *Server, name string) (string, error) {
	c := s.NewClient()
	defer c.Close()
	addr, err := c.Do(ctx, "sentinel", "get-master-addr-by-name", name).StringSlice()
	if err != nil {
		return "", fmt.Errorf("%s: %w", s.Addr(), err)
	}
	if len(addr) != 2 {
		return "", fmt.Errorf("%s: %q is not an address", s.Addr(), addr)
	}
	return net.JoinHostPort(addr[0], addr[1]), nil
}

// linkUp reports nil once replica r's link to its primary is up.
func linkUp(ctx context.Context, r *Server) error {
	status, err := infoField(ctx, r, "replication", "master_link_status")
	if err == nil && status != "up" {
		err = fmt.Errorf("master_link_status %q", status)
	}
	return err
}

// infoField returns one field of s's INFO section.
func infoField(ctx context.Context, s *Server, section, field string) (string, error) {
	c := s.NewClient()
	defer c.Close()
	text, err := c.Info(ctx, section).Result()
	if err != nil {
		return "", err
	}
	for _, line := range strings.Split(text, "\n") {
		if k, v, ok := strings.Cut(strings.TrimSpace(line), ":"); ok && k == field {
			return v, nil
		}
	}
	return "", fmt.Errorf("no %s in INFO %s", field, section)
}

// permanent marks an error that waitFor does not retry.
type permanent struct{ error }

func (p permanent) Unwrap() error { return p.error }

// waitFor calls f, each time within a second of ctx, every 50ms until it returns nil or a permanent error, or
// ctx ends; it returns f's last error.
func waitFor(ctx context.Context, f func(context.Context) error) error {
	for {
		attempt, cancel := context.WithTimeout(ctx, time.Second)
		err := f(attempt)
		cancel()
		var p permanent
		switch {
		case err == nil:
			return nil
		case errors.As(err, &p):
			return p.error
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w (last: %v)", ctx.Err(), err)
		case <-time.After(50 * time.Millisecond):
		}
	}
}
