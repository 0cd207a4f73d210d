package monitor

import (
	"strings"
	"time"

	"github.com/redlock-tui/redlock-tui/monitor/lockshape"
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
	counts, carried := tallyTokens(v, dup, buf[:0])
	arena = recordTokens(v, counts, carried, arena)
	v.Mine = isOwn
	ranOut := isOwn && !own.ValidUntil.IsZero() && !now.Before(own.ValidUntil)
	lead := leadCount(counts)
	if lead < 0 { // nothing read: every master that answered has no key, the others were not read
		switch {
		case v.Unknown >= quorum:
			v.State = StateUnknown // the masters not read could make it held
		case isOwn && !ranOut:
			v.State = StateLost
		default:
			v.State = StatePartial // even if every master not read held it, it could not have a quorum
		}
		if isOwn {
			judgeExpired(v, own, ranOut, now)
		}
		return arena
	}
	token := counts[lead].token
	v.Count = counts[lead].count
	holds := func(c MasterLock) bool { return c.Holds(token) }
	if thread, n := redissonThreadQuorum(v.Masters, dup, quorum); v.Count < quorum && n > 0 {
		// Redisson's RedLock takes each master's lock through another client, so each has its own client id:
		// only the thread id is common. Grouping on it is a guess, and marked as one.
		v.Heuristic, v.Count = true, n
		holds = func(c MasterLock) bool { return c.State == CellSeen && c.Hash() && threadOf(c.Token) == thread }
	}
	var ebuf [8]time.Duration
	exp, stuck := expiries(v.Masters, dup, holds, now, ebuf[:0])
	if len(exp) > 0 {
		v.TTLSpread = exp[0] - exp[len(exp)-1]
	}
	// Held needs a quorum of one token and validity left after the drift allowance; a quorum whose keys are
	// about to expire is not a lock.
	if !stuck && v.Count >= quorum {
		remaining := exp[quorum-1] - lockshape.ValidityGrace(v.Resource, token) // as the holder counts it
		v.validEnd, v.driftFactor = now.Add(remaining), cfg.DriftFactor
	}
	decideState(v, token, stuck, len(counts), quorum, now)
	if isOwn {
		judgeOwn(v, own, countOf(counts, own.Token), quorum, ranOut)
		judgeExpired(v, own, ranOut, now)
	}
	for _, c := range v.Masters {
		if c.Holds(token) {
			v.Family, v.Families = lockshape.FamilyHint(v.Resource, token, c.Hash(), c.Mode())
			v.HolderKind = lockshape.HolderKindOf(v.Resource, token)
			if t, ok := ValueTime(token, c.ReadAt); ok && !c.Hash() { // a time: no client's token, however it looks
				v.ValueTime, v.Family, v.Families, v.HolderKind = t, "", nil, ""
			}
			break
		}
	}
	return arena
}

// tallyTokens appends to counts how many distinct masters (duplicates left out) read each token, and counts in
// v.Unknown the masters whose cell is unknown; it returns the counts and the tokens last seen on those.
func tallyTokens(v *LockView, dup []bool, counts []tokenCount) ([]tokenCount, []string) {
	var carried []string
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
	return counts, carried
}

// recordTokens sets v.hist.tokens to the tokens read (counts) and those last seen on masters not read
// (carried), taking them from arena, which it returns for the next view.
func recordTokens(v *LockView, counts []tokenCount, carried []string, arena []tokenSeen) []tokenSeen {
	arena = roomFor(arena, len(counts)+len(carried))
	start := len(arena)
	for _, tc := range counts {
		arena = append(arena, tokenSeen{token: tc.token})
	}
	for _, t := range carried {
		if countOf(counts, t) == 0 {
			arena = append(arena, tokenSeen{token: t})
		}
	}
	v.hist.tokens = arena[start:len(arena):len(arena)]
	return arena
}

// leadCount is the index in counts of the token on the most masters (ties go to the smaller token), -1 when
// counts is empty.
func leadCount(counts []tokenCount) int {
	lead := -1
	for k, tc := range counts {
		if lead < 0 || tc.count > counts[lead].count || tc.count == counts[lead].count && tc.token < counts[lead].token {
			lead = k
		}
	}
	return lead
}

