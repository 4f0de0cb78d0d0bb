// Command server is the floor of the load tool: `listenerset-webhook serve`
// with a handler that only decodes the AdmissionReview and allows (package
// floor). It takes the serve command's flags that the load tool uses, with
// the same defaults, and builds into bin/listenerset-webhook-floor
// (`make bench`, or the load tool itself).
package main

import (
	"flag"
	"fmt"
	"os"

	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	"sigs.k8s.io/controller-runtime/pkg/manager/signals"

	"github.com/airlock/listenerset-webhook/test/load/floor"
	"github.com/airlock/listenerset-webhook/webhook"
)

func main() {
	fs := flag.NewFlagSet("floor", flag.ExitOnError)
	opts := webhook.Options{Register: floor.Register}
	fs.IntVar(&opts.Port, "port", webhook.DefaultPort, "HTTPS port")
	fs.StringVar(&opts.Host, "host", "", "address to listen on")
	fs.StringVar(&opts.CertDir, "cert-dir", webhook.DefaultCertDir(), "directory with tls.crt and tls.key")
	fs.StringVar(&opts.HealthProbeBindAddress, "health-probe-bind-address", webhook.DefaultHealthProbeBindAddress, "/healthz and /readyz")
	fs.StringVar(&opts.MetricsBindAddress, "metrics-bind-address", webhook.DefaultMetricsBindAddress, "/metrics")
	fs.StringVar(&opts.TLSMinVersion, "tls-min-version", webhook.DefaultTLSMinVersion, "minimum TLS version")
	fs.BoolVar(&opts.EnableHTTP2, "enable-http2", false, "offer HTTP/2")
	zapOpts := zap.Options{}
	zapOpts.BindFlags(fs)
	_ = fs.Parse(os.Args[1:])
	logf.SetLogger(zap.New(zap.UseFlagOptions(&zapOpts), zap.WriteTo(os.Stderr)))
	if err := webhook.Run(signals.SetupSignalHandler(), opts); err != nil {
		fmt.Fprintln(os.Stderr, "floor:", err)
		os.Exit(1)
	}
}
