// Package reading reads the masters for the monitor: each poll, a Source (one master, or a Redis Cluster read
// as one) hands back a Reading, what the master answered with the local times needed to interpret it. Reading
// is the contract with the monitor's aggregator, which imports this package; this one imports nothing of the
// monitor. It is internal to the monitor, which names its public types (monitor.Reading, ...).
//
// Files:
//   - source.go: Source, NewMaster and NewCluster: what the Monitor polls.
//   - config.go: Config, what the reads need of the monitor's configuration.
//   - poll.go: Reading and KeyReading; one master's read: refresh of the known keys, discovery, INFO.
//   - sweepcounts.go: Sweep, discovery's progress, and what a sweep passed over.
//   - candidates.go: the rules a key found must pass to be read as a lock.
//   - known.go: KnownList, the keys a poll refreshes; CapKeys, the cap on keys tracked.
//   - tracking.go, trackplan.go, trackedread.go, invalidations.go, storm.go: re-reading only the keys a master
//     says changed (CLIENT TRACKING), its cache and plan, invalidations, and storms that turn it to polling.
//   - refreshmode.go: why a master is polled by design.
//   - keyspace.go, keyspaceread.go, keyqueue.go: new keys named by keyspace notifications, and their queues.
//   - announce.go: new keys under the known lock families' prefixes, announced by the master (CLIENT TRACKING BCAST).
//   - scripts.go: the read scripts, flagged no-writes where the server takes flags; a write pause.
//   - longvalues.go: values longer than Config.MaxValueLen: cut, with their length and digest.
//   - sets.go: sorted-set locks as the scripts read them.
//   - access.go: what the master's ACL lets us run, by ACL DRYRUN or probes, and refusals met while reading.
//   - failover.go: INFO's replication fields, a master named through Sentinels, a Sentinel given as one.
//   - counters.go: a master's counters of the keys it removed itself (evictions, flushes, deletes).
//   - waiters.go: Redisson's waiters, the subscribers of its locks' channels.
//   - cluster.go: a Redis Cluster's primaries, their scans, and keys read where their slots are.
//   - codec.go: Readings as a recording keeps them (JSON).
package reading
