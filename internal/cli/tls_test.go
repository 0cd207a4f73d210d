package cli

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redlock-tui/redlock-tui/redlock/redlocktest"
)

// testPKI is a CA with a server certificate for 127.0.0.1 and a client certificate, as PEM files in dir.
type testPKI struct{ ca, serverCert, serverKey, clientCert, clientKey, otherCert, otherKey string }

// newTestPKI makes the certificates; other is a client certificate from a CA the server does not trust.
func newTestPKI(t *testing.T, dir string) testPKI {
	t.Helper()
	write := func(name, kind string, der []byte) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: kind, Bytes: der}), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	newKey := func() (*ecdsa.PrivateKey, []byte) {
		k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		der, err := x509.MarshalPKCS8PrivateKey(k)
		if err != nil {
			t.Fatal(err)
		}
		return k, der
	}
	serial := int64(1)
	sign := func(tmpl, parent *x509.Certificate, pub any, signer *ecdsa.PrivateKey) (*x509.Certificate, []byte) {
		serial++
		tmpl.SerialNumber = big.NewInt(serial)
		tmpl.NotBefore, tmpl.NotAfter = time.Now().Add(-time.Hour), time.Now().Add(time.Hour)
		der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, pub, signer)
		if err != nil {
			t.Fatal(err)
		}
		c, err := x509.ParseCertificate(der)
		if err != nil {
			t.Fatal(err)
		}
		return c, der
	}
	newCA := func(name string) (*x509.Certificate, *ecdsa.PrivateKey, []byte) {
		k, _ := newKey()
		tmpl := &x509.Certificate{Subject: pkix.Name{CommonName: name}, IsCA: true, BasicConstraintsValid: true,
			KeyUsage: x509.KeyUsageCertSign}
		c, der := sign(tmpl, tmpl, &k.PublicKey, k)
		return c, k, der
	}
	leaf := func(ca *x509.Certificate, caKey *ecdsa.PrivateKey, name string, usage x509.ExtKeyUsage) ([]byte, []byte) {
		k, keyDER := newKey()
		tmpl := &x509.Certificate{Subject: pkix.Name{CommonName: name}, ExtKeyUsage: []x509.ExtKeyUsage{usage},
			KeyUsage: x509.KeyUsageDigitalSignature, IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}}
		_, der := sign(tmpl, ca, &k.PublicKey, caKey)
		return der, keyDER
	}
	ca, caKey, caDER := newCA("test CA")
	other, otherKey, _ := newCA("a CA the server does not trust")
	p := testPKI{ca: write("ca.pem", "CERTIFICATE", caDER)}
	der, key := leaf(ca, caKey, "127.0.0.1", x509.ExtKeyUsageServerAuth)
	p.serverCert, p.serverKey = write("server.pem", "CERTIFICATE", der), write("server.key", "PRIVATE KEY", key)
	der, key = leaf(ca, caKey, "locker", x509.ExtKeyUsageClientAuth)
	p.clientCert, p.clientKey = write("client.pem", "CERTIFICATE", der), write("client.key", "PRIVATE KEY", key)
	der, key = leaf(other, otherKey, "stranger", x509.ExtKeyUsageClientAuth)
	p.otherCert, p.otherKey = write("other.pem", "CERTIFICATE", der), write("other.key", "PRIVATE KEY", key)
	return p
}

// TestTLSClientCertificates runs --once and run against three real redis-servers that require a client
// certificate (tls-auth-clients yes): with --tls-cert and --tls-key every master answers and the lock is
// taken; without them, or with a certificate the servers do not trust, none does.
func TestTLSClientCertificates(t *testing.T) {
	t.Parallel()
	pki := newTestPKI(t, t.TempDir())
	var masters []string
	for range 3 {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		port := ln.Addr().(*net.TCPAddr).Port
		ln.Close()
		redlocktest.RealServers(t, 1, redlocktest.ServerOptions{Args: []string{"--tls-port", strconv.Itoa(port),
			"--tls-cert-file", pki.serverCert, "--tls-key-file", pki.serverKey, "--tls-ca-cert-file", pki.ca,
			"--tls-auth-clients", "yes"}})
		masters = append(masters, "rediss://127.0.0.1:"+strconv.Itoa(port))
	}
	list := strings.Join(masters, ",")
	env := realEnv

	code, stdout, stderr := runCapture([]string{"-m", list, "--tls-ca-file", pki.ca, "--tls-cert", pki.clientCert,
		"--tls-key", pki.clientKey, "--once", "--json"}, env)
	if code != ExitOK || strings.Count(stdout, `"up": true`)+strings.Count(stdout, `"up":true`) != 3 {
		t.Fatalf("--once with the client certificate: exit %d, stderr %q; want 0 and 3 masters up:\n%s", code, stderr, stdout)
	}
	code, _, stderr = runCapture([]string{"run", "-m", list, "--tls-ca-file", pki.ca, "--tls-cert", pki.clientCert,
		"--tls-key", pki.clientKey, "tls:job", "--", "true"}, env)
	if code != 0 {
		t.Errorf("run with the client certificate: exit %d: %s", code, stderr)
	}
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"without a client certificate", nil},
		{"with a certificate from another CA", []string{"--tls-cert", pki.otherCert, "--tls-key", pki.otherKey}},
	} {
		args := append([]string{"-m", list, "--tls-ca-file", pki.ca, "--once", "--json"}, tc.args...)
		if code, stdout, _ := runCapture(args, env); code != ExitNoQuorum || strings.Contains(stdout, `"up": true`) {
			t.Errorf("--once %s: exit %d; want %d and no master up:\n%s", tc.name, code, ExitNoQuorum, stdout)
		}
	}
}

func TestTLSClientCertificateBadUsage(t *testing.T) {
	pki := newTestPKI(t, t.TempDir())
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-m", "rediss://h:1", "--tls-cert", pki.clientCert}, "--tls-cert needs --tls-key"},
		{[]string{"-m", "rediss://h:1", "--tls-key", pki.clientKey}, "--tls-key needs --tls-cert"},
		{[]string{"-m", "h:1", "--tls-cert", pki.clientCert, "--tls-key", pki.clientKey}, "no rediss:// master"},
		{[]string{"-m", "rediss://h:1", "--tls-cert", pki.clientCert, "--tls-key", pki.otherKey}, "not a PEM certificate and its private key"},
		{[]string{"-m", "rediss://h:1", "--tls-cert", pki.clientCert, "--tls-key", "/nonexistent"}, "--tls-key"},
	} {
		code, stdout, stderr := runCapture(tc.args, realEnv)
		if code != ExitUsage || stdout != "" || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%q: exit %d, stderr %q; want %d and one line with %q", tc.args, code, stderr, ExitUsage, tc.want)
		}
		if strings.Contains(stderr, "PRIVATE KEY") {
			t.Errorf("%q: the message shows the key file's content: %q", tc.args, stderr)
		}
	}
}
