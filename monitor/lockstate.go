package monitor

import (
	"strings"
	"time"

	"github.com/redlock-tui/redlock-tui/redlock"
)

// tokenCount is how many distinct masters hold a token for one resource.
type tokenCount struct {
	token string
	count int
}

// classify computes the state, holder, validity and flags of v from its per-master cells, leaving out masters
// that duplicate another (dup). Unknown cells never count for or against a token: when they could decide the
// outcome the state is unknown. It records v's tokens in hist.tokens, taken from arena, and returns the arena
// for the next view.
func classify(v *LockView, dup []bool, quorum int, own OwnLock, isOwn bool, now time.Time, cfg Config, arena []tokenSeen) []tokenSeen {
	var buf [8]tokenCount
	counts := buf[:0]
	count := func(token string) int {
		for _, tc := range counts {
			if tc.token == token {
				return tc.count
			}
		}
		return 0
	}
	var carried []string // tokens last seen on masters not read this time
	for j, c := range v.Masters {
		if dup[j] {
			continue
		}
		switch c.State {
		case CellUnknown:
			v.Unknown++
			if c.Token != "" {
				carried = append(carried, c.Token)
			}
			continue
		case CellAbsent:
			continue
		}
		found := false
		for k := range counts {
			if counts[k].token == c.Token {
				counts[k].count++
				found = true
				break
			}
		}
		if !found {
			counts = append(counts, tokenCount{c.Token, 1})
		}
	}
	lead := -1
	for k, tc := range counts {
		if lead < 0 || tc.count > counts[lead].count || tc.count == counts[lead].count && tc.token < counts[lead].token {
			lead = k
		}
	}
	if len(arena)+len(counts)+len(carried) > cap(arena) {
		arena = make([]tokenSeen, 0, max(1024, 2*(len(counts)+len(carried))))
	}
	start := len(arena)
	for _, tc := range counts {
		arena = append(arena, tokenSeen{token: tc.token})
	}
	for _, t := range carried {
		if count(t) == 0 {
			arena = append(arena, tokenSeen{token: t})
		}
	}
	v.hist.tokens = arena[start:len(arena):len(arena)]
	v.Mine = isOwn

	if lead < 0 { // nothing read: every master that answered has no key, the others were not read
		switch {
		case v.Unknown >= quorum:
			v.State = StateUnknown // the masters not read could make it held
		case isOwn:
			v.State = StateLost
		default:
			v.State = StatePartial // even if every master not read held it, it could not have a quorum
		}
		return arena
	}
	leadToken := counts[lead].token
	v.Count = counts[lead].count
	sameHolder := func(c MasterLock) bool { return c.Holds(leadToken) }
	if thread, n := redissonThreadQuorum(v.Masters, dup, quorum); v.Count < quorum && n > 0 {
		// Redisson's RedLock takes each master's lock through another client, so each has its own client id:
		// only the thread id is common. Grouping on it is a guess, and marked as one.
		v.Heuristic, v.Count = true, n
		sameHolder = func(c MasterLock) bool { return c.State == CellSeen && c.Hash && threadOf(c.Token) == thread }
	}

	// The lead token's expiries, longest first (insertion sort: there are at most N).
	var ebuf [8]time.Duration
	exp := ebuf[:0]
	stuck := false
	for j, c := range v.Masters {
		if dup[j] || !sameHolder(c) {
			continue
		}
		if c.PTTL == NoTTL {
			stuck = true
			continue
		}
		e := c.PTTL + c.ReadAt.Sub(now)
		exp = append(exp, e)
		for k := len(exp) - 1; k > 0 && exp[k] > exp[k-1]; k-- {
			exp[k], exp[k-1] = exp[k-1], exp[k]
		}
	}
	if len(exp) > 0 {
		v.TTLSpread = exp[0] - exp[len(exp)-1]
	}
	// Held needs a quorum of one token and validity left after the drift allowance; a quorum whose keys are
	// about to expire is not a lock.
	if !stuck && v.Count >= quorum {
		remaining := exp[quorum-1]
		v.Validity = max(0, remaining-redlock.DriftAllowance(remaining, cfg.DriftFactor))
	}
	switch {
	case stuck:
		v.State = StateStuck
		if v.Count >= quorum {
			v.Holder = leadToken
		}
	case v.Validity > 0:
		v.State, v.Holder = StateHeld, leadToken
		v.Foreign = len(counts) > 1
	case v.Count < quorum && v.Count+v.Unknown >= quorum:
		v.State = StateUnknown // the masters not read could make it held
	case len(counts) == 1:
		v.State = StatePartial
	default:
		v.State = StateSplit
	}
	if isOwn && v.Holder != own.Token && v.State != StateStuck {
		v.State = StateLost
		if count(own.Token)+v.Unknown >= quorum {
			v.State = StateUnknown
		}
	}
	if isOwn && count(own.Token) > 0 {
		v.AcquiredAt = own.AcquiredAt
	}
	for _, c := range v.Masters {
		if c.Holds(leadToken) {
			v.Family = familyHint(v.Resource, leadToken, c.Hash, c.Mode)
			break
		}
	}
	return arena
}

// redissonThreadQuorum returns the thread id that a quorum of masters' hash locks share, with their count, or
// "", 0 when the cells are not all single-holder hash locks with a client id of their own (one client holding
// two masters is not a RedLock across clients), or no thread id reaches a quorum.
func redissonThreadQuorum(cells []MasterLock, dup []bool, quorum int) (string, int) {
	byThread := map[string]int{}
	holders := map[string]bool{}
	for j, c := range cells {
		if dup[j] || c.State != CellSeen {
			continue
		}
		if !c.Hash || strings.Contains(c.Token, ",") || holders[c.Token] {
			return "", 0
		}
		holders[c.Token] = true
		byThread[threadOf(c.Token)]++
	}
	for t, n := range byThread {
		if n >= quorum {
			return t, n
		}
	}
	return "", 0
}

// threadOf is the thread id of a hash lock's holder field "<client-id>:<thread-id>".
func threadOf(holder string) string { return holder[strings.LastIndexByte(holder, ':')+1:] }

// leadToken is the most common token seen for v, "" when none was seen.
func leadToken(v *LockView) string {
	best, bestN := "", 0
	for _, c := range v.Masters {
		if c.State != CellSeen {
			continue
		}
		n := 0
		for _, o := range v.Masters {
			if o.Holds(c.Token) {
				n++
			}
		}
		if n > bestN || n == bestN && c.Token < best {
			best, bestN = c.Token, n
		}
	}
	return best
}
