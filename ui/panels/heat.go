package panels

import (
	"time"

	"github.com/redlock-tui/redlock-tui/monitor"
)

// hotPerMinute is the heat from which a lock is marked hot in the locks panel: holders that began their tenure
// within the last minute.
const hotPerMinute = 10

// sortHeat sorts the locks by heat, hottest first: not in the Sort key's cycle, the Heat key's own.
const sortHeat = sortModes

// hotMark marks a hot lock's row, after the cursor.
const hotMark = "▲"

// heat is how many holders began their tenure of lv within the minute before at (the snapshot's time).
func heat(lv *monitor.LockView, at time.Time) int {
	return lv.History.AcquiredSince(at.Add(-monitor.LastMinute))
}

// sortByHeat sorts the locks panel by heat, hottest first, or back by resource when it already is. Either way
// the order starts as its key says, not reversed: after Reverse, hottest first still means hottest first.
func (p *LocksPanel) sortByHeat() {
	if p.Sort == sortHeat {
		p.Sort = SortResource
	} else {
		p.Sort = sortHeat
	}
	p.reverse = false
	p.rebuild()
}
