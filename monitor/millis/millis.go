// Package millis writes durations in JSON as milliseconds, the unit the events and the metrics use, rather than
// as Go's integer nanoseconds: a whole number when the duration is whole milliseconds, a decimal fraction (to the
// nanosecond) otherwise. A recording's records use it from format version 3.
package millis

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"
)

// Duration is a time.Duration that JSON holds as milliseconds.
type Duration time.Duration

// MarshalJSON writes d as milliseconds: 4880, 0.173456, -1.
func (d Duration) MarshalJSON() ([]byte, error) {
	if d%Duration(time.Millisecond) == 0 {
		return strconv.AppendInt(nil, int64(d)/int64(time.Millisecond), 10), nil
	}
	return strconv.AppendFloat(nil, float64(d)/float64(time.Millisecond), 'f', -1, 64), nil
}

// errRange is the error of a number of milliseconds that no duration holds.
var errRange = errors.New("out of the range of a duration")

// UnmarshalJSON reads milliseconds, rounded to the nanosecond. A number out of a duration's range (about ±292
// years) is an error, not a wrapped value.
func (d *Duration) UnmarshalJSON(data []byte) error {
	if i, err := strconv.ParseInt(string(data), 10, 64); err == nil {
		if i > math.MaxInt64/int64(time.Millisecond) || i < math.MinInt64/int64(time.Millisecond) {
			return fmt.Errorf("%s ms: %w", data, errRange)
		}
		*d = Duration(i * int64(time.Millisecond))
		return nil
	}
	f, err := strconv.ParseFloat(string(data), 64)
	if err != nil {
		return fmt.Errorf("%.40s: not a number of milliseconds", data)
	}
	ns := math.Round(f * float64(time.Millisecond))
	if math.IsNaN(ns) || ns >= math.MaxInt64 || ns < math.MinInt64 {
		return fmt.Errorf("%.40s ms: %w", data, errRange)
	}
	*d = Duration(ns)
	return nil
}