// countOf is the count of token in counts, 0 when it is not there.
func countOf(counts []tokenCount, token string) int {
	for _, tc := range counts {
		if tc.token == token {
			return tc.count
		}
	}
	return 0
}

// expiries appends to exp, longest first, how long the holder's key has left on each master that holds it
// (duplicates left out), counted from now, and reports whether it has no TTL on some master (stuck).
func expiries(cells []MasterLock, dup []bool, holds func(MasterLock) bool, now time.Time, exp []time.Duration) ([]time.Duration, bool) {
	stuck := false
	for j, c := range cells {
		if dup[j] || !holds(c) {
			continue
		}
		if c.PTTL == NoTTL {
			stuck = true
			continue
		}
		exp = append(exp, c.PTTL+c.ReadAt.Sub(now))
		for k := len(exp) - 1; k > 0 && exp[k] > exp[k-1]; k-- { // insertion sort: there are at most N
			exp[k], exp[k-1] = exp[k-1], exp[k]
		}
	}
	return exp, stuck
}

// decideState sets v's state, and its holder when a quorum holds token (the lead), from what classify measured:
// stuck when token has no TTL on some master; held with validity left; unknown when the masters not read could
// make it held; partial with one token; split with several (tokens).
func decideState(v *LockView, token string, stuck bool, tokens, quorum int, now time.Time) {
	switch {
	case stuck:
		v.State = StateStuck
		if v.Count >= quorum {
			v.Holder = token
		}
	case v.ValidityAt(now) > 0:
		v.State, v.Holder = StateHeld, token
		v.Foreign = tokens > 1
	case v.Count < quorum && v.Count+v.Unknown >= quorum:
		v.State = StateUnknown // the masters not read could make it held
	case tokens == 1:
		v.State = StatePartial
	default:
		v.State = StateSplit
	}
}

// judgeOwn judges v as our lock, of which ours masters read our token: lost when our token is not the
// holder (unless the key is stuck, or our validity has run out: ranOut), but unknown while the masters not
// read could still give it a quorum; and acquired when we acquired it, if some master has it.
func judgeOwn(v *LockView, own OwnLock, ours, quorum int, ranOut bool) {
	if v.Holder != own.Token && v.State != StateStuck && !ranOut {
		v.State = StateLost
		if ours+v.Unknown >= quorum {
			v.State = StateUnknown
		}
	}
	if ours > 0 {
		v.AcquiredAt = own.AcquiredAt
	}
}

// judgeExpired marks v, our lock, Expired when our token no longer holds it after our validity ran out
// (ranOut): it expired at its TTL, as the operator let it, and is told so for one TTL, or until released.
func judgeExpired(v *LockView, own OwnLock, ranOut bool, now time.Time) {
	if until := own.ValidUntil.Add(own.TTL); ranOut && v.Holder != own.Token && now.Before(until) {
		v.Expired, v.expiredUntil = true, until
	}
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
		if !c.Hash() || strings.Contains(c.Token, ",") || holders[c.Token] {
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

// LeadToken is the token a lock is about: its holder's or, when nobody holds it, the one on the most masters,
// counting the value last seen on masters not read this time (ties go to the token read on more masters this
// time, then to the smaller token: what a master says now outweighs what one said before); "" when no master
// has or had one. It is the one rule for every reader: the dashboard shows it in a lock's holder column and
// marks its cells by it; the monitor dates FirstSeen by it, groups the keys of one lock by it, and names it
// when a lock nobody held goes.
func LeadToken(v *LockView) string {
	if v.Holder != "" {
		return v.Holder
	}
	best, bestN, bestRead := "", 0, 0
	for j, c := range v.Masters {
		if c.Token == "" { // absent, or not read and never seen there
			continue
		}
		n, read := 0, 0
		for _, o := range v.Masters[j:] { // the first cell with a token counts all of them
			if o.Token == c.Token {
				n++
				if o.State != CellUnknown {
					read++
				}
			}
		}
		if n > bestN || n == bestN && (read > bestRead || read == bestRead && c.Token < best) {
			best, bestN, bestRead = c.Token, n, read
		}
	}
	return best
}
