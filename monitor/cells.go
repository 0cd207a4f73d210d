package monitor

import (
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// staleRatio is how many times longer than the other reads of its key a read must have waited to be taken as
// not current (see aggregateLocks).
const staleRatio = 4

// carry fills the cells of row that were not read (read[j] false) with the values last seen there, from p
// (nil: nothing seen before).
func carry(row []MasterLock, read []bool, p *LockView) {
	if p == nil {
		return
	}
	for j := range row {
		if !read[j] && j < len(p.Masters) && p.Masters[j].State != CellAbsent {
			row[j] = p.Masters[j]
			row[j].State = CellUnknown
		}
	}
}

// kept reports whether a resource is still tracked: some master has its key, or may have it (not read, with
// a value last seen there).
func kept(row []MasterLock) bool {
	for _, c := range row {
		if c.State == CellSeen || c.State == CellUnknown && c.Token != "" {
			return true
		}
	}
	return false
}

// hashHolder reads a hash lock's fields and values: its holders ("<client-uuid>:<thread-id>" fields, sorted,
// joined by commas), the first holder's hold count, and the mode field of a read-write lock.
func hashHolder(fields []string) (holder string, count int, mode string) {
	var holders []string
	for i := 0; i+1 < len(fields); i += 2 {
		f, v := fields[i], fields[i+1]
		switch {
		case f == "mode":
			mode = v
		case isHolderField(f):
			holders = append(holders, f)
		}
	}
	sort.Strings(holders)
	for i := 0; i+1 < len(fields) && len(holders) > 0; i += 2 {
		if fields[i] == holders[0] {
			count, _ = strconv.Atoi(fields[i+1])
		}
	}
	return strings.Join(holders, ","), count, mode
}

// isHolderField reports whether a hash field names a holder: "<client-id>:<thread-id>".
func isHolderField(f string) bool {
	i := strings.LastIndexByte(f, ':')
	if i <= 0 || i == len(f)-1 {
		return false
	}
	for _, c := range f[i+1:] {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// medianDuration returns the median of the durations of ds that are not negative (the upper one of the middle
// two), 0 when there are none. It sorts ds.
func medianDuration(ds []time.Duration) time.Duration {
	slices.Sort(ds)
	first := 0
	for first < len(ds) && ds[first] < 0 {
		first++
	}
	if first == len(ds) {
		return 0
	}
	return ds[first+(len(ds)-first)/2]
}
