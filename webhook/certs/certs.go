package certs

import (
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"fmt"
	"io/fs"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"

	"github.com/cert-manager/cert-manager/pkg/util/pki"
)

// File names in the certificate directory. tls.crt and tls.key are what
// controller-runtime's webhook server reads (its defaults), and what a
// kubernetes.io/tls Secret mounted as a volume provides; ca.crt is what
// cert-manager adds to such a Secret.
const (
	// CertFile is the serving certificate (PEM), possibly followed by its chain.
	CertFile = "tls.crt"
	// KeyFile is the serving certificate's private key (PEM).
	KeyFile = "tls.key"
	// CAFile is the CA that signed CertFile (PEM): the webhook
	// configurations' caBundle. For a self-signed certificate it is the
	// certificate itself.
	CAFile = "ca.crt"
)

// SelfSignedValidity is how long a generated self-signed certificate is
// valid. It is meant for local development and tests, never for production,
// where the certificate comes from a Secret (e.g. issued by cert-manager).
const SelfSignedValidity = 365 * 24 * time.Hour

// DefaultSelfSignedHosts are the names a generated certificate is valid for
// when EnsureSelfSignedCert is given none: the loopback names a local
// kube-apiserver or a test uses.
var DefaultSelfSignedHosts = []string{"localhost", "127.0.0.1", "::1"}

// EnsureSelfSignedCert makes sure dir holds a serving certificate. If both
// CertFile and KeyFile exist, it leaves everything as it is and returns false:
// a certificate someone provided always wins, and it is never overwritten. If
// neither exists, it creates dir (0700) and writes a new ECDSA P-256 key
// (KeyFile, 0600) and a self-signed certificate for hosts (DNS names or IP
// addresses; DefaultSelfSignedHosts if none), as CertFile and as CAFile, so
// callers can put CAFile into a webhook configuration's caBundle. It returns
// true when it generated one. Exactly one of the two files existing is an
// error: that is a half-written or half-mounted certificate, and replacing it
// would hide the problem.
func EnsureSelfSignedCert(dir string, hosts ...string) (generated bool, err error) {
	certPath, keyPath := filepath.Join(dir, CertFile), filepath.Join(dir, KeyFile)
	certExists, err := exists(certPath)
	if err != nil {
		return false, err
	}
	keyExists, err := exists(keyPath)
	if err != nil {
		return false, err
	}
	switch {
	case certExists && keyExists:
		return false, nil
	case certExists:
		return false, fmt.Errorf("%s exists but %s does not", certPath, keyPath)
	case keyExists:
		return false, fmt.Errorf("%s exists but %s does not", keyPath, certPath)
	}

	if len(hosts) == 0 {
		hosts = DefaultSelfSignedHosts
	}
	certPEM, keyPEM, err := selfSignedCert(hosts, time.Now())
	if err != nil {
		return false, err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return false, err
	}
	// The key first and the certificate last: a certificate watcher that sees
	// tls.crt appear then finds the matching key already in place.
	if err := writeFileAtomic(keyPath, keyPEM, 0o600); err != nil {
		return false, err
	}
	if err := writeFileAtomic(filepath.Join(dir, CAFile), certPEM, 0o644); err != nil {
		return false, err
	}
	if err := writeFileAtomic(certPath, certPEM, 0o644); err != nil {
		return false, err
	}
	return true, nil
}

// selfSignedCert returns a PEM certificate and PKCS#8 PEM key for hosts,
// valid from an hour before now (clock skew) for SelfSignedValidity. The
// certificate is its own CA (IsCA, CertSign) so that it can serve as the
// caBundle, and is a server certificate (ServerAuth) for hosts.
func selfSignedCert(hosts []string, now time.Time) (certPEM, keyPEM []byte, err error) {
	key, err := pki.GenerateECPrivateKey(pki.ECCurve256)
	if err != nil {
		return nil, nil, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 128))
	if err != nil {
		return nil, nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: "listenerset-webhook (self-signed)"},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(SelfSignedValidity),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	for _, h := range hosts {
		if ip := net.ParseIP(h); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, h)
		}
	}
	// Self-signed: the template is its own issuer and the key signs itself.
	certPEM, _, err = pki.SignCertificate(tmpl, tmpl, key.Public(), key)
	if err != nil {
		return nil, nil, err
	}
	keyPEM, err = pki.EncodePKCS8PrivateKey(key)
	if err != nil {
		return nil, nil, err
	}
	return certPEM, keyPEM, nil
}

func exists(path string) (bool, error) {
	_, err := os.Stat(path)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, fs.ErrNotExist):
		return false, nil
	default:
		return false, err
	}
}

// writeFileAtomic writes data to a temporary file next to path and renames it
// into place, so a reader (the certificate watcher) never sees half a file.
func writeFileAtomic(path string, data []byte, perm os.FileMode) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer os.Remove(tmp) // no-op after a successful rename
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(perm); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
