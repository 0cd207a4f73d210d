package monitor

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/redlock-tui/redlock-tui/monitor/lockshape"
	"github.com/redlock-tui/redlock-tui/monitor/vocab"
	"github.com/redlock-tui/redlock-tui/redlock"
)

// Holder modes.
const (
	ModeWrite  = "write"  // Symfony Lock's exclusive lock: its only holder
	ModeRead   = "read"   // a reader of Symfony Lock's shared lock
	ModePermit = "permit" // a holder of a semaphore's permits (redis-semaphore)
)

// HolderExpired is the state of a holder whose member is still in the set but has expired wherever it was
// read: the libraries clean such members out lazily. It is a holder's state only, never a lock's.
const HolderExpired LockState = "expired"

// Holder is one holder of a lock that several may hold at once (a sorted-set lock), across the masters.
type Holder struct {
	Token     string        // its member (a MultiSemaphore holder's identifier, without the "_N" of each permit)
	Members   []string      // its members in the set as read: the token, or a MultiSemaphore's "<id>_0".."<id>_<n-1>"
	Mode      string        // ModeWrite, ModeRead or ModePermit
	Permits   int           // the members it holds on a master: a MultiSemaphore holder takes several; else 1
	State     LockState     // StateHeld, StatePartial (live on fewer than a quorum), StateUnknown, HolderExpired
	Count     int           // distinct masters where its member is live
	Validity  time.Duration // held: time until it drops below a quorum, less the drift allowance; 0 otherwise
	Masters   []HolderCell  // its member on each master, aligned with Snapshot.Masters
	FirstSeen time.Time     // when this monitor first saw it

	validEnd time.Time // held: when it drops below a quorum (LockView.ValidityAt)
}

// HolderCell is one holder's member on one master.
type HolderCell struct {
	// State is CellSeen when the set read holds the member (live or expired: see Expires), CellAbsent when the
	// master answered without it, CellUnknown when the set was not read (Expires is then as last seen there,
	// zero when it was not there).
	State   CellState
	Expires time.Time // when the member expires there, on our clock; zero when it is not there
}

// Live reports whether the member is in the set as read, with time left at now.
func (c HolderCell) Live(now time.Time) bool { return c.State == CellSeen && c.Expires.After(now) }

// never is the expiry of a member of a set without a TTL whose scores are acquisition times: nothing ends it.
var never = time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)

// multiPermit is a MultiSemaphore member: "<identifier>_<i>" for each of the holder's permits.
var multiPermit = regexp.MustCompile(`^(.+)_([0-9]+)$`)

// isSetLock reports whether a row of cells is a sorted-set lock: some master has, or last had, a set.
func isSetLock(row []MasterLock) bool {
	return slices.ContainsFunc(row, func(c MasterLock) bool { return c.Set() != nil })
}

// lockSetShape is how the scores of a set lock's cells are read: expiries when some master's set has
// Symfony's write marker or the key is not named "semaphore:", acquisition times otherwise (redis-semaphore).
func lockSetShape(v *LockView) lockshape.SetShape {
	for _, c := range v.Masters {
		if slices.ContainsFunc(c.Set(), func(m SetMember) bool { return m.Member == lockshape.WriteMarker }) {
			return lockshape.ScoresExpire
		}
	}
	if strings.HasPrefix(v.Resource, "semaphore:") {
		return lockshape.ScoresAcquire
	}
	return lockshape.ScoresExpire
}

// memberExpiry is when member m of cell c (read on a master whose clock is offset from ours, when known)
// expires on our clock. Expiry scores are the master's clock: converted with its offset when known, else
// anchored on the key's expiry, which Symfony sets at its latest score. Acquisition scores are the client's
// clock and the library's lockTimeout is not stored: the newest member expires with the key (each acquisition
// and refresh PEXPIREs it by lockTimeout), each other as much earlier as its score is older.
func memberExpiry(c MasterLock, m SetMember, latest float64, shape lockshape.SetShape, m0 MasterStatus) time.Time {
	keyExpires := c.ReadAt.Add(c.PTTL)
	switch {
	case shape == lockshape.ScoresExpire && m0.ClockKnown:
		return time.UnixMilli(int64(m.Score)).Add(-m0.ClockOffset)
	case c.PTTL == NoTTL && shape == lockshape.ScoresAcquire:
		return never
	case c.PTTL == NoTTL:
		return time.UnixMilli(int64(m.Score)) // no anchor: the master's clock taken as ours
	}
	return keyExpires.Add(-time.Duration(latest-m.Score) * time.Millisecond)
}

