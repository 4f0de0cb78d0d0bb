package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/airlock/listenerset-webhook/test/load/clusterload"
	"github.com/airlock/listenerset-webhook/test/localcluster"
	"github.com/airlock/listenerset-webhook/test/testproc"
	"github.com/airlock/listenerset-webhook/webhook/admission"
)

// TestClusterLoadOptions: bad flags are refused before anything is sent,
// each naming its flag.
func TestClusterLoadOptions(t *testing.T) {
	good := clusterOptions{namespace: "ns", workers: 2, outDir: t.TempDir()}
	for name, tc := range map[string]struct {
		change func(*clusterOptions)
		want   string
	}{
		"no namespace":     {func(o *clusterOptions) { o.namespace = "" }, "-namespace: required"},
		"no workers":       {func(o *clusterOptions) { o.workers = 0 }, "-workers 0"},
		"negative burst":   {func(o *clusterOptions) { o.burst = -1 }, "-cluster-burst -1"},
		"burst every 0":    {func(o *clusterOptions) { o.burst, o.burstEvery = 3, 0 }, "-cluster-burst-every 0s"},
		"negative pause":   {func(o *clusterOptions) { o.pause = -time.Second }, "-pause -1s"},
		"no such file":     {func(o *clusterOptions) { o.kubeconfig = filepath.Join(t.TempDir(), "none") }, "-kubeconfig"},
		"negative time":    {func(o *clusterOptions) { o.duration = -time.Second }, "-duration -1s"},
		"two mistakes too": {func(o *clusterOptions) { o.namespace, o.workers = "", -1 }, "-workers -1"},
	} {
		o := good
		tc.change(&o)
		_, err := runClusterLoad(t.Context(), o)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", name, err, tc.want)
		}
	}
}

// TestPairCounts: a failure is kept with its first line, at most
// MaxFailures of them while all are counted; the latencies' percentiles
// come with the final result only.
func TestPairCounts(t *testing.T) {
	var p pairCounts
	p.record(nil, 10*time.Millisecond)
	for i := range clusterload.MaxFailures + 5 {
		p.record(fmt.Errorf("failure %d\nsecond line", i), 30*time.Millisecond)
	}
	running := p.result(clusterload.Result{Namespace: "ns"}, false)
	if !running.Running || running.P50Ms != 0 || running.Namespace != "ns" {
		t.Errorf("progress: %+v", running)
	}
	r := p.result(clusterload.Result{}, true)
	if r.Running || r.Pairs != clusterload.MaxFailures+6 || r.Passed != 1 || r.Failed != clusterload.MaxFailures+5 {
		t.Errorf("counts: pairs %d passed %d failed %d running %v", r.Pairs, r.Passed, r.Failed, r.Running)
	}
	if len(r.Failures) != clusterload.MaxFailures || r.Failures[0].Error != "failure 0" || r.Failures[0].At == "" {
		t.Errorf("failures: %d kept, first %+v", len(r.Failures), r.Failures[0])
	}
	if r.P50Ms != 30 || r.MaxMs != 30 {
		t.Errorf("p50 %v, max %v, want 30 ms", r.P50Ms, r.MaxMs)
	}
}

// TestClusterLoad runs the mode against a real kube-apiserver with our
// webhook registered as the chart registers it (failurePolicy Fail): while
// the webhook serves, every pair passes and the exit code is 0; once it is
// down, the pairs fail, each failure kept with kube-apiserver's words, and
// the exit code is 1.
func TestClusterLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("starts kube-apiserver, etcd and the webhook; skipped with -short (make test-all runs it)")
	}
	ctx := t.Context()
	lc, err := localcluster.Start(ctx, localcluster.Options{Progress: os.Stderr})
	if err != nil {
		t.Fatal(err)
	}
	defer lc.Stop()
	const ns = "cluster-load"
	if err := lc.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		t.Fatal(err)
	}
	bin, err := testproc.WebhookBinary()
	t.Cleanup(testproc.RemoveBinaries)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cert, err := localcluster.NewServingCert(filepath.Join(dir, "certs"), "127.0.0.1", "localhost")
	if err != nil {
		t.Fatal(err)
	}
	srv, err := startServer(ctx, "ours", bin, append([]string{"serve"}, testproc.ServeFlags()...), cert.Dir, filepath.Join(dir, "ours.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.stop()
	ep := localcluster.WebhookEndpoint{BaseURL: srv.baseURL(), MutatePath: admission.MutatePath, ValidatePath: admission.ValidatePath, CABundle: cert.CAPEM}
	if err := lc.RegisterWebhooks(ctx, ep, ns); err != nil {
		t.Fatal(err)
	}

	// run starts the mode and, once until(progress) holds, ends it as a
	// signal would; it returns the exit code and the final result.
	run := func(name string, until func(clusterload.Result) bool) (int, clusterload.Result) {
		o := clusterOptions{kubeconfig: lc.KubeconfigPath, namespace: ns, workers: 2, pause: 20 * time.Millisecond, outDir: filepath.Join(dir, name)}
		runCtx, stop := context.WithCancel(ctx)
		defer stop()
		type ended struct {
			code int
			err  error
		}
		done := make(chan ended, 1)
		go func() {
			code, err := runClusterLoad(runCtx, o)
			done <- ended{code, err}
		}()
		path := filepath.Join(o.outDir, clusterload.ResultFile)
		deadline := time.Now().Add(time.Minute)
		for {
			r, err := clusterload.ReadResult(path)
			if err == nil && until(r) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: after a minute: %+v, %v", name, r, err)
			}
			select {
			case e := <-done:
				t.Fatalf("%s: ended before it was stopped: code %d, %v", name, e.code, e.err)
			case <-time.After(50 * time.Millisecond):
			}
		}
		stop()
		e := <-done
		if e.err != nil {
			t.Fatalf("%s: %v", name, e.err)
		}
		r, err := clusterload.ReadResult(path)
		if err != nil {
			t.Fatal(err)
		}
		if r.Running || r.Pairs != r.Passed+r.Failed || r.FinishedAt == "" {
			t.Errorf("%s: the final result: %+v", name, r)
		}
		t.Logf("%s: %s", name, clusterSummary(r, path))
		return e.code, r
	}

	code, r := run("up", func(r clusterload.Result) bool { return r.Pairs >= 10 })
	if code != 0 || r.Failed != 0 || r.Passed < 10 || r.P50Ms <= 0 {
		t.Errorf("webhook up: exit code %d, %d passed, %d failed (%v), p50 %v ms; want 0, at least 10, none", code, r.Passed, r.Failed, r.Failures, r.P50Ms)
	}

	srv.stop() // down: kube-apiserver cannot call it, and fails the writes (failurePolicy Fail)
	code, r = run("down", func(r clusterload.Result) bool { return r.Failed >= 3 })
	if code != 1 || r.Failed < 3 || len(r.Failures) == 0 {
		t.Fatalf("webhook down: exit code %d, %d failed; want 1, at least 3", code, r.Failed)
	}
	for _, f := range r.Failures {
		if want := fmt.Sprintf("failed calling webhook %q", admission.ValidatingWebhookName); !strings.Contains(f.Error, want) {
			t.Errorf("failure %q lacks %q", f, want)
		}
	}
	if _, err := time.Parse(time.RFC3339Nano, r.Failures[0].At); err != nil {
		t.Errorf("the failure's time: %v", err)
	}
}
