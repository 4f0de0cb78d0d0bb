package serving

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	stdlog "log"
	"net"
	"net/http"
	"net/http/pprof"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"golang.org/x/sync/errgroup"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
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
	// DefaultReadHeaderTimeout bounds the TLS handshake and the request
	// headers: kube-apiserver sends them at once, so only a slow-loris
	// client needs longer.
	DefaultReadHeaderTimeout = 10 * time.Second
	// DefaultShutdownTimeout bounds the drain after the shutdown delay:
	// long enough for kube-apiserver to close the connections it keeps idle
	// itself (kubeAPIServerKeepAlive after their last use), which the drain
	// waits for (see webhookServer.drain), so that none is closed under a
	// request; it also covers kube-apiserver's longest webhook call
	// (timeoutSeconds is capped at 30). The chart's shutdownTimeoutSeconds
	// is this value (test/chart holds them equal). A drain
	// ends as soon as every connection has: without kube-apiserver's
	// connections, at once.
	DefaultShutdownTimeout = kubeAPIServerKeepAlive + 5*time.Second
)

// RequestTimeout is the default of Options.RequestTimeout: the webhook
// server's ReadTimeout (WriteTimeout is writeGrace longer). kube-apiserver gives up on a
// webhook after at most 30s (timeoutSeconds is capped at 30), so nothing
// legitimate needs longer, and a client that sends its body slowly cannot
// hold a connection and a goroutine for longer.
const RequestTimeout = 30 * time.Second

// Options configure Run. The zero value serves on DefaultPort with TLS 1.2 or
// newer, and neither health probes nor metrics (the serve command's flags
// default those to :8081 and :8080).
type Options struct {
	// Host is the address to listen on; "" means all addresses.
	Host string
	// Port is the HTTPS port; 0 means DefaultPort.
	Port int
	// TLSMinVersion is "1.2" (the default when "") or "1.3"; the Kubernetes
	// spellings "VersionTLS12" and "VersionTLS13" are accepted as well.
	// TLS 1.2 is offered with ECDHE AEAD suites only (see tlsConfig).
	TLSMinVersion string
	// EnableHTTP2 offers HTTP/2 in ALPN. Off by default: HTTP/2 Rapid Reset
	// (CVE-2023-44487) and stream multiplexing make a webhook easier to
	// exhaust, and kube-apiserver does fine with HTTP/1.1.
	EnableHTTP2 bool
	// ReadHeaderTimeout bounds the TLS handshake and reading a request's
	// headers; 0 means DefaultReadHeaderTimeout.
	ReadHeaderTimeout time.Duration
	// RequestTimeout bounds reading a whole request (ReadTimeout) and, with
	// writeGrace more, writing its response (WriteTimeout); 0 means
	// RequestTimeout.
	RequestTimeout time.Duration
	// ShutdownDelay is how long the webhook keeps serving after ctx is
	// cancelled, with /readyz already failing, so that the endpoints stop
	// sending requests here before the listener closes. 0 means none.
	ShutdownDelay time.Duration
	// ShutdownTimeout bounds the drain that follows ShutdownDelay: no new
	// connections; requests in flight finish, and the connections kept
	// alive stay open until each is used once more (its answer closes it)
	// or closed by the client. What is still open then is closed. 0 means
	// DefaultShutdownTimeout.
	ShutdownTimeout time.Duration
	// HealthProbeBindAddress serves /healthz (liveness: the process answers)
	// and /readyz (readiness: the webhook's TLS listener accepts
	// connections, and no shutdown has begun). "" or "0" disables it.
	HealthProbeBindAddress string
	// MetricsBindAddress serves /metrics (plain HTTP) from controller-runtime's
	// metrics.Registry: controller-runtime's webhook metrics,
	// listenerset_webhook_denials_total, certificate reloads, Go runtime and
	// process metrics. "" or "0" disables it.
	MetricsBindAddress string
	// PprofBindAddress serves Go's profiles (net/http/pprof, under
	// /debug/pprof/) over plain HTTP, as a controller-runtime manager's
	// PprofBindAddress does: to find where a figure of the load tool goes.
	// "" or "0", the default, disables it: a profile shows the program's
	// memory and costs CPU, so it is served only where asked for.
	PprofBindAddress string
}

