// Package slots is what the monitor and the Redlock client share to treat a Redis Cluster as one lock
// service: the slot of a key, the cluster's primaries and the slots each owns (CLUSTER SLOTS), and the
// redirections (MOVED, ASK) a node answers for a key it does not serve.
package slots

import (
	"context"
	"errors"
	"net"
	"sort"
	"strconv"
	"strings"

	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"
)

// Count is the number of hash slots of a Redis Cluster.
const Count = 16384

// Of returns the hash slot of key: CRC16 (XMODEM) of the key, or of its hash tag (the text between the
// first "{" and the next "}", when not empty), modulo Count, as Redis Cluster computes it.
func Of(key string) int {
	if i := strings.IndexByte(key, '{'); i >= 0 {
		if j := strings.IndexByte(key[i+1:], '}'); j > 0 {
			key = key[i+1 : i+1+j]
		}
	}
	return int(crc16(key) % Count)
}

// crc16 is CRC-16/XMODEM (polynomial 0x1021, initial value 0), the checksum of Redis Cluster's key slots.
func crc16(s string) uint16 {
	var crc uint16
	for i := 0; i < len(s); i++ {
		crc ^= uint16(s[i]) << 8
		for range 8 {
			if crc&0x8000 != 0 {
				crc = crc<<1 ^ 0x1021
			} else {
				crc <<= 1
			}
		}
	}
	return crc
}

// Range is the slots from Start to End, both included.
type Range struct{ Start, End int }

// Shard is one primary of a cluster with the slots it owns.
type Shard struct {
	Primary string  // host:port, as the cluster announces it
	ID      string  // the node's id (CLUSTER MYID)
	Ranges  []Range // sorted
}

// SlotsText writes ranges as "0-5460,10923": the slots of one primary, for people.
func SlotsText(ranges []Range) string {
	parts := make([]string, len(ranges))
	for i, r := range ranges {
		parts[i] = strconv.Itoa(r.Start)
		if r.End != r.Start {
			parts[i] += "-" + strconv.Itoa(r.End)
		}
	}
	return strings.Join(parts, ",")
}

// Map is which primary owns each slot. The zero Map owns nothing. It is not safe for concurrent use.
type Map struct {
	owner []int32  // per slot: index in addrs, -1 unowned; nil for the zero Map
	addrs []string // primaries by index
}

// NewMap returns the map of shards.
func NewMap(shards []Shard) Map {
	m := Map{owner: make([]int32, Count)}
	for i := range m.owner {
		m.owner[i] = -1
	}
	for _, s := range shards {
		for _, r := range s.Ranges {
			for slot := max(r.Start, 0); slot <= min(r.End, Count-1); slot++ {
				m.Set(slot, s.Primary)
			}
		}
	}
	return m
}

// Empty reports whether the map knows no owner at all.
func (m *Map) Empty() bool { return len(m.addrs) == 0 }

// Owner returns the primary that owns slot, "" when unknown.
func (m *Map) Owner(slot int) string {
	if m.owner == nil || slot < 0 || slot >= Count || m.owner[slot] < 0 {
		return ""
	}
	return m.addrs[m.owner[slot]]
}

// Set records addr as the owner of slot, as a MOVED reply tells it.
func (m *Map) Set(slot int, addr string) {
	if slot < 0 || slot >= Count {
		return
	}
	if m.owner == nil {
		*m = NewMap(nil)
	}
	i := -1
	for k, a := range m.addrs {
		if a == addr {
			i = k
			break
		}
	}
	if i < 0 {
		i = len(m.addrs)
		m.addrs = append(m.addrs, addr)
	}
	m.owner[slot] = int32(i)
}