// classifySet computes the state, holders, validity and flags of v, a sorted-set lock, from its per-master
// cells, leaving out masters that duplicate another (dup). Each holder is judged as a Redlock lock of its own;
// the lock is held when one of them is. It records the holders' tokens in hist.tokens, taken from arena, and
// returns the arena for the next view.
func classifySet(v *LockView, dup []bool, quorum int, own OwnLock, isOwn bool, masters []MasterStatus, now time.Time, cfg Config, arena []tokenSeen) []tokenSeen {
	shape := lockSetShape(v)
	stuck := gatherHolders(v, dup, masters, shape)
	for k := range v.Holders {
		finishHolder(&v.Holders[k], v.Masters)
		judgeHolder(&v.Holders[k], dup, quorum, v.Unknown, now, cfg)
	}
	slices.SortFunc(v.Holders, func(a, b Holder) int {
		if ra, rb := holderRank(a.State), holderRank(b.State); ra != rb {
			return ra - rb
		}
		return strings.Compare(a.Token, b.Token)
	})
	arena = recordHolders(v, arena)
	v.driftFactor = cfg.DriftFactor
	decideSetState(v, stuck, quorum, now)
	v.Mine = isOwn
	if isOwn { // our token is a string: a set on its key is another's
		judgeOwn(v, own, 0, quorum, false)
	}
	v.Family, v.Families = setFamily(v, shape)
	applyLimit(v, cfg)
	return arena
}

// gatherHolders makes v's holders from the members of its sets on every master, with each one's mode, permits
// and expiry per master, and counts the distinct masters whose cell is unknown. It reports whether a set lives
// without a TTL somewhere (stuck).
func gatherHolders(v *LockView, dup []bool, masters []MasterStatus, shape lockshape.SetShape) (stuck bool) {
	n := len(v.Masters)
	index := map[string]int{}
	for j, c := range v.Masters {
		if !dup[j] && c.State == CellUnknown {
			v.Unknown++
		}
		if c.Set() == nil {
			continue
		}
		stuck = stuck || c.State == CellSeen && c.PTTL == NoTTL
		write := slices.ContainsFunc(c.Set(), func(m SetMember) bool { return m.Member == lockshape.WriteMarker })
		latest := 0.0
		for _, m := range c.Set() {
			latest = max(latest, m.Score)
		}
		var status MasterStatus
		if j < len(masters) {
			status = masters[j]
		}
		for _, m := range c.Set() {
			if m.Member == lockshape.WriteMarker {
				continue
			}
			token := m.Member
			if shape == lockshape.ScoresAcquire {
				if sub := multiPermit.FindStringSubmatch(token); sub != nil {
					token = sub[1]
				}
			}
			k, ok := index[token]
			if !ok {
				k = len(v.Holders)
				index[token] = k
				v.Holders = append(v.Holders, Holder{Token: token, Mode: ModeRead, Masters: make([]HolderCell, n)})
			}
			addMember(&v.Holders[k], c, m, j, token, write, latest, shape, status)
		}
	}
	return stuck
}

// addMember adds member m of the set in cell c (master j) to holder h of token: its mode, its expiry there
// and, where the cell was read, the permits it takes.
func addMember(h *Holder, c MasterLock, m SetMember, j int, token string, write bool, latest float64, shape lockshape.SetShape, status MasterStatus) {
	if !slices.Contains(h.Members, m.Member) {
		h.Members = append(h.Members, m.Member)
	}
	switch {
	case shape == lockshape.ScoresAcquire:
		h.Mode = ModePermit
	case write:
		h.Mode = ModeWrite
	}
	hc := &h.Masters[j]
	hc.State = c.State
	hc.Expires = maxTime(hc.Expires, memberExpiry(c, m, latest, shape, status))
	if c.State == CellSeen {
		permits := 0
		for _, o := range c.Set() {
			if o.Member == m.Member || shape == lockshape.ScoresAcquire && strings.HasPrefix(o.Member, token+"_") && multiPermit.MatchString(o.Member) {
				permits++
			}
		}
		h.Permits = max(h.Permits, permits)
	}
}

// finishHolder completes h once every set is gathered: at least one permit, its members sorted, absent where
// a master answered without its member, unknown where the master's cell is.
func finishHolder(h *Holder, cells []MasterLock) {
	h.Permits = max(h.Permits, 1)
	slices.Sort(h.Members)
	for j, c := range cells {
		if h.Masters[j].State == CellUnknown && h.Masters[j].Expires.IsZero() && c.State != CellUnknown {
			h.Masters[j].State = CellAbsent // the master answered without this member
		}
		if c.State == CellUnknown {
			h.Masters[j].State = CellUnknown
		}
	}
}