// Timeouts of the servers Run owns that are not options.
const (
	// kubeAPIServerKeepAlive is how long kube-apiserver keeps a connection
	// to a webhook idle for reuse: client-go's transports take
	// http.DefaultTransport's IdleConnTimeout.
	kubeAPIServerKeepAlive = 90 * time.Second
	// idleTimeout is longer, so that kube-apiserver closes an idle
	// connection and the server never does first: a server closing one
	// races the request kube-apiserver may be sending on it at that moment,
	// which then fails with EOF (a POST is not retried). With equal
	// timeouts the server's, which starts when it has written its answer,
	// ran out first. The margin covers the way of a request sent at the end
	// of the keep-alive.
	idleTimeout          = kubeAPIServerKeepAlive + 30*time.Second
	maxHeaderBytes       = 64 << 10
	auxReadTimeout       = 30 * time.Second
	auxWriteTimeout      = 60 * time.Second // a large /metrics response on a slow scraper
	auxShutdownTimeout   = 5 * time.Second
	readinessDialTimeout = 5 * time.Second
	// writeGrace: both deadlines count from the end of the headers, so with
	// equal timeouts a body that took the whole ReadTimeout lost a race
	// against the write deadline, and its sender got a bare close instead
	// of the 400 that says why.
	writeGrace = 5 * time.Second
)

// Component is a part of the server that runs beside it until its context
// is cancelled: the certificate source, the cluster view. An error stops the
// server at once.
type Component interface {
	Start(ctx context.Context) error
}

// Run serves handler over HTTPS, with the certificate getCert returns on
// every handshake, plus health probes and metrics when configured, and runs
// components, until ctx is cancelled. Then it shuts down in phases: /readyz
// fails at once while the webhook keeps serving for ShutdownDelay, every
// answer closing its connection; the webhook server stops accepting
// connections and waits up to ShutdownTimeout for requests in flight and
// for the connections kept alive to end (webhookServer.drain); only then do
// the components and
// the health and metrics servers stop, so that the draining requests keep
// their certificate and cluster view and the probes keep answering. Run
// returns nil after such a shutdown.
//
// It returns an error for invalid options, or when a component or server
// fails (e.g. its port is taken), which stops the others at once. Logs go to
// log.
func Run(ctx context.Context, opts Options, log logr.Logger, handler http.Handler,
	getCert func(*tls.ClientHelloInfo) (*tls.Certificate, error), components ...Component) error {
	opts, minVersion, err := opts.withDefaults()
	if err != nil {
		return err
	}
	// Bind every port before serving anything, so that a taken port fails
	// Run at once instead of after the webhook has started.
	tcpLn, err := net.Listen("tcp", net.JoinHostPort(opts.Host, strconv.Itoa(opts.Port)))
	if err != nil {
		return fmt.Errorf("webhook: %w", err)
	}
	healthLn, err := listen(opts.HealthProbeBindAddress)
	if err != nil {
		tcpLn.Close()
		return fmt.Errorf("health probes: %w", err)
	}
	metricsLn, err := listen(opts.MetricsBindAddress)
	if err != nil {
		tcpLn.Close()
		if healthLn != nil {
			healthLn.Close()
		}
		return fmt.Errorf("metrics: %w", err)
	}
	pprofLn, err := listen(opts.PprofBindAddress)
	if err != nil {
		tcpLn.Close()
		for _, ln := range []net.Listener{healthLn, metricsLn} {
			if ln != nil {
				ln.Close()
			}
		}
		return fmt.Errorf("pprof: %w", err)
	}

	ws := &webhookServer{
		opts: opts,
		ln:   tls.NewListener(tcpLn, tlsConfig(minVersion, opts.EnableHTTP2, getCert)),
		addr: tcpLn.Addr().String(),
		log:  log,

		idleTimeout: idleTimeout,
	}
	// The components run on their own context: ctx only starts the
	// shutdown, and they must outlive the drain. It is cancelled once the
	// webhook server has drained, or at once by an error of any component.
	runCtx, stopComponents := context.WithCancel(context.WithoutCancel(ctx))
	defer stopComponents()
	g, gctx := errgroup.WithContext(runCtx)
	for _, c := range components {
		g.Go(func() error { return c.Start(gctx) })
	}
	if healthLn != nil {
		log.Info("Serving health probes", "address", healthLn.Addr().String(), "liveness", "/healthz", "readiness", "/readyz")
		g.Go(func() error { return serve(gctx, healthLn, healthHandler(ws.ready, ws.draining.Load)) })
	}
	if metricsLn != nil {
		if err := registerRuntimeCollectors(); err != nil {
			log.Error(err, "Go runtime and process metrics unavailable")
		}
		log.Info("Serving metrics", "address", metricsLn.Addr().String(), "path", "/metrics")
		g.Go(func() error { return serve(gctx, metricsLn, MetricsHandler()) })
	}
	if pprofLn != nil {
		log.Info("Serving profiles", "address", pprofLn.Addr().String(), "path", "/debug/pprof/")
		g.Go(func() error { return serve(gctx, pprofLn, PprofHandler()) })
	}
	g.Go(func() error {
		err := ws.serve(ctx, gctx, handler)
		log.Info("Stopping the certificate source, cluster view, health probes and metrics")
		stopComponents()
		return err
	})
	if err := g.Wait(); err != nil {
		return err
	}
	log.Info("Stopped")
	return nil
}

