package localcluster

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/airlock/listenerset-webhook/webhook/certs"
)

// ServingCert is a self-signed serving certificate written as tls.crt/tls.key
// (and ca.crt) into Dir: the layout the webhook's --cert-dir expects.
type ServingCert struct {
	// Dir holds tls.crt and tls.key.
	Dir string
	// CAPEM is the certificate that signed tls.crt (itself), for the webhook
	// configurations' caBundle.
	CAPEM []byte
}

// NewServingCert writes a new self-signed certificate for hosts (DNS names or
// IP addresses) into dir, replacing one a previous run left there, with the
// webhook's own generator (certs.EnsureSelfSignedCert).
func NewServingCert(dir string, hosts ...string) (*ServingCert, error) {
	for _, name := range []string{certs.CertFile, certs.KeyFile, certs.CAFile} {
		if err := os.Remove(filepath.Join(dir, name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
	}
	if _, err := certs.EnsureSelfSignedCert(dir, hosts...); err != nil {
		return nil, err
	}
	ca, err := os.ReadFile(filepath.Join(dir, certs.CAFile))
	if err != nil {
		return nil, err
	}
	return &ServingCert{Dir: dir, CAPEM: ca}, nil
}
