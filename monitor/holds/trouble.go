package holds

import (
	"slices"
	"time"
)

// Trouble is a span of time in which the polls decided a lock was split (two or more tokens, none on a quorum)
// or without a quorum (its last holder's key living on fewer than a quorum of masters). Like an Interval, it
// is known to within a poll: it began at most one poll before Start and ended at most one poll before End.
type Trouble struct {
	Start time.Time // the first poll that decided the lock split or without quorum
	End   time.Time // the first poll that decided it no longer is, or did not show it; zero while it lasts
}

// Troubles returns the spans in which the lock was split or without quorum that ended after since, or last
// on, oldest first, in a new slice.
func (h *HoldLog) Troubles(since time.Time) []Trouble {
	if h == nil {
		return nil
	}
	var out []Trouble
	for _, tr := range h.troubles {
		if tr.End.IsZero() || tr.End.After(since) {
			out = append(out, tr)
		}
	}
	return out
}

// TroubleOpen reports whether h's last trouble span still lasts.
func (h *HoldLog) TroubleOpen() bool {
	return h != nil && len(h.troubles) > 0 && h.troubles[len(h.troubles)-1].End.IsZero()
}

// troubleSince reports whether h has a trouble span that lasts or ended after since.
func (h *HoldLog) troubleSince(since time.Time) bool {
	return len(h.troubles) > 0 && (h.TroubleOpen() || h.troubles[len(h.troubles)-1].End.After(since))
}

// WithTrouble returns a copy of h (a new log of resource when h is nil) whose trouble spans are trs, less
// those that ended before since and the oldest beyond limit.
func (h *HoldLog) WithTrouble(resource string, trs []Trouble, since time.Time, limit int) *HoldLog {
	n := &HoldLog{Resource: resource}
	if h != nil {
		*n = *h
	}
	drop := 0
	for drop < len(trs) && (len(trs)-drop > limit || !trs[drop].End.IsZero() && trs[drop].End.Before(since)) {
		drop++
	}
	n.troubles = slices.Clip(trs[drop:])
	return n
}
