package holds

import (
	"math"
	"slices"
	"time"
)

// LastMinute is the short period of contention figures, beside the window (Config.History).
const LastMinute = time.Minute

// Contention is what a lock's hold log says of its holders over a period that ends at the snapshot: how often
// it changes hands, how long each keeps it, how long it stays free between them, and whether one holder keeps
// it most of the time. Each time in it is known to within Resolution (the polls' brackets).
type Contention struct {
	Period       time.Duration // the time covered: the period asked for, or less when the monitor has watched less
	Acquisitions int           // holders seen beginning their tenure within the period (after its start)
	PerMinute    float64       // Acquisitions per minute of Period: the lock's heat (handovers per minute)
	Holds        int           // tenures that began and ended within the period: the sample of the hold times
	HoldP50      time.Duration
	HoldP95      time.Duration
	HoldMax      time.Duration // also counts the open tenure so far, and those begun before the period
	Gaps         int           // free gaps within the period: from a tenure's end to the next one's start
	GapP50       time.Duration
	GapP95       time.Duration
	GapMax       time.Duration
	Holders      int           // distinct tokens that held it within the period
	Busiest      string        // the token that held it longest within the period; "" none
	BusiestShare float64       // the share of Period that Busiest held it, 0 to 1
	Resolution   time.Duration // the largest slack of the period's starts and ends
}

// ContentionOf computes the figures of ivs (oldest first, the last perhaps open) over [from, now].
func ContentionOf(ivs []Interval, from, now time.Time) Contention {
	c := Contention{Period: now.Sub(from)}
	var holds, gaps []time.Duration
	held := map[string]time.Duration{}
	for k, iv := range ivs {
		began := iv.StartKnown && iv.Start.After(from)
		if began {
			c.Acquisitions++
			c.Resolution = max(c.Resolution, iv.StartSlack)
			if k > 0 && ivs[k-1].Ended != EndOpen {
				gaps = append(gaps, max(iv.Start.Sub(ivs[k-1].End), 0))
			}
		}
		if iv.Ended != EndOpen {
			c.Resolution = max(c.Resolution, iv.EndSlack)
			if began {
				holds = append(holds, iv.HeldFor(now))
			}
		}
		c.HoldMax = max(c.HoldMax, iv.HeldFor(now))
		end := now
		if iv.Ended != EndOpen {
			end = iv.End
		}
		start := iv.Start
		if from.After(start) {
			start = from // held since before the period: counted from its start
		}
		held[iv.Token] += end.Sub(start)
	}
	if c.Period > 0 {
		c.PerMinute = float64(c.Acquisitions) * float64(time.Minute) / float64(c.Period)
	}
	c.Holds, c.HoldP50, c.HoldP95 = len(holds), percentile(holds, 0.5), percentile(holds, 0.95)
	c.Gaps, c.GapP50, c.GapP95 = len(gaps), percentile(gaps, 0.5), percentile(gaps, 0.95)
	c.GapMax = percentile(gaps, 1)
	c.Holders = len(held)
	for tok, d := range held {
		if d > held[c.Busiest] || d == held[c.Busiest] && (c.Busiest == "" || tok < c.Busiest) {
			c.Busiest = tok
		}
	}
	if c.Period > 0 && c.Busiest != "" {
		c.BusiestShare = min(float64(held[c.Busiest])/float64(c.Period), 1)
	}
	return c
}

// percentile is the nearest-rank percentile p (0 to 1) of ds, which it sorts; 0 when ds is empty.
func percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	slices.Sort(ds)
	rank := int(math.Ceil(p*float64(len(ds)))) - 1
	return ds[min(max(rank, 0), len(ds)-1)]
}
