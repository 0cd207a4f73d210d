package reading

import (
	"strconv"
	"strings"
)

// A master's counters of the keys it removed itself, read from INFO: how a lock key that vanished before its TTL
// went is told from them (the monitor's removals.go).

// KeyCounters are a master's counts, since it started (or its last CONFIG RESETSTAT), of the keys it removed
// itself and of the commands that remove keys: they tell how a lock key that vanished before its TTL went.
// Known is false when INFO did not tell.
type KeyCounters struct {
	Known   bool
	Evicted int64 // INFO stats evicted_keys
	Expired int64 // INFO stats expired_keys
	Flushes int64 // FLUSHALL and FLUSHDB calls (INFO commandstats)
	Deletes int64 // DEL, UNLINK and GETDEL calls, also by scripts (INFO commandstats)
}

// Commands whose calls KeyCounters count, as INFO commandstats names them (a renamed command keeps its name).
var (
	flushCommands  = []string{"cmdstat_flushall", "cmdstat_flushdb"}
	deleteCommands = []string{"cmdstat_del", "cmdstat_unlink", "cmdstat_getdel"}
)

// keyCountersOf reads the counters from INFO stats and commandstats fields (stats: whether INFO stats
// answered, commands: whether INFO commandstats did).
func keyCountersOf(fields map[string]string, stats, commands bool) KeyCounters {
	evicted, err1 := strconv.ParseInt(fields["evicted_keys"], 10, 64)
	expired, err2 := strconv.ParseInt(fields["expired_keys"], 10, 64)
	if !stats || !commands || err1 != nil || err2 != nil {
		return KeyCounters{}
	}
	return KeyCounters{Known: true, Evicted: evicted, Expired: expired,
		Flushes: callsOf(fields, flushCommands), Deletes: callsOf(fields, deleteCommands)}
}

// callsOf sums the calls INFO commandstats counts for names: "calls=12,usec=...". A command never called is
// not listed: 0.
func callsOf(fields map[string]string, names []string) int64 {
	var n int64
	for _, name := range names {
		stat, _, _ := strings.Cut(fields[name], ",")
		if v, ok := strings.CutPrefix(stat, "calls="); ok {
			calls, _ := strconv.ParseInt(v, 10, 64)
			n += calls
		}
	}
	return n
}
