// Command run is `make run`: a local Kubernetes control plane with the
// ListenerSet webhook registered, for trying the webhook by hand with the
// real kubectl.
//
//	go run ./hack/run
//
// It builds (first time: its progress line says how long that takes) or finds kube-apiserver,
// kubectl and etcd through hack/k8s-binaries.sh, starts etcd and
// kube-apiserver, installs Gateway API's standard CRDs from the module cache,
// starts the webhook with a freshly generated CA (in this process, or the
// binary given with -webhook-binary), registers the mutating and validating
// webhook configurations, applies examples/gateway.yaml, writes an admin
// kubeconfig to ./.run/kubeconfig and prints how to use it. Ctrl-C stops
// everything it started, and the command (and the make or go command that
// started it: see foreground) exits 0.
//
// -mode (mode.go) is the chart's admission.mode: policy registers the
// generated ValidatingAdmissionPolicy and its binding instead of the webhook
// (no webhook process), both registers the policy and the webhook with
// failurePolicy Ignore.
//
// The terminal shows one line per step and the instructions; everything
// else that logs (envtest, controller-runtime, client-go, the webhook and its
// requests, the binaries script) goes to ./.run/run.log.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/airlock/listenerset-webhook/validation"

	"k8s.io/klog/v2"
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

const demoNamespace = "listenerset-demo"

type options struct {
	port          int
	runDir        string
	webhookBinary string
	planeLogs     bool
	examples      bool
	checks        clusterview.Options
	mode          admissionMode // mode.go
}

func main() { os.Exit(runMain()) }

// runMain is main with an exit code, so that its deferred functions (the
// terminal handed back, the log closed) run before the process exits.
func runMain() int {
	var (
		o             options
		noExamples    bool
		clusterChecks bool
	)
	flag.IntVar(&o.port, "port", 0, "webhook port on 127.0.0.1 (0: a free one)")
	flag.StringVar(&o.runDir, "dir", ".run", "where the kubeconfig, the webhook's certificates and the log go (relative to the repository root)")
	flag.StringVar(&o.webhookBinary, "webhook-binary", "", "run this listenerset-webhook binary (`serve`) instead of the webhook in this process")
	flag.BoolVar(&o.planeLogs, "control-plane-logs", false, "show kube-apiserver's and etcd's logs on the terminal")
	flag.BoolVar(&noExamples, "no-examples", false, "do not apply examples/gateway.yaml")
	flag.BoolVar(&clusterChecks, "cluster-checks", true, "cluster-aware warnings (parent Gateway, conflicts, ReferenceGrants, Secrets)")
	flag.BoolVar(&o.checks.Strict, "strict", false, "deny listener conflicts and certificateRefs no ReferenceGrant permits")
	o.mode = modeWebhook
	flag.Var(&o.mode, "mode", "who judges ListenerSets, as the chart's admission.mode: webhook, policy (the ValidatingAdmissionPolicies alone, no webhook) or both (the policy enforces; the webhook adds the cluster-aware checks with failurePolicy Ignore)")
	zapOpts := zap.Options{Development: true}
	zapOpts.BindFlags(flag.CommandLine)
	flag.Parse()
	o.examples = !noExamples
	o.checks.Enabled, o.checks.WatchSecrets = clusterChecks, clusterChecks

	defer foreground()()

	root, err := localcluster.RepoRoot()
	if err != nil {
		fmt.Fprintln(os.Stderr, "run:", err)
		return 1
	}
	if !filepath.IsAbs(o.runDir) {
		o.runDir = filepath.Join(root, o.runDir)
	}
	if err := os.MkdirAll(o.runDir, 0o700); err != nil {
		fmt.Fprintln(os.Stderr, "run:", err)
		return 1
	}
	logPath := filepath.Join(o.runDir, "run.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		fmt.Fprintln(os.Stderr, "run:", err)
		return 1
	}
	defer logFile.Close()
	// Everything that logs through controller-runtime (envtest, the
	// webhook, the API client's warnings) or klog (client-go) writes to the
	// log file, never to the terminal.
	logger := zap.New(zap.UseFlagOptions(&zapOpts), zap.WriteTo(logFile))
	logf.SetLogger(logger)
	klog.SetLogger(logger.WithName("klog"))

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	if *nodeFlag { // node.go: make run NODE=1
		return runNode(ctx, root, logFile, o)
	}
	if err := run(ctx, root, logFile, o); err != nil {
		fmt.Fprintf(os.Stderr, "run: %v\n(more in %s)\n", err, shortPaths(root, logPath))
		return 1
	}
	return 0
}

