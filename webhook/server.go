package webhook

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"
	"golang.org/x/sync/errgroup"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
	ctrlwebhook "sigs.k8s.io/controller-runtime/pkg/webhook"
)

// Defaults of Options, shared with the serve command's flags.
const (
	// DefaultPort is the webhook's HTTPS port (controller-runtime's default).
	DefaultPort = 9443
	// DefaultTLSMinVersion is the minimum TLS version unless told otherwise.
	DefaultTLSMinVersion = "1.2"
	// DefaultHealthProbeBindAddress serves /healthz and /readyz.
	DefaultHealthProbeBindAddress = ":8081"
	// DefaultMetricsBindAddress serves /metrics.
	DefaultMetricsBindAddress = ":8080"
)

// DefaultCertDir is where Run looks for tls.crt and tls.key when
// Options.CertDir is empty: <os.TempDir()>/listenerset-webhook/serving-certs.
// It is a writable place for a self-signed certificate on a developer
// machine; deployments mount the certificate Secret and set CertDir.
func DefaultCertDir() string {
	return filepath.Join(os.TempDir(), "listenerset-webhook", "serving-certs")
}

// Options configure Run. The zero value serves on DefaultPort with TLS 1.2 or
// newer, certificates from DefaultCertDir, and neither health probes nor
// metrics (the serve command's flags default those to :8081 and :8080).
type Options struct {
	// Host is the address to listen on; "" means all addresses.
	Host string
	// Port is the HTTPS port; 0 means DefaultPort.
	Port int
	// CertMode is CertModeDir ("" means that) or CertModeSelfBootstrapped.
	// Either way the TLS listener asks one certificate source for its
	// certificate on every handshake (tls.Config.GetCertificate).
	CertMode string
	// CertDir holds tls.crt and tls.key, re-read whenever they change (a
	// renewed Secret needs no restart). If neither exists, a self-signed
	// certificate for localhost, 127.0.0.1 and ::1 (and Host, if it names
	// one) is generated there, with ca.crt, for local use. "" means
	// DefaultCertDir(). Only CertModeDir reads it.
	CertDir string
	// Bootstrap configures CertModeSelfBootstrapped.
	Bootstrap BootstrapOptions
	// TLSMinVersion is "1.2" (the default when "") or "1.3"; the Kubernetes
	// spellings "VersionTLS12" and "VersionTLS13" are accepted as well.
	TLSMinVersion string
	// EnableHTTP2 offers HTTP/2 in ALPN. Off by default: HTTP/2 Rapid Reset
	// (CVE-2023-44487) and stream multiplexing make a webhook easier to
	// exhaust, and kube-apiserver does fine with HTTP/1.1.
	EnableHTTP2 bool
	// HealthProbeBindAddress serves /healthz (liveness: the process answers)
	// and /readyz (readiness: the webhook's TLS listener accepts
	// connections). "" or "0" disables it.
	HealthProbeBindAddress string
	// MetricsBindAddress serves /metrics (plain HTTP) from controller-runtime's
	// metrics.Registry: controller-runtime's webhook metrics,
	// listenerset_webhook_denials_total, certificate reloads, Go runtime and
	// process metrics. "" or "0" disables it.
	MetricsBindAddress string
	// Cluster configures the cluster-aware checks (off unless Enabled).
	Cluster ClusterOptions
	// Register puts the admission handlers on the webhook server; nil means
	// RegisterWith (both webhooks, the validating one with the cluster view
	// when Cluster.Enabled). The load tool's floor server (test/load/floor)
	// replaces them with a decode-and-allow handler, to measure this very
	// server stack without the webhook's own work.
	Register func(ctrlwebhook.Server)
}

// Timeouts of the health and metrics servers, which Run owns (unlike the
// webhook's server, see RequestTimeout).
const (
	auxReadHeaderTimeout = 10 * time.Second
	auxReadTimeout       = 30 * time.Second
	auxWriteTimeout      = 60 * time.Second // a large /metrics response on a slow scraper
	auxIdleTimeout       = 90 * time.Second
	auxShutdownTimeout   = 5 * time.Second
)

