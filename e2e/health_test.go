package e2e

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/redlock-tui/redlock-tui/redlock/redlocktest"
)

// get reads url once, with a deadline: its status and body.
func get(url string) (int, string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, "", err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body), err
}

// TestHealthzAndReadyzOnRealMasters runs the binary headless on three real masters: /healthz is 200 while it
// polls, /readyz 200 while a quorum answers, with one master stopped too; with two stopped /readyz is 503 and
// /healthz still 200 (it polls; the masters do not answer); started again, /readyz is 200 again.
func TestHealthzAndReadyzOnRealMasters(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	masters := redlocktest.Masters(t, 3)
	h := startHeadless(t, bin, "--masters", strings.Join(redlocktest.Addrs(masters), ","), "--poll", "200ms")
	base := strings.TrimSuffix(h.metrics, "/metrics")
	expect := func(what, path string, want int, words string) {
		t.Helper()
		eventually(t, what, func() (bool, string) {
			code, body, err := get(base + path)
			return err == nil && code == want && strings.Contains(body, words), fmt.Sprintf("%s: %d %q %v", path, code, body, err)
		})
	}
	expect("healthz polling", "/healthz", http.StatusOK, "polling")
	expect("readyz with three masters", "/readyz", http.StatusOK, "3 servers answered")
	if err := masters[2].Stop(); err != nil {
		t.Fatal(err)
	}
	expect("readyz with one master stopped", "/readyz", http.StatusOK, "2 servers answered")
	expect("healthz with one master stopped", "/healthz", http.StatusOK, "polling")
	if err := masters[1].Stop(); err != nil {
		t.Fatal(err)
	}
	expect("readyz with two masters stopped", "/readyz", http.StatusServiceUnavailable, "1 server answered")
	expect("healthz with two masters stopped", "/healthz", http.StatusOK, "polling")
	for _, i := range []int{1, 2} {
		if err := masters[i].Start(); err != nil {
			t.Fatal(err)
		}
	}
	expect("readyz with the masters back", "/readyz", http.StatusOK, "3 servers answered")
}