// applyLimit sets v's permit limit from --permits (by key, or a semaphore's name) and flags a semaphore whose
// holders take more permits than it has.
func applyLimit(v *LockView, cfg Config) {
	v.Limit = cfg.Permits[v.Resource]
	if v.Limit == 0 && strings.HasPrefix(v.Resource, "semaphore:") {
		v.Limit = cfg.Permits[strings.TrimPrefix(v.Resource, "semaphore:")]
	}
	if v.Limit > 0 && v.State == StateHeld && heldPermits(v) > v.Limit {
		v.Foreign = true // more permits taken than the semaphore has: flagged as held with something wrong
	}
}

// judgeHolder counts where h's member is live and decides its state and validity (unknown: the distinct
// masters whose cell of the lock is unknown).
func judgeHolder(h *Holder, dup []bool, quorum, unknown int, now time.Time, cfg Config) {
	var ebuf [8]time.Duration
	exp := ebuf[:0]
	seen := false
	for j, c := range h.Masters {
		if dup[j] {
			continue
		}
		seen = seen || c.State == CellSeen
		if !c.Live(now) {
			continue
		}
		h.Count++
		exp = append(exp, c.Expires.Sub(now))
	}
	slices.SortFunc(exp, func(a, b time.Duration) int { return cmp.Compare(b, a) }) // longest first
	switch {
	case h.Count >= quorum:
		remaining := exp[quorum-1]
		h.Validity = max(0, remaining-redlock.DriftAllowance(remaining, cfg.DriftFactor))
		h.validEnd = now.Add(remaining)
		h.State = StateHeld
		if h.Validity == 0 {
			h.State = StatePartial
		}
	case h.Count+unknown >= quorum:
		h.State = StateUnknown
	case h.Count == 0 && seen:
		h.State = HolderExpired
	default:
		h.State = StatePartial
	}
}

// holderRank orders holders: held, unknown, partial, expired.
func holderRank(s LockState) int {
	switch s {
	case StateHeld:
		return 0
	case StateUnknown:
		return 1
	case StatePartial:
		return 2
	}
	return 3
}

// recordHolders sets v.hist.tokens to its holders' tokens, taken from arena, which it returns for the next view.
func recordHolders(v *LockView, arena []tokenSeen) []tokenSeen {
	arena = roomFor(arena, len(v.Holders))
	start := len(arena)
	for _, h := range v.Holders {
		arena = append(arena, tokenSeen{token: h.Token})
	}
	v.hist.tokens = arena[start:len(arena):len(arena)]
	return arena
}

// decideSetState sets v's state from its holders: held when one of them is (its holder the held writer, or
// the held holders' tokens joined by commas, its validity the longest, its count the most masters one has); stuck when a set has no TTL; unknown
// when the masters not read could make a holder held; split when two writers are live, none on a quorum;
// partial otherwise.
func decideSetState(v *LockView, stuck bool, quorum int, now time.Time) {
	var held []string
	lead := -1
	liveWriters := 0
	for k, h := range v.Holders {
		if h.Mode == ModeWrite && h.Count > 0 {
			liveWriters++
		}
		if h.State == StateHeld {
			held = append(held, h.Token)
			if lead < 0 || h.Count > v.Holders[lead].Count {
				lead = k
			}
			if h.validEnd.After(v.validEnd) { // held until the last holder lapses
				v.validEnd = h.validEnd
			}
		}
		v.Count = max(v.Count, h.Count)
	}
	if lead >= 0 {
		v.Count = v.Holders[lead].Count
		v.TTLSpread = holderSpread(v.Holders[lead], now)
	}
	switch {
	case stuck:
		v.State = StateStuck
	case lead >= 0:
		v.State, v.Holder = StateHeld, strings.Join(held, ",")
		for _, h := range v.Holders {
			if h.State == StateHeld && h.Mode == ModeWrite {
				v.Holder = h.Token
			}
		}
		// Another live holder beside a writer, or a live writer beside readers: the exclusion did not hold.
		first := v.Holders[lead]
		v.Foreign = slices.ContainsFunc(v.Holders, func(h Holder) bool {
			return h.Token != first.Token && h.Count > 0 && (h.Mode == ModeWrite || first.Mode == ModeWrite)
		})
	case slices.ContainsFunc(v.Holders, func(h Holder) bool { return h.State == StateUnknown }) ||
		len(v.Holders) == 0 && v.Unknown >= quorum:
		v.State = StateUnknown
	case liveWriters > 1:
		v.State = StateSplit
	default:
		v.State = StatePartial
	}
}

// holderSpread is the spread of h's live members' expiries across masters.
func holderSpread(h Holder, now time.Time) time.Duration {
	var first, last time.Time
	for _, c := range h.Masters {
		if !c.Live(now) {
			continue
		}
		if first.IsZero() || c.Expires.Before(first) {
			first = c.Expires
		}
		last = maxTime(last, c.Expires)
	}
	return last.Sub(first)
}

