// Package e2e tests the ListenerSet admission webhook end to end: a real
// kube-apiserver and etcd (built from source by hack/k8s-binaries.sh), Gateway
// API's CRDs, the webhook registered like the Helm chart registers it, and
// the real kubectl, whose printed output the tests assert on.
//
//	go test ./test/e2e/...            # the whole suite; builds the binaries first if needed
//	go test -short ./test/e2e/...     # make test's tier: quickTests only
//
// The whole suite runs against the v1.6.3 standard CRDs, the version of the
// product's Go types. Meanwhile the examples' verdicts, the mutation against
// the CRD's own defaulting and the fields the Go types do not know
// (matrixTests) run against each of matrixSets, the v1.5.1 standard and the
// v1.7.0 standard and experimental CRDs, each in a process of its own with a
// fresh control plane (this test binary again), which TestCRDMatrix reports.
// E2E_CRDS=<set> (e.g. E2E_CRDS=v1.7.0-experimental, see
// localcluster.CRDSet) runs the whole suite against that set instead, and no
// matrix.
//
// The webhook runs in this test process (webhook.Run) by default; with
// E2E_WEBHOOK=binary the tests build cmd/listenerset-webhook and run it as a
// separate process instead. E2E_WEBHOOK_LOGS=1 shows the webhook's logs,
// E2E_CONTROL_PLANE_LOGS=1 kube-apiserver's and etcd's.
package e2e

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/airlock/listenerset-webhook/validation"

	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/test/localcluster"
	"github.com/airlock/listenerset-webhook/test/testproc"
	"github.com/airlock/listenerset-webhook/webhook"
	"github.com/airlock/listenerset-webhook/webhook/admission"
	"github.com/airlock/listenerset-webhook/webhook/certs"
	"github.com/airlock/listenerset-webhook/webhook/clusterview"
	"github.com/airlock/listenerset-webhook/webhook/serving"
)

// namespace is where the examples live (examples/gateway.yaml creates it).
const namespace = "listenerset-demo"

// crdsEnv names the Gateway API CRD set of this process's control plane
// (a localcluster.CRDSet; empty for the product's standard channel).
const crdsEnv = "E2E_CRDS"

var (
	// auditLog is kube-apiserver's audit log (auditArgs).
	auditLog string
	root     string
	cluster  *localcluster.Cluster
	hook     webhookServer
	endpoint localcluster.WebhookEndpoint
	setupErr error
)

func TestMain(m *testing.M) {
	flag.Parse()
	if *listQuickTests {
		fmt.Println(strings.Join(quickTestNames, "\n"))
		os.Exit(0)
	}
	os.Exit(runWithCluster(m))
}

func runWithCluster(m *testing.M) int {
	ctx := context.Background()
	// The in-process webhook logs through controller-runtime's logger.
	logf.SetLogger(zap.New(zap.WriteTo(logWriter()), zap.UseDevMode(true)))
	// A SIGTERM (stopMatrix ends a child so) or a Ctrl-C stops the control
	// plane, the webhook and the matrix's children before exiting.
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGTERM, os.Interrupt)
	go func() {
		sig := <-signals
		fmt.Fprintf(os.Stderr, "e2e: %v: stopping the control plane\n", sig)
		teardown()
		os.Exit(1)
	}()
	start := time.Now()
	setupErr = setup(ctx)
	if setupErr == nil {
		fmt.Fprintf(os.Stderr, "e2e: control plane and webhook ready in %s\n", time.Since(start).Round(100*time.Millisecond))
		setupErr = startMatrix()
	}
	defer teardown()
	return m.Run()
}

func setup(ctx context.Context) error {
	var err error
	if root, err = localcluster.RepoRoot(); err != nil {
		return err
	}
	opts := localcluster.Options{Root: root, Progress: os.Stderr}
	if os.Getenv("E2E_CONTROL_PLANE_LOGS") != "" {
		opts.ControlPlaneOutput = os.Stderr
	}
	opts.CRDs = localcluster.CRDSet(os.Getenv(crdsEnv))
	if opts.APIServerArgs, err = auditArgs(); err != nil {
		return err
	}
	fmt.Fprintln(os.Stderr, "e2e: ensuring kube-apiserver, kubectl and etcd via", localcluster.BinariesScript)
	if cluster, err = localcluster.Start(ctx, opts); err != nil {
		return fmt.Errorf("starting the local control plane: %w", err)
	}
	fmt.Fprintf(os.Stderr, "e2e: Gateway API %s CRDs from %s\n", cluster.CRDs, cluster.CRDDir)

	certDir, err := os.MkdirTemp("", "e2e-webhook-certs-")
	if err != nil {
		return err
	}
	cert, err := localcluster.NewServingCert(certDir, "127.0.0.1", "localhost")
	if err != nil {
		return err
	}
	ports, err := testproc.NewPorts()
	if err != nil {
		return err
	}
	if os.Getenv("E2E_WEBHOOK") == "binary" {
		bin, err := newBinaryWebhook(ports, cert)
		if err != nil {
			return err
		}
		hook = bin
	} else {
		hook = newInProcessWebhook(ports, cert)
	}
	if err := hook.Start(ctx); err != nil {
		return err
	}
	endpoint = localcluster.WebhookEndpoint{
		BaseURL:      "https://" + ports.Addr(),
		MutatePath:   admission.MutatePath,
		ValidatePath: admission.ValidatePath,
		DeletePath:   admission.DeletePath,
		RoutePath:    admission.ValidateRoutePath,
		CABundle:     cert.CAPEM,
	}
	if r := cluster.Kubectl(ctx, "", "apply", "-f", filepath.Join(root, "examples", "gateway.yaml")); r.Err != nil {
		return fmt.Errorf("applying examples/gateway.yaml: %v\n%s", r.Err, r.Output())
	}
	// No controller runs here: the example class gets the status one
	// would write, so that only the tests about a class nobody accepted
	// see the warnings of one (TestClassStatusWarnings).
	if err := localcluster.AcceptClass(ctx, cluster.Client, localcluster.ExampleGatewayClass); err != nil {
		return fmt.Errorf("writing the status of GatewayClass %s: %w", localcluster.ExampleGatewayClass, err)
	}
	return cluster.RegisterWebhooks(ctx, endpoint, namespace)
}

