package monitor

import (
	"encoding/json"
	"errors"
	"time"
)

// A recording (package record) keeps what each poll read, not what it made of it: Aggregate is a pure function
// of the readings, our locks, the time and the configuration, so replaying the readings in order rebuilds every
// snapshot as it was, with its hold logs, timelines, contention figures, events and warnings. This file makes
// readings and the configuration recordable: JSON with the fields Aggregate reads, unexported ones included.

// Poll is what one poll gave Aggregate: the readings, our locks and the time. A Monitor hands one to each
// function given to ObservePolls; Aggregate(prev, p.Readings, p.Own, p.Time, cfg) remakes its snapshot.
type Poll struct {
	Time     time.Time          `json:"time"`
	Readings []Reading          `json:"readings"`
	Own      map[string]OwnLock `json:"own,omitempty"`
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
		if p, ok := p.(*poller); ok && p.track != nil {
			p.track.accepted.Store(0)
		}
	}
}

// recordedReading is a Reading as a recording holds it: its exported fields, its error as text, and the
// unexported fields Aggregate reads.
type recordedReading struct {
	readingFields
	Err     string   `json:"Err,omitempty"`
	Seq     uint64   `json:"seq,omitempty"`
	DeltaOf uint64   `json:"delta_of,omitempty"`
	Delta   bool     `json:"delta,omitempty"`
	Unread  []string `json:"unread,omitempty"`
	Mode    string   `json:"mode,omitempty"`
}

// readingFields is Reading without its methods, so that encoding it does not recurse.
type readingFields Reading

// MarshalJSON writes the reading for a recording (see Poll).
func (r Reading) MarshalJSON() ([]byte, error) {
	rec := recordedReading{readingFields: readingFields(r), Seq: r.seq, DeltaOf: r.deltaOf, Delta: r.delta,
		Unread: r.unread, Mode: r.mode}
	if r.Err != nil {
		rec.Err = r.Err.Error()
	}
	return json.Marshal(rec)
}

// UnmarshalJSON reads a reading a recording holds; its error comes back as its text.
func (r *Reading) UnmarshalJSON(data []byte) error {
	var rec recordedReading
	if err := json.Unmarshal(data, &rec); err != nil {
		return err
	}
	*r = Reading(rec.readingFields)
	r.Err = nil
	if rec.Err != "" {
		r.Err = errors.New(rec.Err)
	}
	r.seq, r.deltaOf, r.delta, r.unread, r.mode = rec.Seq, rec.DeltaOf, rec.Delta, rec.Unread, rec.Mode
	return nil
}

// recordedPrimary is a cluster primary's reading as a recording holds it: Reading's own encoding would
// otherwise stand for the whole PrimaryReading and drop its id and slots.
type recordedPrimary struct {
	Reading Reading     `json:"reading"`
	ID      string      `json:"id"`
	Slots   []SlotRange `json:"slots"`
}

// MarshalJSON writes the primary's reading for a recording.
func (p PrimaryReading) MarshalJSON() ([]byte, error) {
	return json.Marshal(recordedPrimary{Reading: p.Reading, ID: p.ID, Slots: p.Slots})
}

// UnmarshalJSON reads a primary's reading a recording holds.
func (p *PrimaryReading) UnmarshalJSON(data []byte) error {
	var rec recordedPrimary
	if err := json.Unmarshal(data, &rec); err != nil {
		return err
	}
	*p = PrimaryReading{Reading: rec.Reading, ID: rec.ID, Slots: rec.Slots}
	return nil
}

// recordedKey is a KeyReading as a recording holds it, with what is known of its value's reading.
type recordedKey struct {
	keyFields
	Refused bool     `json:"refused,omitempty"`
	Cut     cutState `json:"cut,omitempty"`
}

// keyFields is KeyReading without its methods.
type keyFields KeyReading

// MarshalJSON writes the key's reading for a recording.
func (k KeyReading) MarshalJSON() ([]byte, error) {
	return json.Marshal(recordedKey{keyFields: keyFields(k), Refused: k.refused, Cut: k.cut})
}

// UnmarshalJSON reads a key's reading a recording holds.
func (k *KeyReading) UnmarshalJSON(data []byte) error {
	var rec recordedKey
	if err := json.Unmarshal(data, &rec); err != nil {
		return err
	}
	*k = KeyReading(rec.keyFields)
	k.refused, k.cut = rec.Refused, rec.Cut
	return nil
}

// RecordedConfig is the part of a Config that Aggregate reads and a recording keeps: a replay aggregates with
// it. Advise, Owner and the I/O settings are not kept.
type RecordedConfig struct {
	Pattern      string         `json:"pattern"`
	MaxValueLen  int            `json:"max_value_len"`
	Interval     time.Duration  `json:"interval"`
	Timeout      time.Duration  `json:"timeout"`
	DownAfter    int            `json:"down_after"`
	DriftFactor  float64        `json:"drift_factor"`
	MaxEvents    int            `json:"max_events"`
	FenceSuffix  string         `json:"fence_suffix"`
	Writes       bool           `json:"writes"`
	Permits      map[string]int `json:"permits,omitempty"`
	History      time.Duration  `json:"history"`
	MaxIntervals int            `json:"max_intervals"`
	NoTracking   bool           `json:"no_tracking"`
	MaxKeys      int            `json:"max_keys"`
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