// heldPermits is how many permits v's held holders take.
func heldPermits(v *LockView) int {
	n := 0
	for _, h := range v.Holders {
		if h.State == StateHeld {
			n += h.Permits
		}
	}
	return n
}

// symfonyToken is Symfony Lock's token: 32 random bytes in std base64.
var symfonyToken = regexp.MustCompile(`^[A-Za-z0-9+/]{42}[AEIMQUYcgkosw048]=$`)

// setFamily is the family hint of a set lock: Symfony Lock for expiry scores and its tokens, redis-semaphore
// for acquisition scores under "semaphore:".
func setFamily(v *LockView, shape lockshape.SetShape) (string, []string) {
	if shape == lockshape.ScoresAcquire {
		return "redis-semaphore", []string{"redis-semaphore"}
	}
	if len(v.Holders) > 0 && !slices.ContainsFunc(v.Holders, func(h Holder) bool { return !symfonyToken.MatchString(h.Token) }) {
		return "Symfony Lock", []string{"Symfony Lock"}
	}
	return "", nil
}

// holdersSeen dates v's holders by when their tokens were first seen (after history carried the sightings),
// and v itself by its earliest held holder when it has no date.
func holdersSeen(v *LockView) {
	for k := range v.Holders {
		h := &v.Holders[k]
		for _, t := range v.hist.tokens {
			if t.token == h.Token {
				h.FirstSeen = t.since
			}
		}
		if h.State == StateHeld && (v.FirstSeen.IsZero() || h.FirstSeen.Before(v.FirstSeen)) {
			v.FirstSeen = h.FirstSeen
		}
	}
}

// HoldersText says in a few words who holds a lock that several may hold: "write lock", "3 readers",
// "2 of 3 permits" (when the semaphore's limit is known), "2 holders", "4 permits, 2 holders"; "" for a lock of
// one token, or when none is held. Only held holders count.
func (v *LockView) HoldersText() string {
	if v.Holders == nil {
		return ""
	}
	holders, permits, mode := 0, 0, ""
	for _, h := range v.Holders {
		if h.State == StateHeld {
			holders++
			permits += h.Permits
			mode = h.Mode
		}
	}
	switch {
	case holders == 0:
		return ""
	case mode == ModeWrite && holders == 1:
		return "write lock"
	case mode == ModeRead:
		return vocab.Count(holders, "reader")
	case v.Limit > 0:
		return fmt.Sprintf("%d of %s", permits, vocab.Count(v.Limit, "permit"))
	case permits != holders:
		return fmt.Sprintf("%s, %s", vocab.Count(permits, "permit"), vocab.Count(holders, "holder"))
	}
	return vocab.Count(holders, "holder")
}

// holdersMoved is the move of a set lock's held holders from the last snapshot's (v.hist.lastHolder, joined by
// commas): held when it had none, taken over when none of them is left, else a holder-joined or holder-left
// event for each that came or went.
func (m lockMove) holdersMoved(events []Event, now time.Time) []Event {
	v := m.v
	last := v.hist.lastHolder
	defer func() { v.hist.lastHolder = v.Holder }()
	if last == "" {
		return m.event(events, now, EventLockHeld, "held by "+holdersNamed(v))
	}
	before, after := strings.Split(last, ","), strings.Split(v.Holder, ",")
	stayed := slices.ContainsFunc(after, func(t string) bool { return slices.Contains(before, t) })
	if !stayed {
		v.Changes++
		v.LastChange = now
		return m.event(events, now, EventTakenOver, fmt.Sprintf("taken over: %s replaced by %s",
			strings.Join(vocab.QuoteAll(before), ", "), holdersNamed(v)))
	}
	for _, t := range after {
		if !slices.Contains(before, t) {
			events = m.event(events, now, EventHolderJoined, fmt.Sprintf("holder %s joined (%s)", vocab.Quote(t), v.HoldersText()))
		}
	}
	for _, t := range before {
		if !slices.Contains(after, t) {
			events = m.event(events, now, EventHolderLeft, fmt.Sprintf("holder %s left (%s)", vocab.Quote(t), v.HoldersText()))
		}
	}
	return events
}

// holdersNamed names v's held holders with their mode: `"tok" (write)`, `3 readers: "a", "b", "c"`.
func holdersNamed(v *LockView) string {
	var names []string
	mode := ""
	for _, h := range v.Holders {
		if h.State == StateHeld {
			names = append(names, vocab.Quote(h.Token))
			mode = h.Mode
		}
	}
	if len(names) == 1 {
		return names[0] + " (" + mode + ")"
	}
	return v.HoldersText() + ": " + strings.Join(names, ", ")
}
