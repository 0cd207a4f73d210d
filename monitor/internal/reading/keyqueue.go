package reading

import "strings"

// keyQueue is a queue of distinct keys named by notifications, oldest first, bounded to limit entries. A read
// takes keys from its front; they leave the queue only when the monitor accepts that read's reading, so a
// reading dropped at the deadline leaves them to be taken again.
type keyQueue struct {
	keys  []string            // oldest first; an entry whose key is not in in was taken out (stale)
	in    map[string]struct{} // the keys queued
	taken int                 // entries at the front of keys that the current read took
	limit int
}

// newKeyQueue returns an empty queue of at most limit entries.
func newKeyQueue(limit int) keyQueue {
	return keyQueue{in: map[string]struct{}{}, limit: limit}
}

// has reports whether key is queued.
func (q *keyQueue) has(key string) bool {
	_, ok := q.in[key]
	return ok
}

// push queues key at the back, unless it is queued already; it reports false when the queue is full.
func (q *keyQueue) push(key string) bool {
	if q.has(key) {
		return true
	}
	if len(q.keys) >= q.limit {
		return false
	}
	q.in[key] = struct{}{}
	q.keys = append(q.keys, key)
	return true
}

// remove takes key out of the queue; its entry stays, stale, until a read passes it.
func (q *keyQueue) remove(key string) { delete(q.in, key) }

// removeUnder takes every key under prefix out of the queue; their entries stay, stale, until a read passes them.
func (q *keyQueue) removeUnder(prefix string) {
	for k := range q.in {
		if strings.HasPrefix(k, prefix) {
			delete(q.in, k)
		}
	}
}

// take returns up to limit queued keys the current read has not taken yet, passing stale entries.
func (q *keyQueue) take(limit int) []string {
	var keys []string
	for ; q.taken < len(q.keys) && len(keys) < limit; q.taken++ {
		if k := q.keys[q.taken]; q.has(k) {
			keys = append(keys, k)
		}
	}
	return keys
}

// accept drops the keys the current read took: its reading was accepted.
func (q *keyQueue) accept() {
	for _, k := range q.keys[:q.taken] {
		delete(q.in, k)
	}
	clear(q.keys[:q.taken]) // the array keeps its front until append moves it: let go of the keys
	q.keys, q.taken = q.keys[q.taken:], 0
}
