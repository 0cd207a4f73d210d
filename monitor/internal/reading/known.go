package reading

import (
	"slices"
	"sort"
)

// KnownList is the keys a poll refreshes, sorted, with the place of each in that order: every master's
// discovery looks up each key it comes across in it, and a tracked master's cache is aligned with it
// (tracker.follow). One is shared by all the masters of a poll, and by the polls that follow while the keys do
// not change; nil stands for no keys.
type KnownList struct {
	keys []string
	free int // how many are the keys of free locks (StateFree), which do not count against Config.MaxKeys
}

// NewKnownList returns the list of keys, which are sorted and distinct. It keeps no index beside them: a key
// is found by binary search, which at 100,000 keys spares the 4-10 MB a map took, rebuilt whenever the keys
// change.
func NewKnownList(keys []string) *KnownList {
	return &KnownList{keys: keys}
}

// WithFree returns l counting free of its keys as free locks' keys: l itself when it does already, else a
// copy sharing its keys (a tracked master's cache stays aligned with them).
func (l *KnownList) WithFree(free int) *KnownList {
	if l == nil || l.free == free {
		return l
	}
	c := *l
	c.free = free
	return &c
}

// Counted is how many of the keys count against Config.MaxKeys: a free lock, which no master has, must not
// keep a new lock out of sight.
func (l *KnownList) Counted() int {
	if l == nil {
		return 0
	}
	return max(len(l.keys)-l.free, 0)
}

// List returns the keys, in order.
func (l *KnownList) List() []string {
	if l == nil {
		return nil
	}
	return l.keys
}

// Has reports whether key is one of the keys.
func (l *KnownList) Has(key string) bool {
	_, ok := l.at(key)
	return ok
}

// at returns where key is in the list, and whether it is there.
func (l *KnownList) at(key string) (int, bool) {
	if l == nil {
		return 0, false
	}
	return slices.BinarySearch(l.keys, key)
}

// CapKeys keeps, of the keys found new (found), the first room in key order: the others are taken out of the
// readings and counted as untracked by each reading that had them. It returns the keys kept.
func CapKeys(readings []*Reading, found []string, room int) []string {
	if len(found) <= room {
		return found
	}
	sort.Strings(found)
	dropped := make(map[string]bool, len(found)-room)
	for _, k := range found[room:] {
		dropped[k] = true
	}
	for _, r := range readings {
		kept := r.Keys[:0]
		for _, k := range r.Keys {
			if !dropped[k.Key] {
				kept = append(kept, k)
			}
		}
		if n := len(r.Keys) - len(kept); n > 0 && r.next != nil {
			r.next.leftOut(n)
			r.Untracked = r.next.untrackedNow()
		}
		r.Keys = kept
	}
	return found[:room]
}
