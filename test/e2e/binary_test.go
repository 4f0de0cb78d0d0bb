package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"github.com/airlock/listenerset-webhook/test/localcluster"
)

// binaryWebhook runs the built cmd/listenerset-webhook as its own process,
// as a Pod would: `listenerset-webhook serve --port ... --cert-dir ...`.
type binaryWebhook struct {
	path    string
	args    []string
	cluster []string // the flags of UseClusterChecks
	metrics int
	caPEM   []byte
	port    int
	cmd     *exec.Cmd
	done    chan error
}

func newBinaryWebhook(ctx context.Context, root string, port int, cert *localcluster.ServingCert) (*binaryWebhook, error) {
	dir, err := os.MkdirTemp("", "e2e-webhook-bin-")
	if err != nil {
		return nil, err
	}
	bin := filepath.Join(dir, "listenerset-webhook")
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/listenerset-webhook")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("building cmd/listenerset-webhook: %v\n%s", err, out)
	}
	health, err := localcluster.FreePort()
	if err != nil {
		return nil, err
	}
	metrics, err := localcluster.FreePort()
	if err != nil {
		return nil, err
	}
	return &binaryWebhook{
		path: bin,
		args: []string{
			"serve",
			"--host=127.0.0.1",
			fmt.Sprintf("--port=%d", port),
			"--cert-dir=" + cert.Dir,
			fmt.Sprintf("--health-probe-bind-address=127.0.0.1:%d", health),
			fmt.Sprintf("--metrics-bind-address=127.0.0.1:%d", metrics),
		},
		caPEM:   cert.CAPEM,
		port:    port,
		metrics: metrics,
	}, nil
}

func (w *binaryWebhook) UseClusterChecks(c clusterChecks) {
	w.cluster = nil
	if c.enabled {
		w.cluster = []string{"--cluster-checks", "--kubeconfig=" + cluster.KubeconfigPath}
	}
	if c.strict {
		w.cluster = append(w.cluster, "--strict")
	}
	if c.secrets {
		w.cluster = append(w.cluster, "--watch-secrets")
	}
}

func (w *binaryWebhook) MetricsURL() string {
	return fmt.Sprintf("http://127.0.0.1:%d/metrics", w.metrics)
}

func (w *binaryWebhook) Start(ctx context.Context) error {
	w.cmd = exec.Command(w.path, append(w.args[:len(w.args):len(w.args)], w.cluster...)...)
	w.cmd.Stdout, w.cmd.Stderr = logWriter(), logWriter()
	if err := w.cmd.Start(); err != nil {
		return err
	}
	w.done = make(chan error, 1)
	go func() { w.done <- w.cmd.Wait() }()
	return waitServing(ctx, fmt.Sprintf("127.0.0.1:%d", w.port), w.caPEM, w.done)
}

func (w *binaryWebhook) Stop() error {
	if w.cmd == nil {
		return nil
	}
	cmd := w.cmd
	w.cmd = nil
	_ = cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-w.done:
		return nil
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		<-w.done
		return fmt.Errorf("listenerset-webhook (pid %d) ignored SIGTERM for 30s; killed", cmd.Process.Pid)
	}
}
