package cli

import "runtime/debug"

// How the watch modes tune the garbage collector. By default Go lets the heap grow to twice what is live before
// it collects: at 100,000 locks on five masters, 170 MB live held 350 MB resident. Watching, the program
// allocates little once its keys are known, so it collects at a quarter over what is live instead (gcPercent),
// and caps the heap softly (memoryLimit) at what --max-keys locks on the masters given need with that margin,
// so that the memory the discovery of many keys took is given back to the system. GOGC and GOMEMLIMIT, when
// set, win (docs/scaling.md).
const (
	gcPercent = 25
	// heapBase is what the program holds beside the locks; heapPerLock and heapPerCell are what the snapshot,
	// its hold logs and the tracked masters' caches hold for a lock and for each master it is read on, as
	// measured at 100,000 locks on five masters (docs/scaling.md).
	heapBase    = 40 << 20
	heapPerLock = 1100
	heapPerCell = 80
)

// tuneMemory sets the garbage collector for watching up to maxKeys locks on masters masters, unless the
// environment sets GOGC or GOMEMLIMIT.
func tuneMemory(env Environment, maxKeys, masters int) {
	if env.Getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent)
	}
	if env.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(memoryLimit(maxKeys, masters))
	}
}

// memoryLimit is the soft limit of the heap for maxKeys locks on masters masters (at least one): what they
// need, with the collector's margin.
func memoryLimit(maxKeys, masters int) int64 {
	live := heapBase + int64(maxKeys)*(heapPerLock+int64(max(masters, 1))*heapPerCell)
	return live * (100 + gcPercent) / 100
}
