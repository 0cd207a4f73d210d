package monitor

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
	"unicode"
	"unicode/utf8"
)

// jsonSnapshot is the --once --json format: field names are part of the command-line interface.
type jsonSnapshot struct {
	Seq            uint64        `json:"seq"`
	Time           time.Time     `json:"time"`
	Quorum         int           `json:"quorum"`
	UpCount        int           `json:"up_count"`
	Truncated      bool          `json:"truncated"`
	NotLocks       int           `json:"not_locks"`
	Masters        []jsonMaster  `json:"masters"`
	Locks          []jsonLock    `json:"locks"`
	Warnings       []string      `json:"warnings"`
	WarningDetails []jsonWarning `json:"warning_details"`
	Events         []jsonEvent   `json:"events"`
}

type jsonMaster struct {
	Addr          string     `json:"addr"`
	Up            bool       `json:"up"`
	Error         string     `json:"error,omitempty"`
	RTTMS         float64    `json:"rtt_ms"`
	RTTSmoothedMS float64    `json:"rtt_smoothed_ms"`
	ClockKnown    bool       `json:"clock_known"`
	ClockOffsetMS float64    `json:"clock_offset_ms"`
	ClockUncertMS float64    `json:"clock_uncertainty_ms"`
	DriftPPM      *float64   `json:"drift_ppm"` // null when unknown
	Role          string     `json:"role"`
	Version       string     `json:"version"`
	RunID         string     `json:"run_id"`
	UptimeS       *int64     `json:"uptime_s"` // null when unknown
	Replicas      *int       `json:"replicas"` // null when unknown
	LastRestart   *time.Time `json:"last_restart"`
	Keys          int        `json:"keys"`
	Incomplete    bool       `json:"incomplete"`
	Warnings      []string   `json:"warnings"`
}

type jsonLock struct {
	Resource    string           `json:"resource"`
	State       LockState        `json:"state"`
	Holder      string           `json:"holder"`
	Count       int              `json:"count"`
	ValidityMS  int64            `json:"validity_ms"`
	TTLSpreadMS int64            `json:"ttl_spread_ms"`
	Foreign     bool             `json:"foreign"`
	Mine        bool             `json:"mine"`
	HeldSince   *time.Time       `json:"held_since"`
	Changes     int              `json:"changes"`
	LastChange  *time.Time       `json:"last_change"`
	Masters     []jsonMasterLock `json:"masters"`
}

type jsonMasterLock struct {
	Token   string `json:"token"`
	PTTLMS  int64  `json:"pttl_ms"`
	Present bool   `json:"present"`
	Down    bool   `json:"down"`
}

type jsonWarning struct {
	Severity string `json:"severity"`
	Kind     string `json:"kind"`
	Master   string `json:"master,omitempty"`
	Text     string `json:"text"`
}

type jsonEvent struct {
	Time     time.Time `json:"time"`
	Kind     EventKind `json:"kind"`
	Resource string    `json:"resource,omitempty"`
	Master   string    `json:"master,omitempty"`
	Text     string    `json:"text"`
}

