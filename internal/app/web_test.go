package app

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/redlock-tui/redlock-tui/metrics"
)

// serveWith serves a fresh exporter on loopback with the web configuration text config (written to a file),
// and returns the metrics URL it told on stderr and stderr itself.
func serveWith(t *testing.T, config string) (url string, stderr *bytes.Buffer) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "web.yml")
	if err := os.WriteFile(path, []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	stderr = &bytes.Buffer{}
	shutdown, err := serveMetrics("127.0.0.1:0", path, metrics.New(metrics.Options{}), time.Minute, stderr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(shutdown)
	m := regexp.MustCompile(`metrics at (\S+)`).FindStringSubmatch(stderr.String())
	if m == nil {
		t.Fatalf("no address on stderr:\n%s", stderr)
	}
	return m[1], stderr
}

// TestBasicAuthRefusesAScrapeWithoutCredentials: with basic_auth_users in the web configuration, a scrape
// without credentials or with a wrong password is 401, and with them it reads the metrics; /healthz is behind
// the same door.
func TestBasicAuthRefusesAScrapeWithoutCredentials(t *testing.T) {
	hash, err := bcrypt.GenerateFromPassword([]byte("s3cret"), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	url, _ := serveWith(t, "basic_auth_users:\n  prometheus: "+string(hash)+"\n")
	client := &http.Client{Timeout: 10 * time.Second}
	get := func(target, user, password string) int {
		t.Helper()
		req, err := http.NewRequest(http.MethodGet, target, nil)
		if err != nil {
			t.Fatal(err)
		}
		if user != "" {
			req.SetBasicAuth(user, password)
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	healthz := strings.TrimSuffix(url, "/metrics") + "/healthz"
	for _, tc := range []struct {
		url, user, password string
		want                int
	}{
		{url, "", "", http.StatusUnauthorized},
		{url, "prometheus", "wrong", http.StatusUnauthorized},
		{healthz, "", "", http.StatusUnauthorized},
		{url, "prometheus", "s3cret", http.StatusOK},
		{healthz, "prometheus", "s3cret", http.StatusOK},
	} {
		if got := get(tc.url, tc.user, tc.password); got != tc.want {
			t.Errorf("GET %s as %q/%q: %d; want %d", tc.url, tc.user, tc.password, got, tc.want)
		}
	}
}

// TestTLSServesTheMetricsOverHTTPS: with tls_server_config, the metrics are served over HTTPS with its
// certificate (stderr tells an https:// address), and a plain HTTP request is not answered with metrics.
func TestTLSServesTheMetricsOverHTTPS(t *testing.T) {
	dir := t.TempDir()
	certPEM, keyPEM := selfSigned(t)
	cert, key := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(cert, certPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(key, keyPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	url, _ := serveWith(t, "tls_server_config:\n  cert_file: "+cert+"\n  key_file: "+key+"\n")
	if !strings.HasPrefix(url, "https://") {
		t.Fatalf("stderr tells %s; want an https:// address", url)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(certPEM)
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	resp, err := client.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("GET %s: %s", url, resp.Status)
	}
	plain := &http.Client{Timeout: 10 * time.Second}
	if resp, err := plain.Get("http://" + strings.TrimPrefix(url, "https://")); err == nil {
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			t.Errorf("plain HTTP to the TLS port is answered %s", resp.Status)
		}
	}
}

// TestABadWebConfigIsRefusedBeforeServing: a web configuration that does not parse, or names a certificate
// that does not exist, is an error naming the flag, and nothing listens.
func TestABadWebConfigIsRefusedBeforeServing(t *testing.T) {
	for name, config := range map[string]string{
		"not yaml":     "basic_auth_users: [",
		"missing cert": "tls_server_config:\n  cert_file: /nonexistent/cert.pem\n  key_file: /nonexistent/key.pem\n",
		"unknown key":  "no_such_setting: 1\n",
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "web.yml")
			if err := os.WriteFile(path, []byte(config), 0o600); err != nil {
				t.Fatal(err)
			}
			var stderr bytes.Buffer
			shutdown, err := serveMetrics("127.0.0.1:0", path, metrics.New(metrics.Options{}), time.Minute, &stderr)
			if err == nil {
				shutdown()
				t.Fatalf("served with %q", config)
			}
			if !strings.Contains(err.Error(), "--web.config.file") {
				t.Errorf("error %q does not name --web.config.file", err)
			}
		})
	}
}

// selfSigned returns a certificate for 127.0.0.1 and its key, PEM-encoded.
func selfSigned(t *testing.T) (certPEM, keyPEM []byte) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "redlock-tui test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER})
}