// Load reads the cluster's shards from the node behind c with CLUSTER SLOTS, sorted by their first slot. A
// primary announced without a host (an empty or "?" endpoint) is taken to be on the host of c.
func Load(ctx context.Context, c *redis.Client) ([]Shard, error) {
	// CLUSTER SHARDS, which Redis 7.0 offers in its place, is unknown to the Redis 6 clusters still in service;
	// CLUSTER SLOTS answers on every version that has a cluster, 7 and 8 included.
	//lint:ignore SA1019 CLUSTER SLOTS is the one reply every Redis Cluster version gives (see above).
	res, err := c.ClusterSlots(ctx).Result()
	if err != nil {
		return nil, err
	}
	host, _, _ := net.SplitHostPort(c.Options().Addr)
	byAddr := map[string]*Shard{}
	var order []*Shard
	for _, r := range res {
		if len(r.Nodes) == 0 {
			continue
		}
		addr := withHost(r.Nodes[0].Addr, host)
		s := byAddr[addr]
		if s == nil {
			s = &Shard{Primary: addr, ID: r.Nodes[0].ID}
			byAddr[addr] = s
			order = append(order, s)
		}
		s.Ranges = append(s.Ranges, Range{r.Start, r.End})
	}
	if len(order) == 0 {
		return nil, errors.New("CLUSTER SLOTS: no slot is served (the cluster's slots are not assigned)")
	}
	shards := make([]Shard, len(order))
	for i, s := range order {
		sort.Slice(s.Ranges, func(a, b int) bool { return s.Ranges[a].Start < s.Ranges[b].Start })
		shards[i] = *s
	}
	sort.Slice(shards, func(a, b int) bool { return shards[a].Ranges[0].Start < shards[b].Ranges[0].Start })
	return shards, nil
}

// withHost returns addr with host when addr names no host of its own ("", "?").
func withHost(addr, host string) string {
	h, port, err := net.SplitHostPort(addr)
	if err != nil || h != "" && h != "?" {
		return addr
	}
	return net.JoinHostPort(host, port)
}

// Redirect is a node's answer that a key's slot is served elsewhere.
type Redirect struct {
	Ask  bool   // ASK: the slot is migrating, ask Addr once (after ASKING); otherwise MOVED: Addr owns it now
	Slot int    // the key's slot
	Addr string // where to ask
}

// RedirectOf reads a MOVED or ASK error reply ("MOVED 3999 127.0.0.1:6381"); false for any other error. from
// is the address of the node that answered: a redirection without a host ("MOVED 3999 :6381") is to its host.
func RedirectOf(err error, from string) (Redirect, bool) {
	var re redis.Error
	if err == nil || !errors.As(err, &re) {
		return Redirect{}, false
	}
	f := strings.Fields(re.Error())
	if len(f) != 3 || f[0] != "MOVED" && f[0] != "ASK" {
		return Redirect{}, false
	}
	slot, err := strconv.Atoi(f[1])
	if err != nil || slot < 0 || slot >= Count {
		return Redirect{}, false
	}
	host, _, _ := net.SplitHostPort(from)
	return Redirect{Ask: f[0] == "ASK", Slot: slot, Addr: withHost(f[2], host)}, true
}

// IsTryAgain reports whether err is TRYAGAIN: a command on several keys of a slot being migrated, some of
// them moved already; it succeeds once the migration ends.
func IsTryAgain(err error) bool { return redis.HasErrorPrefix(err, "TRYAGAIN") }

// NodeOptions returns the options of a client of the cluster's node at addr: seed's settings (credentials,
// TLS, timeouts, dialer, pool), as go-redis's own cluster client dials every node, with addr. The push
// notification processor is left for the new client to make (a processor shared between clients refuses the
// second one's handlers), and maintenance notifications stay off, as the seed's probe would cost every new
// connection a round trip.
func NodeOptions(seed *redis.Options, addr string) *redis.Options {
	o := *seed
	o.Addr = addr
	o.PushNotificationProcessor = nil
	o.MaintNotificationsConfig = &maintnotifications.Config{Mode: maintnotifications.ModeDisabled}
	return &o
}