var teardownOnce sync.Once

func teardown() {
	teardownOnce.Do(func() {
		stopMatrix()
		if hook != nil {
			_ = hook.Stop()
		}
		if cluster != nil {
			_ = cluster.Stop()
		}
		testproc.RemoveBinaries()
	})
}

// requireCluster skips, in -short mode, a test that is not one of
// quickTests, and fails, with the reason, when the control plane could not be
// set up: a missing toolchain or a broken build must show, not pass as a skip.
func requireCluster(t *testing.T) {
	t.Helper()
	if testing.Short() && !slices.Contains(quickTestNames, strings.SplitN(t.Name(), "/", 2)[0]) {
		t.Skip("long: make test-all runs it (-short runs quickTests only)")
	}
	if setupErr != nil {
		t.Fatalf("end-to-end setup failed: %v", setupErr)
	}
}

// webhookServer is the webhook under test, stoppable and restartable.
type webhookServer interface {
	Start(ctx context.Context) error
	Stop() error
	// UseSettings sets the flags of the next Start (cluster-aware checks, enforcement, added names)
	// (the zero value: none, as the suite starts).
	UseSettings(c webhookSettings)
	// MetricsURL is the webhook's /metrics.
	MetricsURL() string
}

// webhookSettings are the serve command's --cluster-checks, --strict and
// --watch-secrets, warn its --enforcement=warn and addNames its --add-names:
// the settings the tests restart the webhook with.
// scope its --scope=class with these --controller-names (none: --scope=all,
// as the suite starts), unknownAdmit its --unknown-parent=admit, firstClaim
// its --first-claim (empty: the default, warn) and tenantLabel its
// --tenant-label.
type webhookSettings struct {
	enabled, strict, secrets, warn bool
	addNames                       []string
	scope                          []gwv1.GatewayController
	unknownAdmit                   bool
	firstClaim                     validation.ClaimMode
	tenantLabel                    string
}

// inProcessWebhook runs webhook.Run in this process.
type inProcessWebhook struct {
	opts     webhook.Options
	addNames []string // parsed by Start, as the binary parses its flags
	caPEM    []byte
	cancel   context.CancelFunc
	done     chan error
}

func newInProcessWebhook(ports testproc.Ports, cert *localcluster.ServingCert) *inProcessWebhook {
	return &inProcessWebhook{
		opts: webhook.Options{
			Server: serving.Options{
				Host:                   "127.0.0.1",
				Port:                   ports.Webhook,
				HealthProbeBindAddress: ports.HealthAddr(),
				MetricsBindAddress:     ports.MetricsAddr(),
				ShutdownTimeout:        testproc.ServeDrain,
			},
			Certs: certs.Options{Dir: cert.Dir},
		},
		caPEM: cert.CAPEM,
	}
}

func (w *inProcessWebhook) UseSettings(c webhookSettings) {
	w.opts.Cluster = clusterview.Options{Enabled: c.enabled, Strict: c.strict, WatchSecrets: c.secrets, RESTConfig: cluster.Config,
		Tenancy: validation.Tenancy{FirstClaim: c.firstClaim, TenantLabel: c.tenantLabel}}
	w.opts.Scope = validation.Scope{ControllerNames: c.scope}
	if c.unknownAdmit {
		w.opts.Scope.Unknown = validation.UnknownAdmit
	}
	w.opts.Enforcement = ""
	if c.warn {
		w.opts.Enforcement = admission.EnforcementWarn
	}
	w.addNames = c.addNames
}

func (w *inProcessWebhook) MetricsURL() string {
	return "http://" + w.opts.Server.MetricsBindAddress + "/metrics"
}

func (w *inProcessWebhook) Start(ctx context.Context) error {
	added, err := validation.ParseAddedNames(w.addNames)
	if err != nil {
		return err
	}
	w.opts.AddedNames = added
	runCtx, cancel := context.WithCancel(context.Background())
	w.cancel, w.done = cancel, make(chan error, 1)
	go func() { w.done <- webhook.Run(runCtx, w.opts) }()
	return waitServing(ctx, fmt.Sprintf("127.0.0.1:%d", w.opts.Server.Port), w.caPEM, testproc.Returned(w.done))
}

func (w *inProcessWebhook) Stop() error {
	if w.cancel == nil {
		return nil
	}
	w.cancel()
	w.cancel = nil
	select {
	case err := <-w.done:
		return err
	case <-time.After(30 * time.Second):
		return fmt.Errorf("webhook.Run did not return 30s after its context was cancelled")
	}
}

// waitServing waits for the webhook's TLS port, or for ended (asked every
// 50ms) to report that the webhook stopped.
func waitServing(ctx context.Context, addr string, caPEM []byte, ended func() error) error {
	ready := make(chan error, 1)
	waitCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() { ready <- localcluster.WaitForTLS(waitCtx, addr, caPEM, 30*time.Second) }()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case err := <-ready:
			return err
		case <-tick.C:
			if err := ended(); err != nil {
				return fmt.Errorf("webhook exited before serving: %v", err)
			}
		}
	}
}

// logWriter is where background processes' output goes.
func logWriter() io.Writer {
	if os.Getenv("E2E_WEBHOOK_LOGS") != "" {
		return os.Stderr
	}
	return io.Discard
}