// Check reports options Run would refuse, so that a caller can refuse them
// before it prepares anything else.
func (opts Options) Check() error {
	_, _, err := opts.withDefaults()
	return err
}

// withDefaults fills in the defaults and checks what is set.
func (opts Options) withDefaults() (Options, uint16, error) {
	minVersion, err := ParseTLSVersion(opts.TLSMinVersion)
	if err != nil {
		return opts, 0, err
	}
	if opts.Port == 0 {
		opts.Port = DefaultPort
	}
	if opts.Port < 1 || opts.Port > 65535 {
		return opts, 0, fmt.Errorf("port %d: must be 1-65535", opts.Port)
	}
	opts.ReadHeaderTimeout = orDefault(opts.ReadHeaderTimeout, DefaultReadHeaderTimeout)
	opts.RequestTimeout = orDefault(opts.RequestTimeout, RequestTimeout)
	opts.ShutdownTimeout = orDefault(opts.ShutdownTimeout, DefaultShutdownTimeout)
	if opts.ReadHeaderTimeout < 0 || opts.RequestTimeout < 0 || opts.ShutdownDelay < 0 || opts.ShutdownTimeout < 0 {
		return opts, 0, errors.New("timeouts and delays must not be negative")
	}
	return opts, minVersion, nil
}

func orDefault(d, def time.Duration) time.Duration {
	if d == 0 {
		return def
	}
	return d
}

// webhookServer is the webhook's HTTPS server and its readiness.
type webhookServer struct {
	opts Options
	ln   net.Listener // TLS
	addr string       // of ln, for the readiness dial
	log  logr.Logger
	// idleTimeout is the http.Server's IdleTimeout (the constant; tests
	// scale it down).
	idleTimeout time.Duration
	serving     atomic.Bool
	draining    atomic.Bool
	conns       connTracker
}

// closeWhileDraining answers with "Connection: close" once shutdown has
// begun. kube-apiserver keeps its connection to a pod alive and, through
// conntrack, goes on using it after the pod has left the Service's
// endpoints; without this, that connection is idle when the drain ends and
// a POST sent on it as it closes fails (EOF, broken pipe: a POST is not
// retried). Measured on a real node (test/chart's pod deletions under load,
// now in TestNodeStress): 5 failed requests in 40 pod deletions without it,
// 0 with it. Each call
// during the shutdown thus ends its connection, and the next one dials
// anew, reaching a pod that is still ready. A connection kept alive that is
// not used again is left for kube-apiserver to close (drain).
//
// It decides when the answer's header is written, not when the request
// came: a request that began before the shutdown and is answered after it
// must close its connection too, or the drain would wait for it.
func (ws *webhookServer) closeWhileDraining(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		cw := &closingWriter{ResponseWriter: w, draining: &ws.draining}
		h.ServeHTTP(cw, r)
		cw.decide() // a handler that wrote nothing: net/http writes the header now
	})
}

// closingWriter adds "Connection: close" to the header it writes when
// draining is set by then.
type closingWriter struct {
	http.ResponseWriter
	draining *atomic.Bool
	decided  bool
}

func (w *closingWriter) decide() {
	if w.decided {
		return
	}
	w.decided = true
	if w.draining.Load() {
		w.Header().Set("Connection", "close")
	}
}

func (w *closingWriter) WriteHeader(code int) {
	w.decide()
	w.ResponseWriter.WriteHeader(code)
}

