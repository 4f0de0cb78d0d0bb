package webhook

import (
	"context"
	"crypto/tls"
	"fmt"
	"path/filepath"

	"github.com/go-logr/logr"
	"sigs.k8s.io/controller-runtime/pkg/certwatcher"
)

// Certificate modes (Options.CertMode, the serve command's --cert-mode).
const (
	// CertModeDir serves tls.crt/tls.key from Options.CertDir, reloaded when
	// the files change: a mounted Secret (cert-manager, or any other issuer),
	// or the self-signed certificate generated there for local use.
	CertModeDir = "dir"
	// CertModeSelfBootstrapped keeps a CA in a Secret, serves short-lived
	// certificates it signs and keeps the caBundle of the webhook's own
	// configurations current (see BootstrapOptions).
	CertModeSelfBootstrapped = "self-bootstrapped"
)

// certSource is where the webhook's TLS listener gets its certificate: its
// GetCertificate is the tls.Config's GetCertificate in every mode, so there is
// one serving code path whatever provides the certificate.
type certSource interface {
	// GetCertificate returns the current certificate, or an error when there
	// is none yet (the handshake then fails, and /readyz with it).
	GetCertificate(*tls.ClientHelloInfo) (*tls.Certificate, error)
	// Start keeps the certificate current until ctx is cancelled, then
	// returns nil; an error stops Run.
	Start(ctx context.Context) error
}

// newCertSource builds the certificate source of opts.CertMode. opts has its
// defaults applied.
func newCertSource(ctx context.Context, opts Options, log logr.Logger) (certSource, error) {
	switch opts.CertMode {
	case "", CertModeDir:
		return newDirSource(opts, log)
	case CertModeSelfBootstrapped:
		return newBootstrapSource(ctx, opts.Bootstrap, log.WithName("self-bootstrapped"))
	default:
		return nil, fmt.Errorf("certificate mode %q: must be %q or %q", opts.CertMode, CertModeDir, CertModeSelfBootstrapped)
	}
}

// dirSource is controller-runtime's certwatcher on CertDir: it loads the pair
// at once, reloads it on file events (a Secret volume's atomic symlink swap
// included) and re-reads it every 10s anyway; new connections get the new
// certificate, and a pair that does not load (a half-written update) leaves
// the previous one in place.
type dirSource struct {
	*certwatcher.CertWatcher
	log logr.Logger
}

func newDirSource(opts Options, log logr.Logger) (*dirSource, error) {
	hosts := selfSignedHosts(opts.Host)
	generated, err := EnsureSelfSignedCert(opts.CertDir, hosts...)
	if err != nil {
		return nil, fmt.Errorf("serving certificate in %s: %w", opts.CertDir, err)
	}
	if generated {
		log.Info("No serving certificate found; generated a self-signed one for local use (never for production)",
			"certDir", opts.CertDir, "hosts", hosts, "caBundle", filepath.Join(opts.CertDir, CAFile))
	} else {
		log.Info("Serving certificate from disk, reloaded on change", "certDir", opts.CertDir)
	}
	w, err := certwatcher.New(filepath.Join(opts.CertDir, CertFile), filepath.Join(opts.CertDir, KeyFile))
	if err != nil {
		return nil, fmt.Errorf("serving certificate in %s: %w", opts.CertDir, err)
	}
	return &dirSource{CertWatcher: w, log: log}, nil
}

// Start runs the watcher. It fails Run when the files cannot be watched at
// all, since a webhook that would never notice a renewal should not look
// healthy.
func (d *dirSource) Start(ctx context.Context) error {
	if err := d.CertWatcher.Start(ctx); err != nil && ctx.Err() == nil {
		return fmt.Errorf("watching the serving certificate: %w", err)
	}
	return nil
}