func say(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "[run %s] %s\n", time.Now().Format("15:04:05"), fmt.Sprintf(format, args...))
}

// session is what run started, for stop.
type session struct {
	cluster    *localcluster.Cluster
	kubeconfig string
	stopHook   func()
	hookDone   chan error // receives the webhook's end
	hookEnded  bool
}

// run starts everything, prints how to use it and waits for ctx (Ctrl-C) or
// for the webhook to stop; then it stops everything. An interruption, even
// one during the start, is no error.
func run(ctx context.Context, root string, logFile *os.File, o options) error {
	s := &session{}
	usage, err := s.start(ctx, root, logFile, o)
	if err == nil {
		fmt.Fprint(os.Stdout, usage)
		err = s.wait(ctx, o.mode)
	}
	if ctx.Err() != nil {
		if isTerminal(os.Stderr) {
			fmt.Fprintln(os.Stderr) // past the ^C the terminal echoed
		}
		say("interrupted; stopping %s", o.mode.stopping(s.hookEnded))
		err = nil
	}
	if stopErr := s.stop(); stopErr != nil {
		return errors.Join(err, stopErr)
	}
	if err == nil {
		say("stopped")
	}
	return err
}

func (s *session) start(ctx context.Context, root string, logFile *os.File, o options) (usage string, _ error) {
	say("finding or building kube-apiserver, kubectl and etcd with %s (a first build takes 6 to 26 minutes on 2 cores)", localcluster.BinariesScript)
	binDir, err := localcluster.EnsureBinaries(ctx, root, logFile)
	if err != nil {
		return "", err
	}
	opts := localcluster.Options{
		Root: root, BinDir: binDir,
		Step: func(step string) { say("%s", shortPaths(root, step)) },
	}
	if o.planeLogs {
		opts.ControlPlaneOutput = os.Stderr
	}
	if s.cluster, err = localcluster.Start(ctx, opts); err != nil {
		return "", err
	}
	// Written before the webhook starts: a webhook binary reads it for the
	// cluster-aware checks.
	s.kubeconfig = filepath.Join(o.runDir, "kubeconfig")
	if err := s.cluster.WriteKubeconfig(s.kubeconfig); err != nil {
		return "", err
	}
	var hook webhookEndpoints
	if o.mode.runsWebhook() {
		if hook, err = s.startWebhook(ctx, root, logFile, o); err != nil {
			return "", err
		}
	}
	if o.mode.runsPolicy() {
		if err := s.registerPolicy(ctx); err != nil {
			return "", err
		}
	}

	if o.examples {
		say("applying the example Gateway (examples/gateway.yaml)")
		r := s.cluster.Kubectl(ctx, "", "apply", "-f", filepath.Join(root, "examples", "gateway.yaml"))
		if r.Err != nil {
			return "", fmt.Errorf("applying examples/gateway.yaml: %v\n%s", r.Err, r.Output())
		}
		// No controller runs here: without the status one writes, the class
		// stays Pending and every ListenerSet under it gets that warning.
		if err := localcluster.AcceptClass(ctx, s.cluster.Client, localcluster.ExampleGatewayClass); err != nil {
			return "", fmt.Errorf("writing the status of GatewayClass %s: %w", localcluster.ExampleGatewayClass, err)
		}
	} else {
		say("creating namespace %s", demoNamespace)
		r := s.cluster.Kubectl(ctx, "", "create", "namespace", demoNamespace)
		if r.Err != nil {
			return "", fmt.Errorf("creating namespace %s: %v\n%s", demoNamespace, r.Err, r.Output())
		}
	}
	var b strings.Builder
	if o.mode == modeWebhook {
		printUsage(&b, root, s.cluster, s.kubeconfig, logFile.Name(), hook.ep, hook.health, hook.metrics, o.examples)
	} else {
		printModeUsage(&b, root, s.cluster, s.kubeconfig, logFile.Name(), o, hook)
	}
	return b.String(), nil
}

