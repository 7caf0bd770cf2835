package main

import (
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
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/result"
)

// testPKI is a private CA with a server certificate for 127.0.0.1 and a
// client certificate, written as PEM files.
type testPKI struct {
	caFile, clientCert, clientKey string
	server                        tls.Certificate
	pool                          *x509.CertPool
}

func newTestPKI(t *testing.T) testPKI {
	t.Helper()
	dir := t.TempDir()
	caKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "perfgate test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, _ := x509.ParseCertificate(caDER)
	issue := func(serial int64, name string, usage x509.ExtKeyUsage) (certPEM, keyPEM []byte) {
		k, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		tmpl := &x509.Certificate{SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: name},
			NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
			ExtKeyUsage: []x509.ExtKeyUsage{usage}, IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &k.PublicKey, caKey)
		if err != nil {
			t.Fatal(err)
		}
		kb, _ := x509.MarshalECPrivateKey(k)
		return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb})
	}
	p := testPKI{caFile: filepath.Join(dir, "ca.pem"), clientCert: filepath.Join(dir, "client.pem"), clientKey: filepath.Join(dir, "client-key.pem"),
		pool: x509.NewCertPool()}
	p.pool.AddCert(ca)
	os.WriteFile(p.caFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}), 0o600)
	sc, sk := issue(2, "127.0.0.1", x509.ExtKeyUsageServerAuth)
	if p.server, err = tls.X509KeyPair(sc, sk); err != nil {
		t.Fatal(err)
	}
	cc, ck := issue(3, "perfgate client", x509.ExtKeyUsageClientAuth)
	os.WriteFile(p.clientCert, cc, 0o600)
	os.WriteFile(p.clientKey, ck, 0o600)
	return p
}

// A staging endpoint behind a private CA that checks client certificates:
// --cacert trusts the CA, --cert/--key answer the client check, --insecure
// skips verification with a loud warning, and the config's tls: key does
// the same as the flags.
func TestTLSPrivateCAAndClientCertificate(t *testing.T) {
	pki := newTestPKI(t)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{pki.server}, ClientAuth: tls.RequireAndVerifyClientCert, ClientCAs: pki.pool}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	quick := []string{"run", "--url", srv.URL, "--rate", "30", "--duration", "300ms", "--warmup", "0s", "--trials", "1"}
	tests := []struct {
		name       string
		flags      []string
		wantCode   int
		wantStderr string
	}{
		{"unknown authority", nil, exitRunFailed, "give it with --cacert FILE"},
		{"CA but no client certificate", []string{"--cacert", pki.caFile}, exitRunFailed, "give --cert FILE --key FILE"},
		{"mTLS", []string{"--cacert", pki.caFile, "--cert", pki.clientCert, "--key", pki.clientKey}, exitPass, ""},
		{"insecure is warned", []string{"--insecure", "--cert", pki.clientCert, "--key", pki.clientKey}, exitPass, "verification is OFF"},
		{"cert without key", []string{"--cacert", pki.caFile, "--cert", pki.clientCert}, exitUsage, "give both cert and key"},
		{"missing CA file", []string{"--cacert", filepath.Join(t.TempDir(), "nope.pem")}, exitUsage, "nope.pem"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := runCLI(t, append(append([]string{}, quick...), tt.flags...)...)
			if code != tt.wantCode || !strings.Contains(stderr, tt.wantStderr) {
				t.Errorf("exit %d, want %d with %q; stderr:\n%s", code, tt.wantCode, tt.wantStderr, stderr)
			}
		})
	}

	dir := t.TempDir()
	cfg := filepath.Join(dir, "perfgate.yaml")
	os.WriteFile(cfg, []byte(`version: 1
scenarios:
  - name: staging
    layer: system
    url: `+srv.URL+`
    tls: {ca: `+pki.caFile+`, cert: `+pki.clientCert+`, key: `+pki.clientKey+`}
    load: {mode: rate, rate: 30, duration: 300ms, warmup: 0s, trials: 1}
`), 0o644)
	out := filepath.Join(dir, "out")
	if code, _, stderr := runCLI(t, "run", "--config", cfg, "--out", out); code != exitPass {
		t.Fatalf("config with tls: exit %d\n%s", code, stderr)
	}
	r, err := result.ReadFile(filepath.Join(out, "staging.json"))
	if err != nil {
		t.Fatal(err)
	}
	if r.Summary.Errors != 0 || r.Summary.Requests == 0 {
		t.Errorf("config with tls: %d requests, %d errors; want all to pass the client check", r.Summary.Requests, r.Summary.Errors)
	}
}
