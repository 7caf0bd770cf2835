package protocol

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"

	"github.com/perfgate/perfgate/internal/capread"
)

// TLSFiles names what a TLS client needs beyond the system's defaults:
// the PEM files of a private CA and of a client certificate and key (for
// mutual TLS), the name to verify the server's certificate against, and
// whether to skip verification altogether.
type TLSFiles struct {
	// CA is a PEM file of CA certificates trusted in addition to the
	// system's roots (a staging endpoint behind a private CA).
	CA string
	// Cert and Key are the client certificate and its private key (PEM),
	// both or neither.
	Cert, Key string
	// ServerName overrides the name verified in the server's certificate
	// (default: the URL's host).
	ServerName string
	// Insecure skips verification of the server's certificate: the
	// connection is encrypted but anyone can answer it. For tests against
	// a self-signed endpoint only; perfgate warns loudly.
	Insecure bool
}

// IsZero reports whether f asks for nothing beyond the defaults.
func (f TLSFiles) IsZero() bool { return f == TLSFiles{} }

// TLSConfig builds the client configuration f describes. Errors name the
// file and what is wrong with it.
func TLSConfig(f TLSFiles) (*tls.Config, error) {
	c := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: f.ServerName, InsecureSkipVerify: f.Insecure}
	if f.CA != "" {
		pem, err := capread.ReadFile(f.CA, capread.PEM)
		if err != nil {
			return nil, fmt.Errorf("tls ca %q: %w", f.CA, err)
		}
		pool, err := x509.SystemCertPool()
		if err != nil || pool == nil {
			pool = x509.NewCertPool()
		}
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("tls ca %q: no PEM certificate in it", f.CA)
		}
		c.RootCAs = pool
	}
	switch {
	case f.Cert != "" && f.Key != "":
		pair, err := loadKeyPair(f.Cert, f.Key)
		if err != nil {
			return nil, fmt.Errorf("tls client certificate %q and key %q: %w", f.Cert, f.Key, err)
		}
		c.Certificates = []tls.Certificate{pair}
	case f.Cert != "" || f.Key != "":
		return nil, errors.New("tls: give both a client certificate and its key (cert and key), or neither")
	}
	return c, nil
}

// InsecureWarning is the warning a run with verification off carries in
// its log and its result.
const InsecureWarning = "TLS certificate verification is OFF (insecure): the figures are real but the server was not authenticated; use a CA file (--cacert, tls.ca) instead"

// loadKeyPair is tls.LoadX509KeyPair reading both files through capread:
// regular files of at most capread.PEM bytes.
func loadKeyPair(cert, key string) (tls.Certificate, error) {
	c, err := capread.ReadFile(cert, capread.PEM)
	if err != nil {
		return tls.Certificate{}, err
	}
	k, err := capread.ReadFile(key, capread.PEM)
	if err != nil {
		return tls.Certificate{}, err
	}
	return tls.X509KeyPair(c, k)
}
