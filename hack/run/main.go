// Command run is `make run`: a local Kubernetes control plane with the
// ListenerSet webhook registered, for trying the webhook by hand with the
// real kubectl.
//
//	go run ./hack/run
//
// It builds (first time, ~11 minutes on 2 cores) or finds kube-apiserver,
// kubectl and etcd through hack/k8s-binaries.sh, starts etcd and
// kube-apiserver, installs Gateway API's standard CRDs from the module cache,
// starts the webhook with a freshly generated CA (in this process, or the
// binary given with -webhook-binary), registers the mutating and validating
// webhook configurations, applies examples/gateway.yaml, writes an admin
// kubeconfig to ./.run/kubeconfig and prints how to use it. Ctrl-C stops
// everything it started.
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
	"syscall"
	"time"

	"github.com/airlock/listenerset-webhook/test/localcluster"
	"github.com/airlock/listenerset-webhook/webhook"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
)

func main() {
	var (
		port          = flag.Int("port", 0, "webhook port on 127.0.0.1 (0: a free one)")
		runDir        = flag.String("dir", ".run", "where the kubeconfig and the webhook's certificates go (relative to the repository root)")
		webhookBinary = flag.String("webhook-binary", "", "run this listenerset-webhook binary (`serve`) instead of the webhook in this process")
		planeLogs     = flag.Bool("control-plane-logs", false, "show kube-apiserver's and etcd's logs")
		noExamples    = flag.Bool("no-examples", false, "do not apply examples/gateway.yaml")
		clusterChecks = flag.Bool("cluster-checks", true, "cluster-aware warnings (parent Gateway, conflicts, ReferenceGrants, Secrets)")
		strict        = flag.Bool("strict", false, "deny listener conflicts and certificateRefs no ReferenceGrant permits")
	)
	zapOpts := zap.Options{Development: true}
	zapOpts.BindFlags(flag.CommandLine)
	flag.Parse()
	logf.SetLogger(zap.New(zap.UseFlagOptions(&zapOpts), zap.WriteTo(os.Stderr)))
	checks := webhook.ClusterOptions{Enabled: *clusterChecks, Strict: *strict, WatchSecrets: *clusterChecks}
	if err := run(*port, *runDir, *webhookBinary, *planeLogs, !*noExamples, checks); err != nil {
		fmt.Fprintln(os.Stderr, "run:", err)
		os.Exit(1)
	}
}

func say(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "[run %s] %s\n", time.Now().Format("15:04:05"), fmt.Sprintf(format, args...))
}

