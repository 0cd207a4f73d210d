package app

import (
	"bytes"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/redlock-tui/redlock-tui/metrics"
)

// TestMetricsServedToTheNetworkAreWarnedOf: the metrics have no authentication, so a --metrics address that
// listens beyond the loopback interface (every interface, ":P", "0.0.0.0:P", "[::]:P", or a host's own
// address) gets a warning on stderr, where the address is told; a loopback one does not.
func TestMetricsServedToTheNetworkAreWarnedOf(t *testing.T) {
	ipv6 := true
	if ln, err := net.Listen("tcp", "[::1]:0"); err != nil {
		ipv6 = false
	} else {
		ln.Close()
	}
	for _, tc := range []struct {
		addr   string
		warned bool
		ipv6   bool
	}{
		{addr: "127.0.0.1:0"},
		{addr: "localhost:0"},
		{addr: "[::1]:0", ipv6: true},
		{addr: ":0", warned: true},
		{addr: "0.0.0.0:0", warned: true},
		{addr: "[::]:0", warned: true, ipv6: true},
	} {
		t.Run(tc.addr, func(t *testing.T) {
			if tc.ipv6 && !ipv6 {
				t.Skip("no IPv6 on this host")
			}
			var stderr bytes.Buffer
			shutdown, err := serveMetrics(tc.addr, "", metrics.New(metrics.Options{}), time.Minute, &stderr)
			if err != nil {
				t.Fatal(err)
			}
			shutdown()
			out := stderr.String()
			if !strings.Contains(out, "metrics at http://") {
				t.Errorf("the address is not told:\n%s", out)
			}
			warned := strings.Contains(out, "WARNING: --metrics "+tc.addr+": ") &&
				strings.Contains(out, "without authentication")
			switch {
			case tc.warned && !warned:
				t.Errorf("--metrics %s listens beyond the loopback interface, and stderr does not warn that anyone on the network reads the metrics:\n%s", tc.addr, out)
			case !tc.warned && strings.Contains(out, "WARNING"):
				t.Errorf("--metrics %s listens on the loopback interface alone, yet stderr warns:\n%s", tc.addr, out)
			}
		})
	}
}