// ms converts d to fractional milliseconds.
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// timePtr is nil for the zero time, so JSON shows null.
func timePtr(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

// WriteJSON writes s as one JSON document, the --once --json format: quorum, masters (addr, up, ...), locks
// (resource, state, holder, masters aligned with the top-level ones with token and pttl_ms, ...), warnings as
// strings, plus details. Strings are JSON-escaped; bytes that are not UTF-8 become U+FFFD.
func WriteJSON(w io.Writer, s Snapshot) error {
	out := jsonSnapshot{
		Seq: s.Seq, Time: s.Time, Quorum: s.Quorum, UpCount: s.UpCount, Truncated: s.Truncated, NotLocks: s.NotLocks,
		Masters:        make([]jsonMaster, len(s.Masters)),
		Locks:          make([]jsonLock, len(s.Locks)),
		Warnings:       make([]string, len(s.Warnings)),
		WarningDetails: make([]jsonWarning, len(s.Warnings)),
		Events:         make([]jsonEvent, len(s.Events)),
	}
	for i, m := range s.Masters {
		jm := jsonMaster{
			Addr: m.Addr, Up: m.Up, Error: m.Err,
			RTTMS: ms(m.RTT), RTTSmoothedMS: ms(m.RTTSmoothed),
			ClockKnown: m.ClockKnown, ClockOffsetMS: ms(m.ClockOffset), ClockUncertMS: ms(m.ClockUncertainty),
			Role: m.Role, Version: m.Version, RunID: m.RunID,
			LastRestart: timePtr(m.LastRestart), Keys: m.Keys, Incomplete: m.Incomplete, Warnings: append([]string{}, m.Warnings...),
		}
		if m.DriftKnown {
			jm.DriftPPM = &m.DriftPPM
		}
		if m.Uptime >= 0 {
			up := int64(m.Uptime / time.Second)
			jm.UptimeS = &up
		}
		if m.Replicas >= 0 {
			jm.Replicas = &m.Replicas
		}
		out.Masters[i] = jm
	}
	for i, l := range s.Locks {
		jl := jsonLock{
			Resource: l.Resource, State: l.State, Holder: l.Holder, Count: l.Count,
			ValidityMS: l.Validity.Milliseconds(), TTLSpreadMS: l.TTLSpread.Milliseconds(),
			Foreign: l.Foreign, Mine: l.Mine, HeldSince: timePtr(l.HeldSince), Changes: l.Changes,
			LastChange: timePtr(l.LastChange), Masters: make([]jsonMasterLock, len(l.Masters)),
		}
		for j, c := range l.Masters {
			jl.Masters[j] = jsonMasterLock{Token: c.Token, PTTLMS: c.PTTL.Milliseconds(), Present: c.Present, Down: c.Down}
		}
		out.Locks[i] = jl
	}
	for i, wn := range s.Warnings {
		out.Warnings[i] = wn.String()
		out.WarningDetails[i] = jsonWarning{Severity: wn.Severity.String(), Kind: wn.Kind, Master: wn.Master, Text: wn.Text}
	}
	for i, e := range s.Events {
		out.Events[i] = jsonEvent{Time: e.Time, Kind: e.Kind, Resource: e.Resource, Master: e.Master, Text: e.Text}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// WriteTable writes s as plain-text tables: masters, locks, warnings. Key names, tokens, addresses and error
// texts are escaped so they cannot carry terminal control sequences.
func WriteTable(w io.Writer, s Snapshot) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	p := func(format string, args ...any) { fmt.Fprintf(tw, format, args...) }
	trunc := ""
	if s.Truncated {
		trunc = "  TRUNCATED"
	}
	p("snapshot %d at %s: %d/%d masters up, quorum %d, %d locks, %d keys not locks%s\n\n",
		s.Seq, s.Time.Format(time.RFC3339), s.UpCount, len(s.Masters), s.Quorum, len(s.Locks), s.NotLocks, trunc)

	p("MASTER\tSTATUS\tRTT\tCLOCK OFFSET\tDRIFT\tROLE\tVERSION\tUPTIME\tREPLICAS\tKEYS\n")
	for _, m := range s.Masters {
		status := "up"
		if m.Incomplete {
			status = "up, scan incomplete"
		}
		if !m.Up {
			status = "down: " + m.Err
		}
		rtt, offset, drift, uptime, replicas := "-", "?", "?", "?", "?"
		if m.Up {
			rtt = fmt.Sprintf("%.3fms", ms(m.RTT))
		}
		if m.ClockKnown {
			offset = fmt.Sprintf("%+.3fms ±%.3fms", ms(m.ClockOffset), ms(m.ClockUncertainty))
		}
		if m.DriftKnown {
			drift = fmt.Sprintf("%+.0fppm", m.DriftPPM)
		}
		if m.Uptime >= 0 {
			uptime = m.Uptime.String()
		}
		if m.Replicas >= 0 {
			replicas = strconv.Itoa(m.Replicas)
		}
		p("%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\n", Escape(m.Addr), Escape(status), rtt, offset, drift,
			Escape(m.Role), orUnknown(Escape(m.Version)), uptime, replicas, m.Keys)
	}

	if len(s.Locks) > 0 {
		p("\nRESOURCE\tSTATE\tHOLDER\tCOUNT\tVALIDITY\tSPREAD\tFLAGS\tPER MASTER (token:pttl)\n")
		for _, l := range s.Locks {
			var flags []string
			if l.Mine {
				flags = append(flags, "mine")
			}
			if l.Foreign {
				flags = append(flags, "foreign")
			}
			cells := make([]string, len(l.Masters))
			for j, c := range l.Masters {
				switch {
				case c.Down:
					cells[j] = "down"
				case !c.Present:
					cells[j] = "-"
				default:
					cells[j] = Escape(short(c.Token)) + ":" + c.PTTL.String()
				}
			}
			p("%s\t%s\t%s\t%d/%d\t%s\t%s\t%s\t%s\n", Escape(l.Resource), l.State, orDash(Escape(short(l.Holder))), l.Count,
				len(l.Masters), l.Validity.Round(time.Millisecond), l.TTLSpread, orDash(strings.Join(flags, ",")), strings.Join(cells, " "))
		}
	}
	if len(s.Warnings) > 0 {
		p("\nWARNINGS\n")
		for _, wn := range s.Warnings {
			p("%s\n", Escape(wn.String()))
		}
	}
	return tw.Flush()
}

// short cuts a token for a table cell.
func short(s string) string {
	const width = 24
	if len(s) <= width {
		return s
	}
	for i := width; i > 0; i-- {
		if utf8.RuneStart(s[i]) {
			return s[:i] + "…"
		}
	}
	return s[:width] + "…"
}

// orDash shows "-" for an empty cell.
func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// orUnknown shows "?" for an unknown value.
func orUnknown(s string) string {
	if s == "" {
		return "?"
	}
	return s
}

// Escape makes untrusted text (key names, tokens, error texts) safe to print on a terminal: control
// characters (including ESC, C1 and bidirectional controls), invalid UTF-8 and backslashes are written as Go
// escapes (\x1b, \u202e, \\); printable text is unchanged.
func Escape(s string) string {
	safe := true
	for _, r := range s {
		if r == '\\' || r == utf8.RuneError || !unicode.IsPrint(r) {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\\':
			b.WriteString(`\\`)
		case unicode.IsPrint(r):
			b.WriteRune(r)
		default:
			q := strconv.QuoteRuneToASCII(r)
			b.WriteString(q[1 : len(q)-1])
		}
		i += size
	}
	return b.String()
}
