package monitor

import "sort"

// keysToRefresh returns, sorted, every key the poll after s must re-read on every master: its locks, the fence
// counters of those that have one and of ours, the candidates it keeps out of sight, and our registered locks.
// A lock's counter is read in the snapshot that finds the lock (see readAll); a lock that had none then is not
// asked for one again (with 100,000 unfenced locks that read doubled the keys of every poll), until it is found
// anew or the sweep comes across its counter.
func (s *Snapshot) keysToRefresh(own map[string]OwnLock) []string {
	var keys []string
	if s != nil {
		keys = make([]string, 0, len(s.Locks)+len(s.hidden)+2*len(own))
		for _, l := range s.Locks {
			keys = append(keys, l.Resource)
			if l.Fence > 0 {
				keys = append(keys, l.Resource+s.fenceSuffix)
			}
		}
		for _, h := range s.hidden {
			keys = append(keys, h.Resource)
		}
	}
	for res := range own {
		keys = append(keys, res)
		if s != nil {
			keys = append(keys, res+s.fenceSuffix)
		}
	}
	sort.Strings(keys)
	out := keys[:0]
	for i, k := range keys {
		if i == 0 || k != keys[i-1] {
			out = append(out, k)
		}
	}
	return out
}
