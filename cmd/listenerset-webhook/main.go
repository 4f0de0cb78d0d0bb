// Command listenerset-webhook is the admission webhook for Gateway API
// ListenerSets on Airlock Microgateway: it serves its three webhooks over
// HTTPS (the mutating one, the validating one and the deletion webhook,
// admission.RegisterWith), with its probes and /metrics.
//
//	listenerset-webhook [serve] [flags]
//
// The offline commands (validate, listeners, policy) are the kubectl plugin
// cmd/kubectl-listenerset, so that this binary, the one the image holds,
// links neither apiextensions-apiserver's schema and CEL nor the policy
// generator (TestServedDependencies holds that).
//
// This file is flags and wiring only: serving is webhook.Run.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/airlock/listenerset-webhook/validation"

	"k8s.io/apimachinery/pkg/api/resource"

	"sigs.k8s.io/controller-runtime/pkg/client/config"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	"sigs.k8s.io/controller-runtime/pkg/manager/signals"

	"github.com/airlock/listenerset-webhook/cmd/internal/flags"
	"github.com/airlock/listenerset-webhook/version"
	"github.com/airlock/listenerset-webhook/webhook"
	"github.com/airlock/listenerset-webhook/webhook/admission"
	"github.com/airlock/listenerset-webhook/webhook/certs"
	"github.com/airlock/listenerset-webhook/webhook/clusterview"
	"github.com/airlock/listenerset-webhook/webhook/inflight"
	"github.com/airlock/listenerset-webhook/webhook/serving"
)

// Exit codes.
const (
	exitOK    = 0
	exitError = 1 // serving failed
	exitUsage = 2 // bad command line, as flag.ExitOnError uses
)

// modulePath is where the plugin is installed from, for the hint below.
const modulePath = "github.com/airlock/listenerset-webhook"

