package monitor

import "slices"

// knownList is the keys a poll refreshes, sorted, with the place of each in that order: every master's
// discovery looks up each key it comes across in it, and a tracked master's cache is aligned with it
// (tracker.follow). One is shared by all the masters of a poll, and by the polls that follow while the keys do
// not change; nil stands for no keys.
type knownList struct {
	keys []string
	free int // how many are the keys of free locks (StateFree), which do not count against Config.MaxKeys
}

// newKnownList returns the list of keys, which are sorted and distinct. It keeps no index beside them: a key
// is found by binary search, which at 100,000 keys spares the 4-10 MB a map took, rebuilt whenever the keys
// change.
func newKnownList(keys []string) *knownList {
	return &knownList{keys: keys}
}

// withFree returns l counting free of its keys as free locks' keys: l itself when it does already, else a
// copy sharing its keys (a tracked master's cache stays aligned with them).
func (l *knownList) withFree(free int) *knownList {
	if l == nil || l.free == free {
		return l
	}
	c := *l
	c.free = free
	return &c
}

// counted is how many of the keys count against Config.MaxKeys: a free lock, which no master has, must not
// keep a new lock out of sight.
func (l *knownList) counted() int {
	if l == nil {
		return 0
	}
	return max(len(l.keys)-l.free, 0)
}

// list returns the keys, in order.
func (l *knownList) list() []string {
	if l == nil {
		return nil
	}
	return l.keys
}

// has reports whether key is one of the keys.
func (l *knownList) has(key string) bool {
	_, ok := l.at(key)
	return ok
}

// at returns where key is in the list, and whether it is there.
func (l *knownList) at(key string) (int, bool) {
	if l == nil {
		return 0, false
	}
	return slices.BinarySearch(l.keys, key)
}
