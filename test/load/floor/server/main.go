// Command server is the floor of the load tool: a plain controller-runtime
// webhook server as a kubebuilder scaffold builds it (webhook.NewServer with
// its defaults, HTTP/2 off, controller-runtime's health probes and metrics
// server), serving a handler that decodes the ListenerSet and allows
// (package floor, which says where it differs from a scaffold). It builds
// into bin/listenerset-webhook-floor (`make bench`, or the load tool
// itself) and takes the flags the load tool passes to both servers.
package main

import (
	"flag"
	"fmt"
	"os"

	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	"sigs.k8s.io/controller-runtime/pkg/manager/signals"

	"github.com/airlock/listenerset-webhook/test/load/floor"
)

func main() {
	var o floor.Options
	flag.StringVar(&o.Host, "host", "", "address the webhook server listens on (controller-runtime's default: all)")
	flag.IntVar(&o.Port, "port", 0, "webhook server's HTTPS port (0: controller-runtime's default, 9443)")
	flag.StringVar(&o.CertDir, "cert-dir", "", "directory with tls.crt and tls.key (\"\": controller-runtime's default)")
	// The scaffold's flags and defaults.
	flag.StringVar(&o.MetricsBindAddress, "metrics-bind-address", "0", "address /metrics is served on over HTTP (\"0\": off)")
	flag.StringVar(&o.HealthProbeBindAddress, "health-probe-bind-address", ":8081", "address /healthz and /readyz are served on")
	flag.BoolVar(&o.EnableHTTP2, "enable-http2", false, "offer HTTP/2 on the webhook server")
	opts := zap.Options{Development: true}
	opts.BindFlags(flag.CommandLine)
	flag.Parse()
	logf.SetLogger(zap.New(zap.UseFlagOptions(&opts)))

	if err := floor.Run(signals.SetupSignalHandler(), o); err != nil {
		fmt.Fprintln(os.Stderr, "floor:", err)
		os.Exit(1)
	}
}
