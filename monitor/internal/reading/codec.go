package reading

import (
	"encoding/json"
	"errors"
	"slices"
	"time"

	"github.com/redlock-tui/redlock-tui/monitor/millis"
)

// The recording codec: a recording (package record) keeps what each poll read, and replays it through the
// monitor's Aggregate. Readings are JSON with the fields Aggregate reads, unexported ones included. Durations
// are milliseconds under keys ending in _ms (format version 3); the nanoseconds of versions 1 and 2, under the
// Go fields' names, are still read.

// recordedReading is a Reading as a recording holds it: its exported fields, its error as text, and the
// unexported fields Aggregate reads.
type recordedReading struct {
	readingFields
	Err     string   `json:"Err,omitempty"`      // the master's error as text; the rest is then empty
	Seq     uint64   `json:"seq,omitempty"`      // a tracked master's reading's number
	DeltaOf uint64   `json:"delta_of,omitempty"` // a delta's: the number of the reading it builds on
	Delta   bool     `json:"delta,omitempty"`    // only the keys that changed since the reading numbered delta_of
	Unread  []string `json:"unread,omitempty"`   // keys a delta had no time to read: their cells are unknown
	Mode    string   `json:"mode,omitempty"`     // INFO server redis_mode: "sentinel" for a Sentinel given as a master
	// INFO server uptime_in_seconds, in milliseconds; -1 when unknown
	UptimeMS millis.Duration `json:"uptime_ms"`
	Uptime   time.Duration   `json:"Uptime,omitempty"` // versions 1 and 2: the uptime in nanoseconds (UnknownUptime: -1)
}

// readingFields is Reading without its methods, so that encoding it does not recurse.
type readingFields Reading

// MarshalJSON writes the reading for a recording (see Poll).
func (r Reading) MarshalJSON() ([]byte, error) {
	rec := recordedReading{readingFields: readingFields(r), Seq: r.Seq, DeltaOf: r.DeltaOf, Delta: r.Delta,
		Unread: r.Unread, Mode: r.mode, UptimeMS: toMillis(r.Uptime, UnknownUptime)}
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
	r.Seq, r.DeltaOf, r.Delta, r.Unread, r.mode = rec.Seq, rec.DeltaOf, rec.Delta, rec.Unread, rec.Mode
	r.Uptime = fromMillis(rec.UptimeMS, rec.Uptime, UnknownUptime)
	return nil
}

// toMillis is d for a key in milliseconds, with the sentinel unknown (a nanosecond below zero) written as -1,
// as Redis writes a TTL that does not exist.
func toMillis(d, unknown time.Duration) millis.Duration {
	if d == unknown {
		return millis.Duration(-time.Millisecond)
	}
	return millis.Duration(d)
}

// fromMillis is the duration a record holds: its nanoseconds under the Go field's name when a version 1 or 2
// record wrote them (not zero), else its milliseconds, with -1 the sentinel unknown.
func fromMillis(ms millis.Duration, nanos, unknown time.Duration) time.Duration {
	switch {
	case nanos != 0:
		return nanos
	case ms == millis.Duration(-time.Millisecond):
		return unknown
	}
	return time.Duration(ms)
}

// recordedPrimary is a cluster primary's reading as a recording holds it: Reading's own encoding would
// otherwise stand for the whole PrimaryReading and drop its id and slots.
type recordedPrimary struct {
	Reading Reading     `json:"reading"` // what the primary answered; its keys are in the cluster's reading
	ID      string      `json:"id"`      // its node id
	Slots   []SlotRange `json:"slots"`   // the slots it owns
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
	Refused bool     `json:"refused,omitempty"` // the master's ACL refused the read of this sorted set: not read, never absent
	Cut     cutState `json:"cut,omitempty"`     // of a value longer than Value: 1 too long to digest, 2 not digested (no lock), 3 Len and Digest unread
	// remaining TTL as the master reported it, in milliseconds; -1 when the key never expires
	PTTLMS millis.Duration `json:"pttl_ms"`
	// how far ReadAt may be off, in milliseconds: half the round trip the read was made in
	ReadWithinMS millis.Duration `json:"read_within_ms,omitempty"`
	PTTL         time.Duration   `json:"PTTL,omitempty"`       // versions 1 and 2: the TTL in nanoseconds (NoTTL: -1)
	ReadWithin   time.Duration   `json:"ReadWithin,omitempty"` // versions 1 and 2: ReadWithin in nanoseconds
}

// keyFields is KeyReading without its methods.
type keyFields KeyReading

// MarshalJSON writes the key's reading for a recording.
func (k KeyReading) MarshalJSON() ([]byte, error) {
	return json.Marshal(recordedKey{keyFields: keyFields(k), Refused: k.refused, Cut: k.cut,
		PTTLMS: toMillis(k.PTTL, NoTTL), ReadWithinMS: millis.Duration(k.ReadWithin)})
}

// UnmarshalJSON reads a key's reading a recording holds.
func (k *KeyReading) UnmarshalJSON(data []byte) error {
	var rec recordedKey
	if err := json.Unmarshal(data, &rec); err != nil {
		return err
	}
	*k = KeyReading(rec.keyFields)
	k.refused, k.cut = rec.Refused, rec.Cut
	k.PTTL = fromMillis(rec.PTTLMS, rec.PTTL, NoTTL)
	k.ReadWithin = fromMillis(rec.ReadWithinMS, rec.ReadWithin, -time.Millisecond)
	return nil
}

// SameRead reports whether k and o read the same key alike: equal in everything but when they were read
// (ReadAt, ReadWithin) and the TTL left then (PTTL), which a recording compares by the expiry they give. A
// recording writes a polled master's key only when it changed (package record).
func (k KeyReading) SameRead(o KeyReading) bool {
	return k.Key == o.Key && k.Node == o.Node && k.Value == o.Value && k.Absent == o.Absent &&
		(k.Fields == nil) == (o.Fields == nil) && slices.Equal(k.Fields, o.Fields) &&
		(k.Set == nil) == (o.Set == nil) && slices.Equal(k.Set, o.Set) &&
		k.refused == o.refused && k.cut == o.cut && k.Len == o.Len && k.Digest == o.Digest
}
