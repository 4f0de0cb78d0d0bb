// Package floor is the load tool's yardstick: a plain controller-runtime
// webhook server, what a user gets from a kubebuilder scaffold, with a
// handler that does the least any ListenerSet webhook does. The handler
// (Webhook) decodes the AdmissionReview and then its object into a
// gwv1.ListenerSet with controller-runtime's decoder, answers Allowed and
// encodes the response. The server (Run, built by ./server) is
// controller-runtime's webhook.NewServer with its own defaults and HTTP/2
// turned off as the scaffold turns it off, next to controller-runtime's
// healthz handlers and metrics server. Nothing of the ListenerSet webhook's
// own server stack (webhook.Run) is in it: the difference between ours and
// the floor is everything our code adds, the server included.
//
// Where the floor differs from a scaffold, it is so that it runs without a
// cluster and answers the load tool as ours does:
//
//   - No manager (it needs a kube-apiserver, and a webhook server needs no
//     client or cache): the webhook, metrics and health servers run side by
//     side until ctx ends, and the first to fail stops the others, as the
//     manager runs them. The scheme holds only the gateway-api v1 types the
//     handler decodes, not also client-go's. Both make the floor lighter
//     than a scaffold, never heavier.
//   - Metrics are served over plain HTTP: the scaffold's secure metrics
//     authenticate and authorize scrapers against kube-apiserver. The load
//     tool reads controller_runtime_webhook_requests_total there, from both
//     servers. Go runtime and process metrics are registered, as a scaffold
//     gets them from controller-runtime's controller metrics.
//   - /readyz checks the webhook server's StartedChecker (a TLS dial of its
//     port; controller-runtime's readiness check for webhooks) instead of the
//     scaffold's healthz.Ping, which is ready before the port is bound. Ours'
//     /readyz also means "the TLS listener accepts", so the load tool's wait
//     for readiness means the same for both. /healthz is healthz.Ping.
//   - --host, --port and --cert-dir are flags (the load tool sets them);
//     a scaffold leaves them at controller-runtime's defaults.
package floor

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"golang.org/x/sync/errgroup"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	ctrlwebhook "sigs.k8s.io/controller-runtime/pkg/webhook"
	cradmission "sigs.k8s.io/controller-runtime/pkg/webhook/admission"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/webhook/admission"
)

var scheme = runtime.NewScheme()

func init() {
	utilruntime.Must(gwv1.Install(scheme))
}

// Webhook returns the decode-and-allow webhook: it decodes the request's
// object into a gwv1.ListenerSet with controller-runtime's decoder, as a
// scaffolded defaulter or validator does before calling user code, and
// allows. An object that does not decode is answered 400, as
// controller-runtime's own defaulting and validating webhooks answer it.
func Webhook() *cradmission.Webhook {
	decoder := cradmission.NewDecoder(scheme)
	return &cradmission.Webhook{Handler: cradmission.HandlerFunc(func(_ context.Context, req cradmission.Request) cradmission.Response {
		ls := &gwv1.ListenerSet{}
		if err := decoder.Decode(req, ls); err != nil {
			return cradmission.Errored(http.StatusBadRequest, err)
		}
		return cradmission.Allowed("")
	})}
}

// Register serves Webhook at both of the ListenerSet webhook's paths
// (admission.MutatePath and admission.ValidatePath).
func Register(srv ctrlwebhook.Server) {
	srv.Register(admission.MutatePath, Webhook())
	srv.Register(admission.ValidatePath, Webhook())
}

