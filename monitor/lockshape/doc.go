// Package lockshape tells lock keys from the other keys of a Redis by their shapes, and which client a lock's
// key and token suggest. It depends on nothing of the monitor: the reads use it to choose what discovery lists,
// the aggregator to name a lock's family and resource.
//
// Files:
//   - shape.go: lock-shaped values and keys named as locks (and the same rule in Lua for the scripts).
//   - family.go: the client families a token's shape fits, and clients' bookkeeping keys.
//   - conventions.go: clients' key conventions (prefixes), KeyFormat for taking a lock in a peer's.
//   - sets.go: sorted-set locks (Symfony Lock, redis-semaphore): whether a set is one, and its token.
//   - glob.go: Redis's glob match, for keys named by notifications.
//   - valuetime.go: a lock's value read as a Unix time.
package lockshape
