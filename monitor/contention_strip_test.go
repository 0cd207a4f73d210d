package monitor_test

import (
	"sort"
	"testing"
	"time"

	"github.com/redlock-tui/redlock-tui/monitor"
)

// reach is a client's tenure as the strip must show it: from when its acquisition was asked to when its release
// returned, widened by one poll (tol) and the brackets the monitor recorded, where a cell may show it; and
// inner, where every cell must show it.
type reach struct {
	token              string
	wideFrom, wideTo   time.Time
	recorded           bool // the monitor has an interval of its token
	innerFrom, innerTo time.Time
}

// reaches returns each tenure's reach. A poll that finished after the client's acquisition returned may have
// read before it, the next one cannot: the monitor sees the holder from the second poll after its acquisition
// (later only where a poll could not decide, as its recorded start says), until at least the client began its
// release.
func reaches(ivs []monitor.Interval, tenures []tenure, polls []time.Time, tol time.Duration) []reach {
	byToken := map[string]monitor.Interval{}
	for _, iv := range ivs {
		byToken[iv.Token] = iv
	}
	out := make([]reach, 0, len(tenures))
	for _, c := range tenures {
		iv, ok := byToken[c.token]
		r := reach{token: c.token, recorded: ok, wideFrom: c.asked.Add(-iv.StartSlack - tol), wideTo: c.released.Add(iv.EndSlack + tol),
			innerTo: c.to}
		if k := sort.Search(len(polls), func(k int) bool { return polls[k].After(c.from) }) + 1; k < len(polls) {
			r.innerFrom = laterOf(polls[k], iv.Start)
		} else {
			r.innerFrom = c.to // no second poll after it: nothing must show
		}
		out = append(out, r)
	}
	return out
}

// laterOf returns the later of a and b.
func laterOf(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// checkStrip lays the strip the lock's view draws (monitor.LayStrip) over the run, one cell a poll interval,
// and compares every cell with the clients' logs (see reach): a cell that shows a holder lies within that
// holder's tenure widened by its brackets and a poll; a cell within a recorded tenure, from the second poll after
// its acquisition to its release, shows that holder; a cell no widened tenure reaches shows no holder.
func checkStrip(t *testing.T, s monitor.Snapshot, res string, ivs []monitor.Interval, tenures []tenure, polls []time.Time, tol time.Duration) {
	t.Helper()
	from := polls[0]
	w := int(s.Time.Sub(from) / contInterval)
	cells := monitor.LayStrip(ivs, s.HoldLog(res).Troubles(from), from, s.Time, from, w)
	rs := reaches(ivs, tenures, polls, tol)
	cell := s.Time.Sub(from) / time.Duration(w)
	checked := [3]int{}
	for i, c := range cells {
		c0, c1 := from.Add(time.Duration(i)*cell), from.Add(time.Duration(i+1)*cell)
		within, inside, reached := false, "", false
		for _, r := range rs {
			overlaps := r.wideFrom.Before(c1) && r.wideTo.After(c0)
			reached = reached || overlaps
			within = within || overlaps && r.token == c.Token
			if r.recorded && !c0.Before(r.innerFrom) && !c1.After(r.innerTo) {
				inside = r.token
			}
		}
		at := func() string { return c0.Format("15:04:05.000") + "-" + c1.Format("15:04:05.000") }
		switch {
		case c.Kind == monitor.StripHeld && !within:
			t.Errorf("%s: cell %d (%s) shows %q holding, outside its tenure by its client's log (±%v)", res, i, at(), c.Token, tol)
		case inside != "":
			checked[0]++
			if c.Kind != monitor.StripHeld || c.Token != inside {
				t.Errorf("%s: cell %d (%s) inside %q's tenure shows %v %q", res, i, at(), inside, c.Kind, c.Token)
			}
		case !reached:
			checked[1]++
			if c.Kind == monitor.StripHeld || c.Kind == monitor.StripBusy {
				t.Errorf("%s: cell %d (%s) shows a holder (%v %q) where no client held it", res, i, at(), c.Kind, c.Token)
			}
		}
		if c.Kind == monitor.StripHeld {
			checked[2]++
		}
	}
	t.Logf("%s: strip of %d cells of %v: %d inside a tenure, %d free by the logs, %d showing a holder, all checked", res, w, cell,
		checked[0], checked[1], checked[2])
}
