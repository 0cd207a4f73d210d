package slots

import (
	"errors"
	"testing"

	"github.com/redis/go-redis/v9"
)

// replyError is an error reply of the server, as go-redis reports one.
type replyError string

func (e replyError) Error() string { return string(e) }
func (replyError) RedisError()     {}

var _ redis.Error = replyError("")

// TestOfHashesAsRedisCluster checks key slots against values CLUSTER KEYSLOT gave on redis-server 7.0, hash
// tags included (the real-server comparison is TestStartClusterSplitsTheSlots in redlock/redlocktest/testbed).
func TestOfHashesAsRedisCluster(t *testing.T) {
	for _, tc := range []struct {
		key  string
		slot int
	}{
		{"", 0}, {"a", 15495}, {"b", 3300}, {"c", 7365}, {"123456789", 12739},
		{"{a}:fence", 15495}, {"x{a}y", 15495}, {"{}a", Of("{}a")}, {"x{}y{a}", Of("x{}y{a}")}, {"{a", Of("{a")},
	} {
		if got := Of(tc.key); got != tc.slot {
			t.Errorf("Of(%q) = %d, want %d", tc.key, got, tc.slot)
		}
	}
	if Of("{}a") == Of("a") {
		t.Errorf("an empty hash tag must hash the whole key")
	}
	if Of("{a") == Of("a") {
		t.Errorf("an unclosed brace is not a hash tag")
	}
}

func TestRedirectOfReadsMovedAndAsk(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want Redirect
		ok   bool
	}{
		{replyError("MOVED 3999 127.0.0.1:6381"), Redirect{Slot: 3999, Addr: "127.0.0.1:6381"}, true},
		{replyError("ASK 12 10.0.0.2:7000"), Redirect{Ask: true, Slot: 12, Addr: "10.0.0.2:7000"}, true},
		{replyError("MOVED 3999 :6381"), Redirect{Slot: 3999, Addr: "10.1.1.1:6381"}, true},
		{replyError("MOVED 99999 127.0.0.1:1"), Redirect{}, false},
		{replyError("TRYAGAIN Multiple keys request during rehashing of slot"), Redirect{}, false},
		{errors.New("MOVED 1 127.0.0.1:1"), Redirect{}, false}, // not a reply of the server
		{nil, Redirect{}, false},
	} {
		got, ok := RedirectOf(tc.err, "10.1.1.1:7000")
		if got != tc.want || ok != tc.ok {
			t.Errorf("RedirectOf(%v) = %+v, %v; want %+v, %v", tc.err, got, ok, tc.want, tc.ok)
		}
	}
}

func TestMapOwnsWhatItWasTold(t *testing.T) {
	var empty Map
	if !empty.Empty() || empty.Owner(0) != "" {
		t.Fatalf("the zero Map owns slot 0: %q", empty.Owner(0))
	}
	m := NewMap([]Shard{{Primary: "a:1", Ranges: []Range{{0, 99}}}, {Primary: "b:1", Ranges: []Range{{100, Count - 1}}}})
	if m.Owner(99) != "a:1" || m.Owner(100) != "b:1" || m.Owner(Count) != "" || m.Owner(-1) != "" {
		t.Fatalf("owners 99, 100, out of range = %q, %q, %q, %q", m.Owner(99), m.Owner(100), m.Owner(Count), m.Owner(-1))
	}
	m.Set(100, "c:1")
	if m.Owner(100) != "c:1" || m.Owner(101) != "b:1" {
		t.Fatalf("after MOVED of slot 100: %q, %q", m.Owner(100), m.Owner(101))
	}
	empty.Set(5, "d:1")
	if empty.Owner(5) != "d:1" || empty.Owner(6) != "" {
		t.Fatalf("Set on the zero Map: %q, %q", empty.Owner(5), empty.Owner(6))
	}
	if got := SlotsText([]Range{{0, 5460}, {7000, 7000}}); got != "0-5460,7000" {
		t.Errorf("SlotsText = %q", got)
	}
}
