package monitor

import (
	"cmp"
	"encoding/json"
	"time"

	"github.com/redlock-tui/redlock-tui/monitor/millis"
)

// A recording (package record) keeps what each poll read, not what it made of it: Aggregate is a pure function
// of the readings, our locks, the time and the configuration, so replaying the readings in order rebuilds every
// snapshot as it was, with its hold logs, timelines, contention figures, events and warnings. This file makes
// readings and the configuration recordable: JSON with the fields Aggregate reads, unexported ones included.

// Poll is what one poll gave Aggregate: the readings, our locks and the time. A Monitor hands one to each
// function given to ObservePolls; Aggregate(prev, p.Readings, p.Own, p.Time, cfg) remakes its snapshot.
type Poll struct {
	Time     time.Time          `json:"time"`          // the poll's time, the snapshot's
	Readings []Reading          `json:"readings"`      // what each master (a Redis Cluster: the cluster) answered, in order
	Own      map[string]OwnLock `json:"own,omitempty"` // this process's own locks and force-deletions, by resource
}

// ObservePolls registers f to be called after every poll, in the polling goroutine, with what the poll gave
// Aggregate (see Poll), for a recorder. f must not keep p's slices beyond the call unless it copies them, nor
// block, nor call Poll.
func (m *Monitor) ObservePolls(f func(p Poll)) {
	m.mu.Lock()
	m.pollObservers = append(m.pollObservers, f)
	m.mu.Unlock()
}

// ReadWholeNext makes every tracked master's next reading whole, not a delta of the one before: a recording
// that starts a new file needs a reading that does not build on the last file.
func (m *Monitor) ReadWholeNext() {
	for _, p := range m.pollers {
		p.ReadWholeNext()
	}
}

// RecordedConfig is the part of a Config that Aggregate reads and a recording keeps: a replay aggregates with
// it. Advise, Owner and the I/O settings are not kept.
type RecordedConfig struct {
	Pattern      string         `json:"pattern"`           // SCAN MATCH pattern of discovery
	MaxValueLen  int            `json:"max_value_len"`     // values longer than this are cut
	Interval     time.Duration  `json:"interval"`          // poll interval
	Timeout      time.Duration  `json:"timeout"`           // per-master deadline of one poll
	DownAfter    int            `json:"down_after"`        // polls a master may miss before it is declared down
	DriftFactor  float64        `json:"drift_factor"`      // clock drift allowance, as a fraction of a TTL
	MaxEvents    int            `json:"max_events"`        // events a snapshot keeps
	FenceSuffix  string         `json:"fence_suffix"`      // names a resource's fence counter
	Writes       bool           `json:"writes"`            // the program also wrote (acquire, extend, release)
	Permits      map[string]int `json:"permits,omitempty"` // semaphores' limits, by key
	History      time.Duration  `json:"history"`           // how long each lock's holders are kept
	MaxIntervals int            `json:"max_intervals"`     // holders kept per lock at most
	NoTracking   bool           `json:"no_tracking"`       // every master was polled: all known keys read each poll
	MaxKeys      int            `json:"max_keys"`          // distinct lock keys tracked at most
}

// recordedConfigJSON is RecordedConfig as a recording holds it: its durations in milliseconds (format version
// 3), and those of versions 1 and 2, in nanoseconds under their old keys, still read.
type recordedConfigJSON struct {
	recordedConfigFields
	IntervalMS millis.Duration `json:"interval_ms"`        // poll interval
	TimeoutMS  millis.Duration `json:"timeout_ms"`         // per-master deadline of one poll
	HistoryMS  millis.Duration `json:"history_ms"`         // how long each lock's holders are kept
	Interval   time.Duration   `json:"interval,omitempty"` // versions 1 and 2: the poll interval in nanoseconds
	Timeout    time.Duration   `json:"timeout,omitempty"`  // versions 1 and 2: the deadline in nanoseconds
	History    time.Duration   `json:"history,omitempty"`  // versions 1 and 2: the history in nanoseconds
}

// recordedConfigFields is RecordedConfig without its methods.
type recordedConfigFields RecordedConfig

// MarshalJSON writes the configuration for a recording, its durations in milliseconds.
func (r RecordedConfig) MarshalJSON() ([]byte, error) {
	return json.Marshal(recordedConfigJSON{recordedConfigFields: recordedConfigFields(r),
		IntervalMS: millis.Duration(r.Interval), TimeoutMS: millis.Duration(r.Timeout), HistoryMS: millis.Duration(r.History)})
}

// UnmarshalJSON reads the configuration a recording holds, in any format version.
func (r *RecordedConfig) UnmarshalJSON(data []byte) error {
	var rec recordedConfigJSON
	if err := json.Unmarshal(data, &rec); err != nil {
		return err
	}
	*r = RecordedConfig(rec.recordedConfigFields)
	r.Interval, r.Timeout, r.History = cmp.Or(rec.Interval, time.Duration(rec.IntervalMS)),
		cmp.Or(rec.Timeout, time.Duration(rec.TimeoutMS)), cmp.Or(rec.History, time.Duration(rec.HistoryMS))
	return nil
}

// Recorded returns what a recording keeps of c, with the defaults applied.
func (c Config) Recorded() RecordedConfig {
	c = c.WithDefaults()
	return RecordedConfig{Pattern: c.Pattern, MaxValueLen: c.MaxValueLen, Interval: c.Interval, Timeout: c.Timeout,
		DownAfter: c.DownAfter, DriftFactor: c.DriftFactor, MaxEvents: c.MaxEvents, FenceSuffix: c.FenceSuffix,
		Writes: c.Writes, Permits: c.Permits, History: c.History, MaxIntervals: c.MaxIntervals,
		NoTracking: c.NoTracking, MaxKeys: c.MaxKeys}
}

// Config returns the configuration a replay aggregates with.
func (r RecordedConfig) Config() Config {
	return Config{Pattern: r.Pattern, MaxValueLen: r.MaxValueLen, Interval: r.Interval, Timeout: r.Timeout,
		DownAfter: r.DownAfter, DriftFactor: r.DriftFactor, MaxEvents: r.MaxEvents, FenceSuffix: r.FenceSuffix,
		Writes: r.Writes, Permits: r.Permits, History: r.History, MaxIntervals: r.MaxIntervals,
		NoTracking: r.NoTracking, MaxKeys: r.MaxKeys}.WithDefaults()
}
