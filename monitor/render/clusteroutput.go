package render

import (
	"strconv"
	"time"

	"github.com/redlock-tui/redlock-tui/monitor"
	"github.com/redlock-tui/redlock-tui/monitor/internal/reading"
	"github.com/redlock-tui/redlock-tui/monitor/vocab"
	"github.com/redlock-tui/redlock-tui/monitor/vocab/untrusted"
)

// jsonCluster is a cluster master's "cluster" in the --once --json format.
type jsonCluster struct {
	Primaries []jsonPrimary `json:"primaries"`
}

// jsonPrimary is one primary: the fields of a master, its node id and its slots ("0-5460,10923").
type jsonPrimary struct {
	jsonMaster
	ID    string `json:"id"`
	Slots string `json:"slots"`
}

// toJSONCluster converts a cluster's status; nil for a master.
func toJSONCluster(c *monitor.ClusterStatus) *jsonCluster {
	if c == nil {
		return nil
	}
	out := &jsonCluster{Primaries: make([]jsonPrimary, len(c.Primaries))}
	for i, p := range c.Primaries {
		out.Primaries[i] = jsonPrimary{jsonMaster: toJSONMaster(p.MasterStatus), ID: p.ID, Slots: reading.SlotsText(p.Slots)}
	}
	return out
}

// tableClusters writes, for each cluster among masters, the table of its primaries with p.
func tableClusters(p func(string, ...any), masters []monitor.MasterStatus) {
	for _, m := range masters {
		if m.Cluster == nil {
			continue
		}
		p("\nPRIMARY OF %s\tSLOTS\tSTATUS\tRTT\tCLOCK OFFSET\tUPTIME\tKEYS\tSCANNED\n", column(untrusted.Escape(m.Addr)))
		for _, pr := range m.Cluster.Primaries {
			status := pr.StateText()
			rtt, offset, uptime := "-", "?", "?"
			if pr.Up {
				rtt = vocab.Latency(pr.RTT)
			}
			if pr.ClockKnown {
				offset = vocab.Offset(pr.ClockOffset, pr.ClockUncertainty)
			}
			if pr.Uptime >= 0 {
				uptime = pr.Uptime.Round(time.Second).String()
			}
			scanned := "sweep " + pr.Sweep.Progress()
			if pr.Sweep.Completed > 0 {
				scanned = strconv.Itoa(pr.Sweep.Completed) + " sweeps"
			}
			p("%s\t%s\t%s\t%s\t%s\t%s\t%d\t%s\n", column(untrusted.Escape(pr.Addr)), column(reading.SlotsText(pr.Slots)),
				column(untrusted.Escape(status)), rtt, offset, uptime, pr.Keys, scanned)
		}
	}
}