// Options configure Run; they are the flags of ./server.
type Options struct {
	// Host and Port are where the webhook server listens; "" and 0 are
	// controller-runtime's defaults (all addresses, 9443).
	Host string
	Port int
	// CertDir holds tls.crt and tls.key (controller-runtime's certificate
	// watcher re-reads them); "" is controller-runtime's default,
	// <os.TempDir()>/k8s-webhook-server/serving-certs.
	CertDir string
	// EnableHTTP2 leaves controller-runtime's ALPN ("h2") alone; by
	// default HTTP/2 is off, as in the scaffold.
	EnableHTTP2 bool
	// HealthProbeBindAddress serves /healthz and /readyz over HTTP; "" or
	// "0" disables it.
	HealthProbeBindAddress string
	// MetricsBindAddress serves /metrics over HTTP (controller-runtime's
	// metrics server); "0" disables it, "" is controller-runtime's :8080.
	MetricsBindAddress string
}

// Run serves the floor until ctx is cancelled, then shuts its servers down
// as controller-runtime does, and returns nil; or it returns the first
// error of a server, which stops the others.
func Run(ctx context.Context, o Options) error {
	var tlsOpts []func(*tls.Config)
	if !o.EnableHTTP2 {
		// The kubebuilder scaffold's disableHTTP2 (HTTP/2 Rapid Reset,
		// CVE-2023-44487, and stream multiplexing).
		tlsOpts = append(tlsOpts, func(c *tls.Config) { c.NextProtos = []string{"http/1.1"} })
	}
	srv := ctrlwebhook.NewServer(ctrlwebhook.Options{Host: o.Host, Port: o.Port, CertDir: o.CertDir, TLSOpts: tlsOpts})
	Register(srv)

	metricsSrv, err := metricsserver.NewServer(metricsserver.Options{BindAddress: o.MetricsBindAddress}, nil, nil)
	if err != nil {
		return fmt.Errorf("metrics: %w", err)
	}
	if metricsSrv != nil {
		if err := registerRuntimeCollectors(); err != nil {
			return fmt.Errorf("metrics: %w", err)
		}
	}
	var health *manager.Server
	if a := o.HealthProbeBindAddress; a != "" && a != "0" {
		// Bound now, as the manager binds it in NewManager.
		ln, err := net.Listen("tcp", a)
		if err != nil {
			return fmt.Errorf("health probes: %w", err)
		}
		health = healthServer(ctx, ln, srv.StartedChecker())
	}

	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error { return srv.Start(gctx) })
	if metricsSrv != nil {
		g.Go(func() error { return metricsSrv.Start(gctx) })
	}
	if health != nil {
		g.Go(func() error { return health.Start(gctx) })
	}
	return g.Wait()
}

// healthServer is the manager's health probe server: its mux, handlers and
// HTTP server settings (controller-runtime's internal httpserver.New).
func healthServer(ctx context.Context, ln net.Listener, ready healthz.Checker) *manager.Server {
	mux := http.NewServeMux()
	for path, h := range map[string]http.Handler{
		"/readyz":  &healthz.Handler{Checks: map[string]healthz.Checker{"webhook": ready}},
		"/healthz": &healthz.Handler{Checks: map[string]healthz.Checker{"healthz": healthz.Ping}},
	} {
		mux.Handle(path, http.StripPrefix(path, h))
		mux.Handle(path+"/", http.StripPrefix(path, h))
	}
	return &manager.Server{
		Name: "health probe",
		Server: &http.Server{
			BaseContext:       func(net.Listener) context.Context { return ctx },
			Handler:           mux,
			MaxHeaderBytes:    1 << 20,
			IdleTimeout:       90 * time.Second,
			ReadHeaderTimeout: 32 * time.Second,
		},
		Listener: ln,
	}
}

// registerRuntimeCollectors registers what controller-runtime's controller
// metrics add to metrics.Registry (which a scaffold imports, the floor does
// not): Go runtime and process metrics. A collector already there is fine.
func registerRuntimeCollectors() error {
	for _, c := range []prometheus.Collector{
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		collectors.NewGoCollector(collectors.WithGoCollectorRuntimeMetrics(collectors.MetricsAll)),
	} {
		if err := metrics.Registry.Register(c); err != nil {
			if are := (prometheus.AlreadyRegisteredError{}); !errors.As(err, &are) {
				return err
			}
		}
	}
	return nil
}