// Run serves both webhooks over HTTPS, plus health probes and metrics when
// configured, until ctx is cancelled; then it shuts the servers down
// gracefully and returns nil. It returns an error for invalid options, when a
// certificate can neither be found nor generated in CertDir, or when a server
// fails (e.g. its port is taken), which stops the others. Logs go to the
// logger in ctx, or controller-runtime's global logger (log.SetLogger).
func Run(ctx context.Context, opts Options) error {
	log := logf.FromContext(ctx).WithName("listenerset-webhook")

	minVersion, err := ParseTLSVersion(opts.TLSMinVersion)
	if err != nil {
		return err
	}
	if opts.Port == 0 {
		opts.Port = DefaultPort
	}
	if opts.Port < 1 || opts.Port > 65535 {
		return fmt.Errorf("port %d: must be 1-65535", opts.Port)
	}
	if opts.CertDir == "" {
		opts.CertDir = DefaultCertDir()
	}

	validator, view, err := newValidator(opts.Cluster, log)
	if err != nil {
		return err
	}
	certs, err := newCertSource(ctx, opts, log)
	if err != nil {
		return err
	}
	srv := ctrlwebhook.NewServer(ctrlwebhook.Options{
		Host:    opts.Host,
		Port:    opts.Port,
		CertDir: opts.CertDir,
		TLSOpts: []func(*tls.Config){
			tlsOptions(minVersion, opts.EnableHTTP2),
			func(c *tls.Config) { c.GetCertificate = certs.GetCertificate },
		},
	})
	if opts.Register != nil {
		opts.Register(srv)
	} else {
		RegisterWith(srv, validator)
	}

	// Bind the auxiliary ports before serving anything, so that a taken port
	// fails Run at once instead of after the webhook has started.
	healthLn, err := listen(opts.HealthProbeBindAddress)
	if err != nil {
		return fmt.Errorf("health probes: %w", err)
	}
	metricsLn, err := listen(opts.MetricsBindAddress)
	if err != nil {
		if healthLn != nil {
			healthLn.Close()
		}
		return fmt.Errorf("metrics: %w", err)
	}

	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error { return certs.Start(gctx) })
	g.Go(func() error { return srv.Start(gctx) })
	if view != nil {
		g.Go(func() error { return view.Start(gctx) })
	}
	if healthLn != nil {
		log.Info("Serving health probes", "address", healthLn.Addr().String(), "liveness", "/healthz", "readiness", "/readyz")
		g.Go(func() error { return serve(gctx, healthLn, healthHandler(srv.StartedChecker())) })
	}
	if metricsLn != nil {
		if err := registerRuntimeCollectors(); err != nil {
			log.Error(err, "Go runtime and process metrics unavailable")
		}
		log.Info("Serving metrics", "address", metricsLn.Addr().String(), "path", "/metrics")
		g.Go(func() error { return serve(gctx, metricsLn, MetricsHandler()) })
	}
	return g.Wait()
}

// ParseTLSVersion maps "1.2" (also "" and "VersionTLS12") and "1.3" (also
// "VersionTLS13") to crypto/tls's constants. Older versions are refused:
// kube-apiserver speaks TLS 1.2 and newer.
func ParseTLSVersion(v string) (uint16, error) {
	switch v {
	case "", "1.2", "VersionTLS12":
		return tls.VersionTLS12, nil
	case "1.3", "VersionTLS13":
		return tls.VersionTLS13, nil
	default:
		return 0, fmt.Errorf("TLS minimum version %q: must be 1.2 or 1.3", v)
	}
}

// tlsOptions sets the minimum version and ALPN. controller-runtime offers
// "h2" by default; without EnableHTTP2 only http/1.1 is offered, so clients
// cannot negotiate HTTP/2 (CVE-2023-44487, HTTP/2 Rapid Reset).
func tlsOptions(minVersion uint16, enableHTTP2 bool) func(*tls.Config) {
	return func(c *tls.Config) {
		c.MinVersion = minVersion
		if enableHTTP2 {
			c.NextProtos = []string{"h2", "http/1.1"}
		} else {
			c.NextProtos = []string{"http/1.1"}
		}
	}
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

// listen returns nil for a disabled address ("" or "0").
func listen(addr string) (net.Listener, error) {
	if addr == "" || addr == "0" {
		return nil, nil
	}
	return net.Listen("tcp", addr)
}

// healthHandler serves /healthz, which only says the process answers, and
// /readyz, which dials the webhook's TLS port (controller-runtime's
// StartedChecker) so that a pod is not put behind the Service before the
// webhook can take requests. Both accept the sub-paths and ?verbose of
// controller-runtime's healthz package, as a manager's probes do.
func healthHandler(webhookStarted healthz.Checker) http.Handler {
	mux := http.NewServeMux()
	live := &healthz.Handler{Checks: map[string]healthz.Checker{"ping": healthz.Ping}}
	ready := &healthz.Handler{Checks: map[string]healthz.Checker{"webhook": webhookStarted}}
	mux.Handle("/healthz", http.StripPrefix("/healthz", live))
	mux.Handle("/healthz/", http.StripPrefix("/healthz", live))
	mux.Handle("/readyz", http.StripPrefix("/readyz", ready))
	mux.Handle("/readyz/", http.StripPrefix("/readyz", ready))
	return mux
}

// MetricsHandler serves /metrics from controller-runtime's metrics.Registry,
// where its webhook server and this package register their metrics. Run
// serves it on MetricsBindAddress; tests read metrics through it.
func MetricsHandler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(metrics.Registry, promhttp.HandlerOpts{
		ErrorHandling: promhttp.HTTPErrorOnError,
	}))
	return mux
}

// serve runs an auxiliary HTTP server on ln until ctx is cancelled.
func serve(ctx context.Context, ln net.Listener, h http.Handler) error {
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: auxReadHeaderTimeout,
		ReadTimeout:       auxReadTimeout,
		WriteTimeout:      auxWriteTimeout,
		IdleTimeout:       auxIdleTimeout,
		MaxHeaderBytes:    64 << 10,
		BaseContext:       func(net.Listener) context.Context { return ctx },
	}
	done := make(chan error, 1)
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), auxShutdownTimeout)
		defer cancel()
		done <- srv.Shutdown(sctx)
	}()
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return <-done
}
