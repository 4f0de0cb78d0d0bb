package certs

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-logr/logr"
	"sigs.k8s.io/controller-runtime/pkg/certwatcher"
)

// Certificate modes (Options.Mode, the serve command's --cert-mode).
const (
	// ModeDir serves tls.crt/tls.key from Options.Dir, reloaded when
	// the files change: a mounted Secret (cert-manager, or any other issuer),
	// or the self-signed certificate generated there for local use.
	ModeDir = "dir"
	// ModeSelfBootstrapped keeps a CA in a Secret, serves short-lived
	// certificates it signs and keeps the caBundle of the webhook's own
	// configurations current (see BootstrapOptions).
	ModeSelfBootstrapped = "self-bootstrapped"
)

// Options say where the serving certificate comes from.
type Options struct {
	// Mode is ModeDir ("" means that) or ModeSelfBootstrapped. Either way
	// the TLS listener asks one Source for its certificate on every
	// handshake (tls.Config.GetCertificate).
	Mode string
	// Dir holds tls.crt and tls.key, re-read whenever they change (a renewed
	// Secret needs no restart). If neither exists, a self-signed certificate
	// for localhost, 127.0.0.1 and ::1 (and the listen host, if it names
	// one) is generated there, with ca.crt, for local use. "" means
	// DefaultCertDir(). Only ModeDir reads it.
	Dir string
	// Bootstrap configures ModeSelfBootstrapped.
	Bootstrap BootstrapOptions
}

// Source is where the webhook's TLS listener gets its certificate: its
// GetCertificate is the tls.Config's GetCertificate in every mode, so there is
// one serving code path whatever provides the certificate.
type Source interface {
	// GetCertificate returns the current certificate, or an error when there
	// is none yet (the handshake then fails, and /readyz with it).
	GetCertificate(*tls.ClientHelloInfo) (*tls.Certificate, error)
	// Start keeps the certificate current until ctx is cancelled, then
	// returns nil; an error stops the server.
	Start(ctx context.Context) error
}

// New builds the Source of opts.Mode. listenHost is the address the server
// listens on, which a generated self-signed certificate names too.
func New(ctx context.Context, opts Options, listenHost string, log logr.Logger) (Source, error) {
	var (
		src Source
		err error
	)
	switch opts.Mode {
	case "", ModeDir:
		if opts.Dir == "" {
			opts.Dir = DefaultCertDir()
		}
		src, err = newDirSource(opts.Dir, listenHost, log)
	case ModeSelfBootstrapped:
		src, err = newBootstrapSource(ctx, opts.Bootstrap, log.WithName("self-bootstrapped"))
	default:
		return nil, fmt.Errorf("certificate mode %q: must be %q or %q", opts.Mode, ModeDir, ModeSelfBootstrapped)
	}
	if err != nil {
		return nil, err
	}
	return &observedSource{Source: src}, nil
}

// DefaultCertDir is where ModeDir looks for tls.crt and tls.key when
// Options.Dir is empty: <os.TempDir()>/listenerset-webhook/serving-certs.
// It is a writable place for a self-signed certificate on a developer
// machine; deployments mount the certificate Secret and set Dir.
func DefaultCertDir() string {
	return filepath.Join(os.TempDir(), "listenerset-webhook", "serving-certs")
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

func newDirSource(dir, listenHost string, log logr.Logger) (*dirSource, error) {
	hosts := selfSignedHosts(listenHost)
	generated, err := EnsureSelfSignedCert(dir, hosts...)
	if err != nil {
		return nil, fmt.Errorf("serving certificate in %s: %w", dir, err)
	}
	if generated {
		log.Info("No serving certificate found; generated a self-signed one for local use (never for production)",
			"certDir", dir, "hosts", hosts, "caBundle", filepath.Join(dir, CAFile))
	} else {
		log.Info("Serving certificate from disk, reloaded on change", "certDir", dir)
	}
	w, err := certwatcher.New(filepath.Join(dir, CertFile), filepath.Join(dir, KeyFile))
	if err != nil {
		return nil, fmt.Errorf("serving certificate in %s: %w", dir, err)
	}
	return &dirSource{CertWatcher: w, log: log}, nil
}

// Start runs the watcher. It fails the server when the files cannot be watched at
// all, since a webhook that would never notice a renewal should not look
// healthy.
func (d *dirSource) Start(ctx context.Context) error {
	if err := d.CertWatcher.Start(ctx); err != nil && ctx.Err() == nil {
		return fmt.Errorf("watching the serving certificate: %w", err)
	}
	return nil
}

// selfSignedHosts adds the listen host to DefaultSelfSignedHosts when it
// names a specific host, so a self-signed certificate also fits it.
func selfSignedHosts(host string) []string {
	hosts := append([]string(nil), DefaultSelfSignedHosts...)
	if host == "" {
		return hosts
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		return hosts
	}
	for _, h := range hosts {
		if strings.EqualFold(h, host) {
			return hosts
		}
	}
	return append(hosts, host)
}
