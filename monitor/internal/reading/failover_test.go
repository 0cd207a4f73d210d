package reading

import (
	"testing"

	"github.com/redlock-tui/redlock-tui/redlock"
)

func TestFailoverInfoReadsTheReplicationIDs(t *testing.T) {
	var r Reading
	failoverInfo(map[string]string{"master_replid": "abc", "master_replid2": "0000000000000000000000000000000000000000",
		"master_host": "10.0.0.9", "master_port": "6380", "redis_mode": "sentinel"}, &r)
	if r.ReplID != "abc" || r.ReplID2 != "" || r.ReplicaOf != "10.0.0.9:6380" || r.mode != "sentinel" {
		t.Errorf("reading %+v; want replid abc, no replid2 (all zeros), replica of 10.0.0.9:6380, mode sentinel", r)
	}
}

func TestNotAMasterIsRefused(t *testing.T) {
	p := &poller{addr: "a"}
	for _, err := range []error{
		&redlock.SentinelPortError{Addr: "h:26379"},
		&redlock.SentinelError{Master: "m", Answers: []string{`h:26379 knows no master "m"`}, Refused: true},
	} {
		if r := p.failed(err); !r.Refused {
			t.Errorf("%v: not refused; a master that is not one is down at once", err)
		}
	}
	if r := p.failed(&redlock.SentinelError{Master: "m", Answers: []string{"h:26379: i/o timeout"}}); r.Refused {
		t.Error("Sentinels that did not answer made the master refused; waiting may help")
	}
}