// offlineCommands were subcommands of this binary before the plugin took
// them; naming one gets a pointer to the plugin instead of a bare usage
// error.
var offlineCommands = []string{"validate", "listeners", "policy"}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is main without the process. Only --version writes to stdout; usage,
// errors and logs go to stderr.
func run(args []string, stdout, stderr io.Writer) int {
	// "serve" as the first argument is what the chart, the image's CMD and
	// every release before the split pass; it stays accepted and optional.
	if len(args) > 0 && args[0] == "serve" {
		args = args[1:]
	}
	if len(args) > 0 && slices.Contains(offlineCommands, args[0]) {
		fmt.Fprintf(stderr, "%[1]s is not part of the server: it is the kubectl plugin kubectl-listenerset now "+
			"(go install %[2]s/cmd/kubectl-listenerset), run as `kubectl listenerset %[1]s ...`\n", args[0], modulePath)
		return exitUsage
	}
	fs := flag.NewFlagSet("listenerset-webhook", flag.ContinueOnError)
	fs.SetOutput(stderr)
	opts := webhook.Options{}
	fs.IntVar(&opts.Server.Port, "port", serving.DefaultPort, "HTTPS port of the webhooks")
	fs.StringVar(&opts.Server.Host, "host", "", `address to listen on ("" means all)`)
	fs.StringVar(&opts.Certs.Dir, "cert-dir", certs.DefaultCertDir(),
		"directory with tls.crt and tls.key, reloaded on change; if both are missing, a self-signed certificate "+
			"for localhost (with ca.crt for the caBundle) is generated there, for local use only")
	fs.StringVar(&opts.Certs.Mode, "cert-mode", certs.ModeDir,
		`where the serving certificate comes from: "dir" (--cert-dir) or "self-bootstrapped" (a CA kept in a Secret `+
			`signs short-lived certificates; needs the Kubernetes API)`)
	b := &opts.Certs.Bootstrap
	fs.StringVar(&b.CASecretNamespace, "ca-secret-namespace", "", "self-bootstrapped: namespace of the CA Secret")
	fs.StringVar(&b.CASecretName, "ca-secret-name", "", "self-bootstrapped: name of the CA Secret (created when missing)")
	fs.Var((*commaList)(&b.DNSNames), "dns-names",
		"self-bootstrapped: DNS names of the serving certificate, comma-separated (e.g. <svc>.<ns>.svc); repeatable")
	fs.StringVar(&b.MutatingWebhookConfigName, "mutating-webhook-config-name", "",
		"self-bootstrapped: MutatingWebhookConfiguration whose caBundle the webhook keeps current")
	fs.StringVar(&b.ValidatingWebhookConfigName, "validating-webhook-config-name", "",
		"self-bootstrapped: ValidatingWebhookConfiguration whose caBundle the webhook keeps current")
	fs.DurationVar(&b.CADuration, "ca-duration", certs.DefaultCADuration,
		"self-bootstrapped: validity of the CA (replaced after two thirds)")
	fs.DurationVar(&b.LeafDuration, "leaf-duration", certs.DefaultLeafDuration,
		"self-bootstrapped: validity of a serving certificate (renewed after two thirds)")
	config.RegisterFlags(fs) // --kubeconfig, for self-bootstrapped and cluster checks outside a cluster
	scope := flags.NewScopeFlags()
	fs.Var(scope.ModeFlag(), "scope", flags.ScopeUsage("reads Gateways and GatewayClasses, needs the "+
		"Kubernetes API and get/list/watch on them; with \"all\" nothing is read from the API for it")+` (default "class")`)
	fs.Var(scope.NamesFlag(), "controller-names", flags.ControllerNamesUsage)
	fs.Var(scope.UnknownFlag(), "unknown-parent", flags.UnknownParentUsage+` (default "judge")`)
	fs.BoolVar(&opts.Cluster.Enabled, "cluster-checks", false,
		"also check each ListenerSet against the cluster (parent Gateway, its allowedListeners, conflicts with its "+
			"merged listeners, ReferenceGrants) from a read-only cache, as warnings; needs the Kubernetes API and "+
			"get/list/watch on gateways, listenersets, referencegrants and namespaces")
	fs.BoolVar(&opts.Cluster.Strict, "strict", false,
		"with --cluster-checks: deny listener conflicts and certificateRefs no ReferenceGrant permits instead of warning")
	fs.BoolVar(&opts.Cluster.WatchSecrets, "watch-secrets", false,
		"with --cluster-checks: warn about certificateRefs to missing Secrets (watches Secret metadata only, "+
			"but needs list/watch on secrets in every namespace)")
	fs.StringVar(&opts.Cluster.Tenancy.TenantLabel, "tenant-label", "", "with --cluster-checks: "+flags.TenantLabelUsage)
	fs.StringVar(&opts.Cluster.Tenancy.AllowedHostnamesAnnotation, "allowed-hostnames-annotation", validation.DefaultAllowedHostnamesAnnotation,
		"with --cluster-checks: "+flags.AllowedHostnamesAnnotationUsage)
	fs.Var(flags.FirstClaim(&opts.Cluster.Tenancy), "first-claim", "with --cluster-checks: "+flags.FirstClaimUsage+` (default "warn")`)
	opts.Enforcement = admission.EnforcementDeny
	fs.Var(flags.NewEnum(&opts.Enforcement, "string"), "enforcement",
		`what an invalid ListenerSet gets: "deny" (a 422, as kubectl shows for built-in types) or "warn" (admitted; `+
			`each error a warning beginning "would be denied", counted in `+admission.WouldDenyMetric+`), to see what `+
			`deny would refuse before it does (default deny)`)
	fs.Var(&opts.AddedNames, "add-names", flags.AddedNamesUsage)
	fs.StringVar(&opts.Server.HealthProbeBindAddress, "health-probe-bind-address", serving.DefaultHealthProbeBindAddress,
		`address serving /healthz and /readyz ("0" disables)`)
	fs.StringVar(&opts.Server.MetricsBindAddress, "metrics-bind-address", serving.DefaultMetricsBindAddress,
		`address serving /metrics over plain HTTP ("0" disables)`)
	fs.StringVar(&opts.Server.PprofBindAddress, "pprof-bind-address", "0",
		`address serving Go's profiles under /debug/pprof/ over plain HTTP ("0", the default, disables; only for finding where the time goes)`)
	fs.StringVar(&opts.Server.TLSMinVersion, "tls-min-version", serving.DefaultTLSMinVersion, "minimum TLS version: 1.2 or 1.3")
	fs.BoolVar(&opts.Server.EnableHTTP2, "enable-http2", false,
		"offer HTTP/2 (off by default: HTTP/2 Rapid Reset, CVE-2023-44487)")
	fs.DurationVar(&opts.Server.ReadHeaderTimeout, "read-header-timeout", serving.DefaultReadHeaderTimeout,
		"limit on the TLS handshake and a request's headers (slow clients are cut off)")
	fs.DurationVar(&opts.Server.RequestTimeout, "request-timeout", serving.RequestTimeout,
		"limit on reading a whole request; writing its response may take 5s more")
	opts.InFlight.MaxBytes = inflight.DefaultMaxBytes
	fs.Var((*byteQuantity)(&opts.InFlight.MaxBytes), "max-in-flight-bytes",
		"limit on the request bodies being handled at once, in bytes or as a Kubernetes quantity (e.g. 24Mi); a request "+
			"over it waits, within its timeout, for others to finish, else gets 429 (the webhook's failurePolicy decides). "+
			"Sized for the chart's 256Mi memory limit: raise it in proportion")
	fs.DurationVar(&opts.InFlight.DefaultTimeout, "default-timeout", inflight.DefaultTimeout,
		"a request's time limit when its URL has no ?timeout= (kube-apiserver always adds one, from the webhook's "+
			"timeoutSeconds; the chart passes its timeoutSeconds here); work stops a tenth of it (at most 1s) sooner")
	fs.DurationVar(&opts.Server.ShutdownDelay, "shutdown-delay", 0,
		"after SIGTERM, keep serving this long with /readyz failing, so that endpoints drop the pod first")
	fs.DurationVar(&opts.Server.ShutdownTimeout, "shutdown-timeout", serving.DefaultShutdownTimeout,
		"after the shutdown delay, wait this long for requests in flight before closing their connections")
	printVersion := fs.Bool("version", false, "print the version, commit and Go version, and exit")
	zapOpts := zap.Options{}
	zapOpts.BindFlags(fs)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), `Usage: listenerset-webhook [serve] [flags]

Serves the mutating and validating webhooks for Gateway API ListenerSets over
HTTPS until SIGINT or SIGTERM. Then /readyz fails at once, the webhooks keep
serving for --shutdown-delay, requests in flight get up to --shutdown-timeout
to complete, and the command exits 0. "serve" may come first, as it did when
this binary had other commands; the offline commands (validate, listeners,
policy) are the kubectl plugin kubectl-listenerset.

Flags:
`)
		fs.PrintDefaults()
	}
	switch err := fs.Parse(args); {
	case errors.Is(err, flag.ErrHelp):
		return exitOK
	case err != nil:
		return exitUsage // flag has printed the error and the usage
	case fs.NArg() > 0:
		fmt.Fprintf(stderr, "listenerset-webhook takes no arguments, got %q\n", fs.Args())
		return exitUsage
	case *printVersion:
		fmt.Fprintln(stdout, version.String(fs.Name()))
		return exitOK
	}

	opts.Scope = scope.Scope()
	if err := opts.Cluster.Tenancy.Check(); err != nil {
		fmt.Fprintln(stderr, err)
		return exitUsage
	}

	logf.SetLogger(zap.New(zap.UseFlagOptions(&zapOpts), zap.WriteTo(stderr)))
	log := logf.Log.WithName("setup")
	// SIGINT/SIGTERM cancel the context; Run then drains and returns. A second
	// signal exits at once (code 1).
	ctx := signals.SetupSignalHandler()
	if err := webhook.Run(ctx, opts); err != nil {
		if errors.Is(err, clusterview.ErrNoAPI) && opts.Scope.On() {
			err = fmt.Errorf("%w (--scope=class, the default, reads each ListenerSet's Gateway and GatewayClass: "+
				"give --kubeconfig, or --scope=all to judge every ListenerSet without the API)", err)
		}
		log.Error(err, "Webhook server failed")
		return exitError
	}
	return exitOK
}

// byteQuantity is a flag of a number of bytes, given as a Kubernetes
// quantity ("24Mi", "25165824"), as the chart's memory values are.
type byteQuantity int64

// String implements flag.Value.
func (b *byteQuantity) String() string {
	return resource.NewQuantity(int64(*b), resource.BinarySI).String()
}

// Set implements flag.Value.
func (b *byteQuantity) Set(v string) error {
	q, err := resource.ParseQuantity(v)
	if err != nil {
		return err
	}
	n, ok := q.AsInt64()
	if !ok || n <= 0 {
		return fmt.Errorf("%q: must be a positive whole number of bytes", v)
	}
	*b = byteQuantity(n)
	return nil
}

// commaList is a repeatable flag whose values are comma-separated lists.
type commaList []string

// String implements flag.Value.
func (s *commaList) String() string { return strings.Join(*s, ",") }

// Set implements flag.Value: each value adds its non-empty items.
func (s *commaList) Set(v string) error {
	for _, item := range strings.Split(v, ",") {
		if item = strings.TrimSpace(item); item != "" {
			*s = append(*s, item)
		}
	}
	return nil
}
