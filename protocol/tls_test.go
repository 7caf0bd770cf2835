package protocol

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"

	"github.com/perfgate/perfgate/kservepb"
)

// selfSigned returns a certificate for 127.0.0.1 and its PEM file.
func selfSigned(t *testing.T) (tls.Certificate, string) {
	t.Helper()
	k, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "127.0.0.1"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &k.PublicKey, k)
	if err != nil {
		t.Fatal(err)
	}
	kb, _ := x509.MarshalECPrivateKey(k)
	certPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	pair, err := tls.X509KeyPair(certPEM, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "ca.pem")
	os.WriteFile(path, certPEM, 0o600)
	return pair, path
}

// kserve-grpc over TLS: a server with its own certificate is reached with
// the CA file given, and refused without it.
func TestKServeGRPCTLS(t *testing.T) {
	cert, caFile := selfSigned(t)
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gs := grpc.NewServer(grpc.Creds(credentials.NewTLS(&tls.Config{Certificates: []tls.Certificate{cert}})))
	kservepb.RegisterGRPCInferenceServiceServer(gs, &grpcServer{})
	go gs.Serve(lis)
	var once sync.Once
	t.Cleanup(func() { once.Do(gs.Stop) })

	conf, err := TLSConfig(TLSFiles{CA: caFile})
	if err != nil {
		t.Fatal(err)
	}
	c := newClient(t, Options{Protocol: KServeGRPC, URL: lis.Addr().String(), Model: "mlp", TLS: conf})
	wantAllOK(t, doN(t, c, 10))

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := New(ctx, Options{Protocol: KServeGRPC, URL: lis.Addr().String(), Model: "mlp"}); err == nil {
		t.Error("a plaintext client reached a TLS server")
	}
}

func TestTLSConfigErrors(t *testing.T) {
	_, caFile := selfSigned(t)
	notPEM := filepath.Join(t.TempDir(), "x.pem")
	os.WriteFile(notPEM, []byte("hello"), 0o600)
	// A CA of 1.5 GB is refused by its size, unread (issue 43: read
	// whole, it ran perfgate out of memory); the file is sparse.
	hugeCA := filepath.Join(t.TempDir(), "huge.pem")
	if f, err := os.Create(hugeCA); err == nil {
		f.Truncate(1500 << 20)
		f.Close()
	}
	tests := []struct {
		name string
		f    TLSFiles
		want string
	}{
		{"missing CA", TLSFiles{CA: "/nonexistent/ca.pem"}, `tls ca "/nonexistent/ca.pem"`},
		{"CA of 1.5 GB", TLSFiles{CA: hugeCA}, hugeCA + " is 1572864000 bytes, more than the 4 MiB"},
		{"CA is a device", TLSFiles{CA: "/dev/zero"}, "/dev/zero is not a regular file"},
		{"key is a device", TLSFiles{Cert: caFile, Key: "/dev/zero"}, "/dev/zero is not a regular file"},
		{"CA without PEM", TLSFiles{CA: notPEM}, "no PEM certificate"},
		{"cert without key", TLSFiles{Cert: caFile}, "give both"},
		{"key is not a key", TLSFiles{Cert: caFile, Key: notPEM}, "tls client certificate"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := TLSConfig(tt.f); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("TLSConfig(%+v) error = %v, want %q", tt.f, err, tt.want)
			}
		})
	}
}