func (w *closingWriter) Write(b []byte) (int, error) {
	w.decide()
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach net/http's writer.
func (w *closingWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// serve serves h on ws.ln until stop is cancelled, then shuts down in
// phases (see Run); it returns at once, closing every connection, when
// abort is cancelled (another component failed). Handlers get abort's
// context, so that requests in flight are not cancelled by stop.
func (ws *webhookServer) serve(stop, abort context.Context, h http.Handler) error {
	opts := ws.opts
	hs := &http.Server{
		Handler:           ws.closeWhileDraining(h),
		ReadHeaderTimeout: opts.ReadHeaderTimeout,
		ReadTimeout:       opts.RequestTimeout,
		WriteTimeout:      opts.RequestTimeout + writeGrace,
		IdleTimeout:       ws.idleTimeout,
		MaxHeaderBytes:    maxHeaderBytes,
		ErrorLog:          stdlog.New(errorLogWriter{ws.log.WithName("http")}, "", 0),
		BaseContext:       func(net.Listener) context.Context { return abort },
		ConnState:         ws.conns.track,
	}
	if !opts.EnableHTTP2 {
		// ALPN never offers h2 (tlsConfig); an empty map also keeps
		// net/http from setting HTTP/2 up at all.
		hs.TLSNextProto = map[string]func(*http.Server, *tls.Conn, http.Handler){}
	}
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ws.ln) }()
	ws.serving.Store(true)
	ws.log.Info("Serving webhooks", "address", ws.addr, "readHeaderTimeout", opts.ReadHeaderTimeout.String(),
		"requestTimeout", opts.RequestTimeout.String(), "idleTimeout", ws.idleTimeout.String())

	failed := func(err error) error {
		ws.draining.Store(true)
		return fmt.Errorf("webhook server: %w", err)
	}
	select {
	case err := <-served:
		return failed(err)
	case <-abort.Done():
		ws.draining.Store(true)
		hs.Close()
		<-served
		return nil
	case <-stop.Done():
	}

	ws.draining.Store(true)
	ws.log.Info("Shutdown requested: /readyz fails from now on; still serving", "shutdownDelay", opts.ShutdownDelay.String())
	delay := time.NewTimer(opts.ShutdownDelay)
	defer delay.Stop()
	select {
	case err := <-served:
		return failed(err)
	case <-abort.Done():
		hs.Close()
		<-served
		return nil
	case <-delay.C:
	}

	ws.drain(hs, served, abort)
	return nil
}

// drain stops accepting connections and waits, up to ShutdownTimeout, until
// every connection has ended, then closes what is left. A connection kept
// alive is not closed while it is idle: kube-apiserver may be sending on it
// at that very moment (it goes on using it after the pod has left the
// endpoints), and that request would fail with EOF. HTTP/1.1 has no way to
// tell a client that an idle connection is going away, so each one ends
// when it is used once more (closeWhileDraining's answer closes it) or when
// kube-apiserver closes it, at most kubeAPIServerKeepAlive after its last
// use: a ShutdownTimeout that long after the shutdown delay closes none
// under a request. http.Server.Shutdown closes idle connections at once, so
// it only comes last, to wait for requests in flight. With HTTP/2 it comes
// first: its GOAWAY tells the client which requests were not taken, and
// those are sent again elsewhere.
func (ws *webhookServer) drain(hs *http.Server, served <-chan error, abort context.Context) {
	opts := ws.opts
	ws.log.Info("Draining: no new connections; waiting for requests in flight and for the connections kept alive to end",
		"shutdownTimeout", opts.ShutdownTimeout.String(), "connections", ws.conns.count())
	dctx, cancel := context.WithTimeout(abort, opts.ShutdownTimeout)
	defer cancel()
	start := time.Now()
	if !opts.EnableHTTP2 {
		// Serve returns when its listener closes; the connections it
		// accepted go on.
		ws.ln.Close()
		if err := <-served; !errors.Is(err, net.ErrClosed) {
			ws.log.Error(err, "Webhook server stopped")
		}
		served = nil
		select {
		case <-ws.conns.allClosed():
		case <-dctx.Done():
		}
	}
	if err := hs.Shutdown(dctx); err != nil {
		// Run still returns nil: stopping was asked for, and the cut
		// requests get kube-apiserver's failurePolicy.
		ws.log.Error(err, "Drain incomplete; closing the remaining connections",
			"after", time.Since(start).Round(time.Millisecond).String(), "connections", ws.conns.count())
		hs.Close()
	} else {
		ws.log.Info("Drained", "after", time.Since(start).Round(time.Millisecond).String())
	}
	if served != nil {
		<-served
	}
}

// connTracker counts the webhook server's open connections (its
// http.Server's ConnState), so that the drain can wait until none is left.
type connTracker struct {
	mu   sync.Mutex
	open int
	none chan struct{} // closed when open falls to 0, once allClosed asked
}

func (c *connTracker) track(_ net.Conn, s http.ConnState) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch s {
	case http.StateNew:
		c.open++
	case http.StateHijacked, http.StateClosed:
		c.open--
		if c.open == 0 && c.none != nil {
			close(c.none)
			c.none = nil
		}
	}
}

func (c *connTracker) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.open
}

// allClosed is closed once no connection is open. Call it after the
// listener has closed, when no connection opens any more.
func (c *connTracker) allClosed() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch := make(chan struct{})
	if c.open == 0 {
		close(ch)
	} else {
		c.none = ch
	}
	return ch
}

