package kit

import (
	"strings"

	"github.com/redlock-tui/redlock-tui/monitor"
)

// MoreText is the banner's last line when it cannot show every warning: the errors and the warnings it leaves
// out, each counted under its own word ("✖ 10 more errors · ▲ 1 more warning: see the event log"), and
// whether any of them is an error (the line then takes the error's style).
func MoreText(left []WarningRow) (string, bool) {
	errs, warns := 0, 0
	for _, w := range left {
		if w.Severity == monitor.SeverityError {
			errs++
		} else {
			warns++
		}
	}
	var parts []string
	if errs > 0 {
		parts = append(parts, "✖ "+Plural(errs, "more error"))
	}
	if warns > 0 {
		parts = append(parts, "▲ "+Plural(warns, "more warning"))
	}
	return strings.Join(parts, " · ") + ": see the event log", errs > 0
}

// MasterWarnings are the warnings of snap about master m, each with its severity: about m itself, and, for a
// Redis Cluster, about each of its primaries, the text then after the primary's address (as
// MasterStatus.Warnings gives them, without their severity).
func MasterWarnings(snap *monitor.Snapshot, m *monitor.MasterStatus) []monitor.Warning {
	var out []monitor.Warning
	for _, w := range snap.Warnings {
		if w.Master == m.Addr {
			out = append(out, w)
		}
	}
	if m.Cluster == nil {
		return out
	}
	for _, p := range m.Cluster.Primaries {
		for _, w := range snap.Warnings {
			if w.Master == p.Addr && p.Addr != m.Addr {
				w.Text = p.Addr + ": " + w.Text
				out = append(out, w)
			}
		}
	}
	return out
}