func run(port int, runDir, webhookBinary string, planeLogs, examples bool, checks webhook.ClusterOptions) (retErr error) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	root, err := localcluster.RepoRoot()
	if err != nil {
		return err
	}
	if !filepath.IsAbs(runDir) {
		runDir = filepath.Join(root, runDir)
	}
	if err := os.MkdirAll(runDir, 0o700); err != nil {
		return err
	}

	say("ensuring kube-apiserver, kubectl and etcd (%s)", localcluster.BinariesScript)
	binDir, err := localcluster.EnsureBinaries(ctx, root, os.Stderr)
	if err != nil {
		return err
	}
	say("starting etcd and kube-apiserver from %s", binDir)
	opts := localcluster.Options{Root: root, BinDir: binDir}
	if planeLogs {
		opts.ControlPlaneOutput = os.Stderr
	}
	cluster, err := localcluster.Start(ctx, opts)
	if err != nil {
		return err
	}
	defer func() {
		say("stopping kube-apiserver and etcd")
		retErr = errors.Join(retErr, cluster.Stop())
	}()
	say("control plane up; %d CRDs installed from %s", len(cluster.Env.CRDs), cluster.CRDDir)
	checks.RESTConfig = cluster.Config

	// Written first: a webhook binary reads it for the cluster-aware checks.
	kubeconfig := filepath.Join(runDir, "kubeconfig")
	if err := cluster.WriteKubeconfig(kubeconfig); err != nil {
		return err
	}
	defer os.Remove(kubeconfig) // it points at a cluster that is about to vanish

	cert, err := localcluster.NewServingCert(filepath.Join(runDir, "certs"), "127.0.0.1", "localhost")
	if err != nil {
		return err
	}
	if port == 0 {
		if port, err = localcluster.FreePort(); err != nil {
			return err
		}
	}
	healthPort, err := localcluster.FreePort()
	if err != nil {
		return err
	}
	metricsPort, err := localcluster.FreePort()
	if err != nil {
		return err
	}
	health := fmt.Sprintf("127.0.0.1:%d", healthPort)
	metrics := fmt.Sprintf("127.0.0.1:%d", metricsPort)

	hookCtx, stopHook := context.WithCancel(context.Background())
	hookDone := make(chan error, 1)
	if webhookBinary != "" {
		cmd := exec.CommandContext(hookCtx, webhookBinary, "serve",
			"--host=127.0.0.1", fmt.Sprintf("--port=%d", port), "--cert-dir="+cert.Dir,
			"--health-probe-bind-address="+health, "--metrics-bind-address="+metrics)
		if checks.Enabled {
			cmd.Args = append(cmd.Args, "--cluster-checks", "--watch-secrets", "--kubeconfig="+kubeconfig,
				fmt.Sprintf("--strict=%t", checks.Strict))
		}
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
		cmd.WaitDelay = 20 * time.Second
		if err := cmd.Start(); err != nil {
			stopHook()
			return fmt.Errorf("starting %s: %w", webhookBinary, err)
		}
		say("webhook: %s (pid %d) on 127.0.0.1:%d", webhookBinary, cmd.Process.Pid, port)
		go func() { hookDone <- cmd.Wait() }()
	} else {
		say("webhook: in this process on 127.0.0.1:%d", port)
		go func() {
			hookDone <- webhook.Run(hookCtx, webhook.Options{
				Host: "127.0.0.1", Port: port, CertDir: cert.Dir,
				HealthProbeBindAddress: health, MetricsBindAddress: metrics,
				Cluster: checks,
			})
		}()
	}
	hookStopped := false
	defer func() {
		stopHook()
		if !hookStopped {
			say("stopping the webhook")
			select {
			case <-hookDone:
			case <-time.After(30 * time.Second):
				retErr = errors.Join(retErr, errors.New("the webhook did not stop within 30s"))
			}
		}
	}()
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	ready := make(chan error, 1)
	go func() { ready <- localcluster.WaitForTLS(ctx, addr, cert.CAPEM, 60*time.Second) }()
	select {
	case err := <-ready:
		if err != nil {
			return err
		}
	case err := <-hookDone:
		hookStopped = true
		return fmt.Errorf("the webhook exited before serving: %v", err)
	}

	const demoNamespace = "listenerset-demo"
	if examples {
		r := cluster.Kubectl(ctx, "", "apply", "-f", filepath.Join(root, "examples", "gateway.yaml"))
		if r.Err != nil {
			return fmt.Errorf("applying examples/gateway.yaml: %v\n%s", r.Err, r.Output())
		}
	} else {
		r := cluster.Kubectl(ctx, "", "create", "namespace", demoNamespace)
		if r.Err != nil {
			return fmt.Errorf("creating namespace %s: %v\n%s", demoNamespace, r.Err, r.Output())
		}
	}
	ep := localcluster.WebhookEndpoint{
		BaseURL:      "https://" + addr,
		MutatePath:   webhook.MutatePath,
		ValidatePath: webhook.ValidatePath,
		CABundle:     cert.CAPEM,
	}
	if err := cluster.RegisterWebhooks(ctx, ep, demoNamespace); err != nil {
		return err
	}

	printUsage(os.Stdout, root, cluster, kubeconfig, ep, health, metrics, examples)

	select {
	case <-ctx.Done():
		fmt.Fprintln(os.Stderr)
		say("interrupted; shutting down")
		return nil
	case err := <-hookDone:
		hookStopped = true
		return fmt.Errorf("the webhook stopped: %v", err)
	}
}

func printUsage(w io.Writer, root string, c *localcluster.Cluster, kubeconfig string, ep localcluster.WebhookEndpoint, health, metrics string, examples bool) {
	rel := func(p string) string {
		if r, err := filepath.Rel(root, p); err == nil {
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

Try (from %s):

  %s --kubeconfig %s apply -f examples/valid/
  %s --kubeconfig %s apply -f examples/invalid/duplicate-names.yaml
  %s --kubeconfig %s apply -f examples/invalid/many-errors.yaml
  %s --kubeconfig %s apply --dry-run=server -f examples/invalid/protocol-conflict.yaml
  %s --kubeconfig %s get listenersets -n listenerset-demo -o yaml

or, for this shell:

  export KUBECONFIG=%s PATH=%s:$PATH

Ctrl-C stops the webhook, kube-apiserver and etcd.
`,
		c.Config.Host, ep.BaseURL, ep.MutatePath, ep.ValidatePath, health, metrics, kc, kubectl,
		root,
		kubectl, kc, kubectl, kc, kubectl, kc, kubectl, kc, kubectl, kc,
		kubeconfig, c.BinDir)
	if !examples {
		fmt.Fprintln(w, "(examples/gateway.yaml was not applied; the examples need it: kubectl apply -f examples/gateway.yaml)")
	}
}
