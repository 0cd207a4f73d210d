package lockshape

import (
	"math"
	"slices"
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
	Member string  // a holder's token or identifier, or Symfony's "__write__" marker
	Score  float64 // Symfony's: the expiry, redis-semaphore's: the acquisition, in Unix milliseconds
}

// WriteMarker is the member Symfony Lock adds beside the writer's token for an exclusive lock.
const WriteMarker = "__write__"

// MaxSetMembers is the largest sorted set read as a lock: more members than any lock's holders. setLockLua
// reads one more, to tell a larger set.
const MaxSetMembers = 128

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

// SetShape is how a sorted set's scores tell its holders' expiries.
type SetShape uint8

const (
	NotASetLock   SetShape = iota
	ScoresExpire           // scores are expiries on the master's clock (Symfony Lock)
	ScoresAcquire          // scores are acquisition times on the client's clock; the key expires with the newest (redis-semaphore)
)

// SetShapeOf decides whether a sorted set read as k is a lock, and how its scores are read. serverNow is the
// master's clock at the read, as far as it is known. A set lock has at most MaxSetMembers members, every one a
// token (TokenShaped) or Symfony's write marker, scored with Unix-millisecond times; its scores are
// expiries when it has the write marker or when its latest score is its key's expiry, acquisition times when
// the key is named "semaphore:" (redis-semaphore). A rate limiter's window of request ids (scored with their
// time, under a key of its own) is not a lock.
func SetShapeOf(key string, members []SetMember, pttl time.Duration, serverNow time.Time) SetShape {
	if len(members) == 0 || len(members) > MaxSetMembers {
		return NotASetLock
	}
	write, latest := false, 0.0
	for _, m := range members {
		switch {
		case m.Score < minScoreMS || m.Score > maxScoreMS || m.Score != math.Trunc(m.Score):
			return NotASetLock
		case m.Member == WriteMarker:
			write = true
		case !TokenShaped(key, m.Member):
			return NotASetLock
		}
		latest = max(latest, m.Score)
	}
	switch {
	case write:
		return ScoresExpire
	case strings.HasPrefix(key, "semaphore:"):
		return ScoresAcquire
	case pttl > 0:
		expires := serverNow.Add(pttl).UnixMilli()
		if math.Abs(latest-float64(expires)) <= float64(expiryScoreSlack.Milliseconds()) {
			return ScoresExpire
		}
	}
	return NotASetLock
}

// SetToken is a set cell's Token: its holders' members, sorted, joined by commas (the write marker left
// out), so that the rules over cells (kept, carried, named when gone) see what the set holds.
func SetToken(members []SetMember) string {
	names := make([]string, 0, len(members))
	for _, m := range members {
		if m.Member != WriteMarker {
			names = append(names, m.Member)
		}
	}
	slices.Sort(names)
	return strings.Join(names, ",")
}