// webhookEndpoints are where the webhook serves, for the instructions.
type webhookEndpoints struct {
	ep              localcluster.WebhookEndpoint
	health, metrics string
	pid             int // of -webhook-binary's process; 0 in this process
}

// startWebhook starts the webhook (in this process or -webhook-binary),
// waits until it serves and registers both webhook configurations (with
// failurePolicy Ignore in mode both).
func (s *session) startWebhook(ctx context.Context, root string, logFile *os.File, o options) (webhookEndpoints, error) {
	checks := o.checks
	checks.RESTConfig = s.cluster.Config
	cert, err := localcluster.NewServingCert(filepath.Join(o.runDir, "certs"), "127.0.0.1", "localhost")
	if err != nil {
		return webhookEndpoints{}, err
	}
	port := o.port
	if port == 0 {
		if port, err = localcluster.FreePort(); err != nil {
			return webhookEndpoints{}, err
		}
	}
	healthPort, err := localcluster.FreePort()
	if err != nil {
		return webhookEndpoints{}, err
	}
	metricsPort, err := localcluster.FreePort()
	if err != nil {
		return webhookEndpoints{}, err
	}
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	health := fmt.Sprintf("127.0.0.1:%d", healthPort)
	metrics := fmt.Sprintf("127.0.0.1:%d", metricsPort)
	logName := shortPaths(root, logFile.Name())

	var pid int
	hookCtx, stopHook := context.WithCancel(context.Background())
	s.stopHook = stopHook
	s.hookDone = make(chan error, 1)
	if o.webhookBinary != "" {
		say("starting the webhook on https://%s (%s serve; its log: %s)", addr, o.webhookBinary, logName)
		cmd := exec.CommandContext(hookCtx, o.webhookBinary, "serve",
			"--host=127.0.0.1", fmt.Sprintf("--port=%d", port), "--cert-dir="+cert.Dir,
			"--health-probe-bind-address="+health, "--metrics-bind-address="+metrics,
			"--shutdown-timeout="+testproc.ServeDrain.String(),
			// The scope by GatewayClass, as installed (the default --scope=class).
			"--kubeconfig="+s.kubeconfig)
		if checks.Enabled {
			cmd.Args = append(cmd.Args, "--cluster-checks", "--watch-secrets", fmt.Sprintf("--strict=%t", checks.Strict))
		}
		cmd.Stdout, cmd.Stderr = logFile, logFile
		// Its own process group: Ctrl-C reaches this process only, which
		// stops the webhook with one SIGTERM (a second signal would make it
		// exit at once, without draining).
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
		cmd.WaitDelay = 20 * time.Second
		if err := cmd.Start(); err != nil {
			s.hookEnded = true
			return webhookEndpoints{}, fmt.Errorf("starting %s: %w", o.webhookBinary, err)
		}
		pid = cmd.Process.Pid
		go func() { s.hookDone <- cmd.Wait() }()
	} else {
		say("starting the webhook on https://%s (in this process; its log: %s)", addr, logName)
		go func() {
			s.hookDone <- webhook.Run(hookCtx, webhook.Options{
				Server: serving.Options{Host: "127.0.0.1", Port: port, HealthProbeBindAddress: health, MetricsBindAddress: metrics,
					ShutdownTimeout: testproc.ServeDrain},
				Certs:   certs.Options{Dir: cert.Dir},
				Cluster: checks,
				// As installed: Airlock's ListenerSets only.
				Scope: validation.Scope{ControllerNames: []gwv1.GatewayController{validation.AirlockControllerName}},
			})
		}()
	}
	ready := make(chan error, 1)
	go func() { ready <- localcluster.WaitForTLS(ctx, addr, cert.CAPEM, 60*time.Second) }()
	select {
	case err := <-ready:
		if err != nil {
			return webhookEndpoints{}, err
		}
	case err := <-s.hookDone:
		s.hookEnded = true
		return webhookEndpoints{}, fmt.Errorf("the webhook exited before serving: %v", err)
	}

	ep := localcluster.WebhookEndpoint{
		BaseURL:      "https://" + addr,
		MutatePath:   admission.MutatePath,
		ValidatePath: admission.ValidatePath,
		DeletePath:   admission.DeletePath,
		CABundle:     cert.CAPEM,
	}
	// The probe that shows kube-apiserver calls the webhook is a dry run in
	// "default", which always exists.
	if o.mode == modeBoth {
		say("registering the mutating and validating webhook configurations (failurePolicy Ignore)")
		err = s.cluster.RegisterWebhooksIgnore(ctx, ep, "default")
	} else {
		say("registering the mutating and validating webhook configurations")
		err = s.cluster.RegisterWebhooks(ctx, ep, "default")
	}
	if err != nil {
		return webhookEndpoints{}, err
	}
	return webhookEndpoints{ep: ep, health: health, metrics: metrics, pid: pid}, nil
}

