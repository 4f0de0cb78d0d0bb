package e2e

import (
	"context"
	"os/exec"
	"time"

	"github.com/airlock/listenerset-webhook/test/localcluster"
	"github.com/airlock/listenerset-webhook/test/testproc"
)

// binaryWebhook runs the built cmd/listenerset-webhook as its own process,
// as a Pod would: `listenerset-webhook serve --port ... --cert-dir ...`.
type binaryWebhook struct {
	path    string
	args    []string
	cluster []string // the flags of UseSettings
	ports   testproc.Ports
	caPEM   []byte
	proc    *testproc.Process
}

func newBinaryWebhook(ports testproc.Ports, cert *localcluster.ServingCert) (*binaryWebhook, error) {
	bin, err := testproc.WebhookBinary()
	if err != nil {
		return nil, err
	}
	return &binaryWebhook{
		path:  bin,
		args:  append(append(append([]string{"serve"}, testproc.ServeFlags()...), "--host=127.0.0.1", "--cert-dir="+cert.Dir), ports.Flags()...),
		caPEM: cert.CAPEM,
		ports: ports,
	}, nil
}

func (w *binaryWebhook) UseSettings(c webhookSettings) {
	w.cluster = nil
	if c.enabled || len(c.scope) > 0 {
		w.cluster = []string{"--kubeconfig=" + cluster.KubeconfigPath}
	}
	if len(c.scope) > 0 {
		w.cluster = append(w.cluster, "--scope=class") // ServeFlags' is all
	}
	for _, n := range c.scope {
		w.cluster = append(w.cluster, "--controller-names="+string(n))
	}
	if c.unknownAdmit {
		w.cluster = append(w.cluster, "--unknown-parent=admit")
	}
	if c.enabled {
		w.cluster = append(w.cluster, "--cluster-checks")
	}
	if c.strict {
		w.cluster = append(w.cluster, "--strict")
	}
	if c.secrets {
		w.cluster = append(w.cluster, "--watch-secrets")
	}
	if c.warn {
		w.cluster = append(w.cluster, "--enforcement=warn")
	}
	if c.firstClaim != "" {
		w.cluster = append(w.cluster, "--first-claim="+string(c.firstClaim))
	}
	if c.tenantLabel != "" {
		w.cluster = append(w.cluster, "--tenant-label="+c.tenantLabel)
	}
	for _, s := range c.addNames {
		w.cluster = append(w.cluster, "--add-names="+s)
	}
}

func (w *binaryWebhook) MetricsURL() string {
	return "http://" + w.ports.MetricsAddr() + "/metrics"
}

func (w *binaryWebhook) Start(ctx context.Context) error {
	cmd := exec.Command(w.path, append(w.args[:len(w.args):len(w.args)], w.cluster...)...)
	cmd.Stdout, cmd.Stderr = logWriter(), logWriter()
	var err error
	if w.proc, err = testproc.Start(cmd, ""); err != nil {
		return err
	}
	return waitServing(ctx, w.ports.Addr(), w.caPEM, w.proc.Ended)
}

func (w *binaryWebhook) Stop() error {
	if w.proc == nil {
		return nil
	}
	proc := w.proc
	w.proc = nil
	return proc.Stop(30 * time.Second)
}
