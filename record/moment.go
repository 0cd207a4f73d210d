package record

import (
	"errors"
	"strings"
	"time"
)

// Moment reads a moment of the recording as people quote one: a time of day on the recording's first day, in
// its time zone ("03:12:07", "03:12", the second day's when the recording crosses midnight and the first day's
// is before it began), a full time ("2026-11-27T03:12:07Z", "2026-11-27 03:12:07"), "+D" from the recording's
// start ("+90s", "+5m") or "end". The player must hold a poll.
func (p *Player) Moment(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	start, end := p.Time(0), p.Time(p.Len()-1)
	switch {
	case s == "end":
		return end, nil
	case strings.HasPrefix(s, "+"):
		d, err := time.ParseDuration(s[1:])
		if err != nil {
			return time.Time{}, errors.New("want a duration after +, such as +90s or +5m")
		}
		return start.Add(d), nil
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02 15:04:05.999999999", "2006-01-02T15:04:05.999999999"} {
		if t, err := time.ParseInLocation(layout, s, start.Location()); err == nil {
			return t, nil
		}
	}
	for _, layout := range []string{"15:04:05.999999999", "15:04"} {
		if t, err := time.ParseInLocation(layout, s, start.Location()); err == nil {
			y, m, d := start.Date()
			day := time.Date(y, m, d, t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), start.Location())
			if day.Before(start.Truncate(time.Second)) && day.Add(24*time.Hour).Before(end.Add(time.Second)) {
				day = day.Add(24 * time.Hour) // a recording across midnight: the time of its second day
			}
			return day, nil
		}
	}
	return time.Time{}, errors.New("want a time such as 03:12:07, 2026-11-27T03:12:07Z, +5m or end")
}