// stop stops what start started, the webhook first (its cluster view
// watches kube-apiserver).
func (s *session) stop() error {
	var errs []error
	if s.stopHook != nil {
		s.stopHook()
		if !s.hookEnded {
			select {
			case <-s.hookDone:
			case <-time.After(30 * time.Second):
				errs = append(errs, errors.New("the webhook did not stop within 30s"))
			}
		}
	}
	if s.kubeconfig != "" {
		// It points at a cluster that is about to vanish.
		if err := os.Remove(s.kubeconfig); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	if s.cluster != nil {
		errs = append(errs, s.cluster.Stop())
	}
	return errors.Join(errs...)
}

// shortPaths writes paths in s under root relative to it, and those under the
// home directory with ~.
func shortPaths(root, s string) string {
	s = strings.ReplaceAll(s, root+string(filepath.Separator), "./")
	if home, err := os.UserHomeDir(); err == nil && home != "/" && home != "" {
		s = strings.ReplaceAll(s, home+string(filepath.Separator), "~/")
	}
	return s
}

func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

func printUsage(w io.Writer, root string, c *localcluster.Cluster, kubeconfig, logPath string, ep localcluster.WebhookEndpoint, health, metrics string, examples bool) {
	rel := func(p string) string {
		if r, err := filepath.Rel(root, p); err == nil && !strings.HasPrefix(r, "..") {
			return "./" + r
		}
		return p
	}
	kubectl := rel(c.KubectlPath)
	kc := rel(kubeconfig)
	fmt.Fprintf(w, `
ListenerSet webhook running against a local kube-apiserver.

  kube-apiserver  %s
  webhook         %s%s (mutating) and %s (validating)
  health, metrics http://%s/healthz, /readyz; http://%s/metrics
  kubeconfig      %s  (admin; removed on exit)
  kubectl         %s
  log             %s  (the webhook's requests, envtest, client-go)

Try (from %s):

  %s --kubeconfig %s apply -f examples/valid/
  %s --kubeconfig %s apply -f examples/invalid/duplicate-names.yaml
  %s --kubeconfig %s apply -f examples/invalid/many-errors.yaml
  %s --kubeconfig %s apply --dry-run=server -f examples/invalid/protocol-conflict.yaml
  %s --kubeconfig %s get listenersets -n listenerset-demo -o yaml
%s
or, for this shell:

  export KUBECONFIG=%s PATH=%s:$PATH

Ctrl-C stops the webhook, kube-apiserver and etcd.
`,
		c.Config.Host, ep.BaseURL, ep.MutatePath, ep.ValidatePath, health, metrics, kc, kubectl, rel(logPath),
		root,
		kubectl, kc, kubectl, kc, kubectl, kc, kubectl, kc, kubectl, kc,
		classNote(examples), kubeconfig, c.BinDir)
	if !examples {
		fmt.Fprintln(w, "(examples/gateway.yaml was not applied; the examples need it: kubectl apply -f examples/gateway.yaml)")
	}
}

// exampleClassNote says why the example GatewayClass looks taken.
const exampleClassNote = "(the example GatewayClass got the status a controller would write: no controller runs here)"

// classNote is exampleClassNote as a paragraph of the instructions when the
// examples were applied, else nothing.
func classNote(examples bool) string {
	if !examples {
		return ""
	}
	return "\n" + exampleClassNote + "\n"
}