// ready is the readiness check (healthHandler adds the shutdown): the
// webhook serves, and a TLS handshake with the listener succeeds, which needs
// a certificate (the self-bootstrapped source may have none yet).
func (ws *webhookServer) ready(*http.Request) error {
	if !ws.serving.Load() {
		return errors.New("webhook server not started yet")
	}
	d := &tls.Dialer{
		NetDialer: &net.Dialer{Timeout: readinessDialTimeout},
		Config:    &tls.Config{InsecureSkipVerify: true}, //nolint:gosec // only whether it answers, not whom
	}
	conn, err := d.Dial("tcp", ws.addr)
	if err != nil {
		return fmt.Errorf("webhook server not reachable: %w", err)
	}
	return conn.Close()
}

// errorLogWriter routes net/http's error log (TLS handshake errors, panics
// in handlers) to the logger, one line per message.
type errorLogWriter struct{ log logr.Logger }

func (w errorLogWriter) Write(p []byte) (int, error) {
	w.log.Info(strings.TrimSpace(string(p)))
	return len(p), nil
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

// tls12Suites are the only TLS 1.2 cipher suites offered: ECDHE key
// exchange (forward secrecy) with an AEAD cipher. Go's defaults would also
// accept the CBC-SHA1 suites. TLS 1.3's suites are all AEAD and not
// configurable.
var tls12Suites = []uint16{
	tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,
	tls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,
	tls.TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384,
	tls.TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384,
	tls.TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256,
	tls.TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256,
}

// tlsConfig is the webhook listener's TLS: the minimum version, ECDHE AEAD
// suites for TLS 1.2, the certificate from getCert on every handshake, and
// ALPN without "h2" unless enableHTTP2 (CVE-2023-44487, HTTP/2 Rapid Reset).
func tlsConfig(minVersion uint16, enableHTTP2 bool, getCert func(*tls.ClientHelloInfo) (*tls.Certificate, error)) *tls.Config {
	c := &tls.Config{
		MinVersion:     minVersion,
		CipherSuites:   tls12Suites,
		GetCertificate: getCert,
		NextProtos:     []string{"http/1.1"},
	}
	if enableHTTP2 {
		c.NextProtos = []string{"h2", "http/1.1"}
	}
	return c
}

// listen returns nil for a disabled address ("" or "0").
func listen(addr string) (net.Listener, error) {
	if addr == "" || addr == "0" {
		return nil, nil
	}
	return net.Listen("tcp", addr)
}

// healthHandler serves /healthz, which only says the process answers, and
// /readyz (webhookReady: see webhookServer.ready), so that a pod is not put
// behind the Service before the webhook can take requests. Once
// shuttingDown, /readyz answers 503 Service Unavailable (a failed check
// would be 500) so that the pod is taken out of the endpoints. Both accept
// the sub-paths and ?verbose of controller-runtime's healthz package, as a
// manager's probes do.
func healthHandler(webhookReady healthz.Checker, shuttingDown func() bool) http.Handler {
	mux := http.NewServeMux()
	live := &healthz.Handler{Checks: map[string]healthz.Checker{"ping": healthz.Ping}}
	checks := &healthz.Handler{Checks: map[string]healthz.Checker{"webhook": webhookReady}}
	ready := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if shuttingDown() {
			http.Error(w, "shutting down", http.StatusServiceUnavailable)
			return
		}
		checks.ServeHTTP(w, r)
	})
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

// PprofHandler serves net/http/pprof's index and profiles under
// /debug/pprof/. Run serves it on PprofBindAddress. A CPU profile or trace
// longer than the auxiliary servers' write timeout is cut off by it.
func PprofHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	return mux
}

// serve runs an auxiliary HTTP server on ln until ctx is cancelled.
func serve(ctx context.Context, ln net.Listener, h http.Handler) error {
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: DefaultReadHeaderTimeout,
		ReadTimeout:       auxReadTimeout,
		WriteTimeout:      auxWriteTimeout,
		IdleTimeout:       idleTimeout,
		MaxHeaderBytes:    maxHeaderBytes,
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

// registerRuntimeCollectors adds the Go runtime and process collectors that a
// controller-runtime manager would register (the webhook runs without one).
// Registering twice is harmless: another package may already have done it.
func registerRuntimeCollectors() error {
	for _, c := range []prometheus.Collector{
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
	} {
		if err := metrics.Registry.Register(c); err != nil {
			if are := (prometheus.AlreadyRegisteredError{}); !errors.As(err, &are) {
				return err
			}
		}
	}
	return nil
}
