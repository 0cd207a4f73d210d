package monitor

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Sorted-set locks: locks that several holders may hold at once. Two families of clients keep a lock as a
// sorted set whose members are the holders:
//
//   - Symfony Lock 5.2 and later (symfony/lock Store/RedisStore.php): the key is the resource; each holder's
//     token (32 random bytes, base64: 44 characters) is scored with its expiry in milliseconds of the master's
//     own clock (TIME in the script), plus a "__write__" member scored like the writer's token for an
//     exclusive (write) lock; readers of a shared lock are members without it. The key is PEXPIREAT the latest
//     expiry. A CombinedStore (Symfony's Redlock) writes the same set on each master, with one token on all.
//   - redis-semaphore (npm; src/semaphore, src/multiSemaphore, src/redlockSemaphore): "semaphore:<name>", each
//     holder's identifier (a UUID) scored with its acquisition time in milliseconds of the client's clock, the
//     key PEXPIREd by lockTimeout at each acquisition and refresh; a holder is expired lockTimeout after its
//     score. A MultiSemaphore holder takes several members, "<id>_0" to "<id>_<permits-1>". The Redlock
//     variants write the same set on each master.
//
// Both clean expired members out lazily (at the next acquisition), so a set can hold members that no longer
// hold anything: those are shown expired, never held. Each holder is judged on its own, as a Redlock lock: it
// is held when its member is live on a quorum of masters with validity left.

// SetMember is one member of a sorted-set lock and its score, as read.
type SetMember struct {
	Member string
	Score  float64
}

// writeMarker is the member Symfony Lock adds beside the writer's token for an exclusive lock.
const writeMarker = "__write__"

// maxSetMembers is the largest sorted set read as a lock: more members than any lock's holders. setLockLua
// reads one more, to tell a larger set.
const maxSetMembers = 128

// setLockLua is a Lua function shared by the read scripts: otherLock(k, n) returns a hash lock's fields and
// values (hashLock), or a small sorted set as {{'zset'}, member, score, ...} with members cut to n bytes, or
// {{'zset-denied'}, error} when the master's ACL refuses ZRANGE (the key is then not read: unknown, never
// absent), or nil. The nested first element tells a set from a hash, whose fields are strings.
const setLockLua = `local function otherLock(k, n)
  local t = redis.call('TYPE', k).ok
  if t == 'hash' then return hashLock(k) end
  if t ~= 'zset' then return nil end
  local z = redis.pcall('ZRANGE', k, 0, 128, 'WITHSCORES')
  if z.err then return {{'zset-denied'}, z.err} end
  if #z > 256 then return nil end
  for i = 1, #z, 2 do
    if #z[i] > n then z[i] = string.sub(z[i], 1, n) end
  end
  table.insert(z, 1, {'zset'})
  return z
end
`

// scriptRefusal is an error a read script met inside, as the script returns it (not a reply to a command of
// ours), typed as a server error.
type scriptRefusal string

func (e scriptRefusal) Error() string { return string(e) }

// RedisError marks it as an error reply of the server.
func (scriptRefusal) RedisError() {}

// setReading reads the value the scripts return for a sorted set (see setLockLua): its members, or that the
// master refused to read it. ok is false when v is not a set.
func setReading(v []any, maxLen int) (members []SetMember, refused bool, ok bool) {
	if len(v) == 0 {
		return nil, false, false
	}
	marker, isSet := v[0].([]any)
	if !isSet || len(marker) == 0 {
		return nil, false, false
	}
	if s, _ := marker[0].(string); s == "zset-denied" {
		return nil, true, true
	}
	members = make([]SetMember, 0, (len(v)-1)/2)
	for i := 1; i+1 < len(v); i += 2 {
		m, _ := v[i].(string)
		s, _ := v[i+1].(string)
		score, err := strconv.ParseFloat(s, 64)
		if err != nil {
			continue
		}
		members = append(members, SetMember{Member: m[:min(len(m), maxLen)], Score: score})
	}
	return members, false, true
}

// Unix-millisecond times that set scores may be: from 2004 to 2200, so that a counter or a score of points
// (a leaderboard) is not read as a time.
const (
	minScoreMS = 1.07e12
	maxScoreMS = 7.26e12
)

// expiryScoreSlack is how far a set's latest score may be from its key's expiry, read on the master's clock,
// for its scores to be taken as expiries (Symfony's PEXPIREAT the latest one); the clock is known only as of
// the poll's TIME.
const expiryScoreSlack = 2 * time.Second

// setShape is how a sorted set's scores tell its holders' expiries.
type setShape uint8

const (
	notASetLock   setShape = iota
	scoresExpire           // scores are expiries on the master's clock (Symfony Lock)
	scoresAcquire          // scores are acquisition times on the client's clock; the key expires with the newest (redis-semaphore)
)

// setShapeOf decides whether a sorted set read as k is a lock, and how its scores are read. serverNow is the
// master's clock at the read, as far as it is known. A set lock has at most maxSetMembers members, every one a
// token (tokenShaped) or Symfony's write marker, scored with Unix-millisecond times; its scores are
// expiries when it has the write marker or when its latest score is its key's expiry, acquisition times when
// the key is named "semaphore:" (redis-semaphore). A rate limiter's window of request ids (scored with their
// time, under a key of its own) is not a lock.
func setShapeOf(key string, members []SetMember, pttl time.Duration, serverNow time.Time) setShape {
	if len(members) == 0 || len(members) > maxSetMembers {
		return notASetLock
	}
	write, latest := false, 0.0
	for _, m := range members {
		switch {
		case m.Score < minScoreMS || m.Score > maxScoreMS || m.Score != math.Trunc(m.Score):
			return notASetLock
		case m.Member == writeMarker:
			write = true
		case !tokenShaped(key, m.Member):
			return notASetLock
		}
		latest = max(latest, m.Score)
	}
	switch {
	case write:
		return scoresExpire
	case strings.HasPrefix(key, "semaphore:"):
		return scoresAcquire
	case pttl > 0:
		expires := serverNow.Add(pttl).UnixMilli()
		if math.Abs(latest-float64(expires)) <= float64(expiryScoreSlack.Milliseconds()) {
			return scoresExpire
		}
	}
	return notASetLock
}

// setToken is a set cell's Token: its holders' members, sorted, joined by commas (the write marker left
// out), so that the rules over cells (kept, carried, named when gone) see what the set holds.
func setToken(members []SetMember) string {
	names := make([]string, 0, len(members))
	for _, m := range members {
		if m.Member != writeMarker {
			names = append(names, m.Member)
		}
	}
	slices.Sort(names)
	return strings.Join(names, ",")
}

// serverNow is the master's clock now, as far as the reading's TIME tells; our clock when it did not.
func (r *Reading) serverNow() time.Time {
	if r.ServerTime.IsZero() {
		return time.Now()
	}
	return r.ServerTime.Add(time.Since(r.Received))
}

// note notes that the master's ACL refused cmd inside a read script, where the refusal names no command.
func (r *refusals) note(cmd string) {
	if !slices.Contains(r.commands, cmd) {
		r.commands = append(r.commands, cmd)
	}
}
