package record

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/redlock-tui/redlock-tui/monitor/vocab"
)

// Moment reads a moment of the recording as people quote one: a time of day on the recording's first day, in
// its time zone ("03:12:07", "03:12", the second day's when the recording crosses midnight and the first day's
// is before it began), a full time ("2026-11-27T03:12:07Z", "2026-11-27 03:12:07"), "+D" from the recording's
// start ("+90s", "+5m") or "end". A moment outside the recording is refused with an error that names its span,
// rather than taken for its first or last poll: one before the first poll, or past the second of the last (a
// moment is quoted to the second, the polls are listed to the millisecond). The player must hold a poll.
func (p *Player) Moment(s string) (time.Time, error) {
	at, err := p.parseMoment(s)
	if err != nil {
		return time.Time{}, err
	}
	start, end := p.Time(0), p.Time(p.Len()-1)
	switch {
	case at.Before(start):
		return time.Time{}, fmt.Errorf("%s is before the recording began: it spans %s", clockText(at, start), p.Span())
	case !at.Before(end.Truncate(time.Second).Add(time.Second)):
		return time.Time{}, fmt.Errorf("%s is after the recording ended: it spans %s", clockText(at, start), p.Span())
	}
	return at, nil
}

// Span is the span of the recording in words: "2026-11-27 03:00:00.250 to 03:12:07.500 (12m07s)", the end's
// date given when it is another day. The player must hold a poll.
func (p *Player) Span() string {
	start, end := p.Time(0), p.Time(p.Len()-1)
	return fmt.Sprintf("%s to %s (%s)", start.Format("2006-01-02 15:04:05.000"), clockText(end, start),
		vocab.ShortDuration(end.Sub(start)))
}

// clockText writes t, a moment of a recording that began at start, as the moments are listed: its time of
// day to the millisecond, after its date when that is not start's.
func clockText(t, start time.Time) string {
	if y, m, d := t.Date(); y != start.Year() || m != start.Month() || d != start.Day() {
		return t.Format("2006-01-02 15:04:05.000")
	}
	return t.Format("15:04:05.000")
}

// parseMoment reads a moment as Moment takes it, inside the recording or not.
func (p *Player) parseMoment(s string) (time.Time, error) {
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
