package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/airlock/listenerset-webhook/test/load/clusterload"
	"github.com/airlock/listenerset-webhook/test/localcluster"
)

var (
	clusterMode = flag.Bool("cluster-load", false, "drive an existing cluster through its kube-apiserver (the only mode then): -workers each send "+
		"request pairs (server-side dry runs: a valid ListenerSet admitted, an invalid one denied by the webhook, so the webhook must be in deny mode "+
		"for -namespace) for -duration when given, else until SIGINT or SIGTERM; prints a summary line, writes -out/"+clusterload.ResultFile+
		" (rewritten with the counts while it runs) and exits 1 when a pair failed")
	clusterNamespace  = flag.String("namespace", "", "-cluster-load: the namespace the pairs are sent to (must exist)")
	clusterWorkers    = flag.Int("workers", 2, "-cluster-load: workers, each sending one pair after the other")
	clusterPause      = flag.Duration("pause", 20*time.Millisecond, "-cluster-load: each worker's wait after a pair")
	clusterBurst      = flag.Int("cluster-burst", 0, "-cluster-load: also send this many pairs at once every -cluster-burst-every (0: none)")
	clusterBurstEvery = flag.Duration("cluster-burst-every", 7*time.Second, "-cluster-load: the time between bursts")
)

// kubeconfigUsage is -kubeconfig's help. controller-runtime (which the
// tool imports) registers -kubeconfig on the command line already: the
// tool gives it its own help, and defines it only if it is missing.
const kubeconfigUsage = "-cluster-load: the cluster's kubeconfig (empty: $KUBECONFIG, else ~/.kube/config)"

func init() {
	if f := flag.Lookup("kubeconfig"); f != nil {
		f.Usage = kubeconfigUsage
	} else {
		flag.String("kubeconfig", "", kubeconfigUsage)
	}
}

// progressEvery is how often the mode rewrites its result while it runs.
const progressEvery = 200 * time.Millisecond

type clusterOptions struct {
	kubeconfig, namespace, outDir string
	workers, burst                int
	pause, burstEvery             time.Duration
	// duration ends the run; 0: only ctx does.
	duration time.Duration
}

// clusterOptionsFromFlags reads -cluster-load's flags, with main's -out
// and -duration; -duration only counts when it was given (its default is
// the other modes').
func clusterOptionsFromFlags(outDir string, duration time.Duration) clusterOptions {
	o := clusterOptions{
		kubeconfig: flag.Lookup("kubeconfig").Value.String(), namespace: *clusterNamespace, outDir: outDir,
		workers: *clusterWorkers, burst: *clusterBurst, pause: *clusterPause, burstEvery: *clusterBurstEvery,
	}
	flag.Visit(func(f *flag.Flag) {
		if f.Name == "duration" {
			o.duration = duration
		}
	})
	return o
}

func (o clusterOptions) check() error {
	var errs []error
	if o.namespace == "" {
		errs = append(errs, errors.New("-namespace: required (the namespace the pairs are sent to)"))
	}
	if o.workers < 1 {
		errs = append(errs, fmt.Errorf("-workers %d: want at least 1", o.workers))
	}
	if o.burst < 0 {
		errs = append(errs, fmt.Errorf("-cluster-burst %d: want 0 (none) or more", o.burst))
	}
	if o.burst > 0 && o.burstEvery <= 0 {
		errs = append(errs, fmt.Errorf("-cluster-burst-every %s: want a positive duration", o.burstEvery))
	}
	if o.pause < 0 {
		errs = append(errs, fmt.Errorf("-pause %s: want 0 or more", o.pause))
	}
	if o.duration < 0 {
		errs = append(errs, fmt.Errorf("-duration %s: want a positive duration", o.duration))
	}
	return errors.Join(errs...)
}

// pairCounts is what the workers found so far.
type pairCounts struct {
	mu        sync.Mutex
	passed    int64
	failed    int64
	failures  []clusterload.Failure
	latencies []time.Duration
}

// record counts one answered pair: passed, or failed with its first line
// and time.
func (p *pairCounts) record(err error, took time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.latencies = append(p.latencies, took)
	if err == nil {
		p.passed++
		return
	}
	p.failed++
	if len(p.failures) < clusterload.MaxFailures {
		line, _, _ := strings.Cut(err.Error(), "\n")
		p.failures = append(p.failures, clusterload.Failure{At: time.Now().Format("2006-01-02T15:04:05.000Z07:00"), Error: line})
	}
}

// result is the counts as the result file has them; final adds the
// latencies.
func (p *pairCounts) result(base clusterload.Result, final bool) clusterload.Result {
	p.mu.Lock()
	defer p.mu.Unlock()
	r := base
	r.Passed, r.Failed, r.Pairs = p.passed, p.failed, p.passed+p.failed
	r.Failures = append([]clusterload.Failure{}, p.failures...)
	r.Running = !final
	if final {
		sorted := slices.Clone(p.latencies)
		slices.Sort(sorted)
		r.P50Ms, r.P99Ms = ms(percentile(sorted, 50)), ms(percentile(sorted, 99))
		if len(sorted) > 0 {
			r.MaxMs = ms(sorted[len(sorted)-1])
		}
	}
	return r
}

// runClusterLoad is -cluster-load: o.workers goroutines send
// clusterload.Pair after one another, o.pause apart, and o.burst more at
// once every o.burstEvery, until ctx ends or o.duration has passed. A pair
// the end interrupts is not counted. It returns the exit code: 1 when a pair
// failed.
func runClusterLoad(ctx context.Context, o clusterOptions) (int, error) {
	if err := o.check(); err != nil {
		return 0, err
	}
	if !filepath.IsAbs(o.outDir) {
		// Relative to the repository root, as the other modes' -out, when
		// the tool runs inside it; else to the working directory.
		if root, err := localcluster.RepoRoot(); err == nil {
			o.outDir = filepath.Join(root, o.outDir)
		}
	}
	if err := os.MkdirAll(o.outDir, 0o755); err != nil {
		return 0, err
	}
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = o.kubeconfig
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{}).ClientConfig()
	if err != nil {
		return 0, fmt.Errorf("-kubeconfig %q: %w", o.kubeconfig, err)
	}
	cfg.QPS = -1 // no client-side rate limit: -workers and -pause set the rate
	cfg.Timeout = time.Minute
	c, err := client.New(cfg, client.Options{})
	if err != nil {
		return 0, fmt.Errorf("-kubeconfig %q: %w", o.kubeconfig, err)
	}
	if err := c.Get(ctx, client.ObjectKey{Name: o.namespace}, &corev1.Namespace{}); apierrors.IsNotFound(err) {
		return 0, fmt.Errorf("-namespace %q: no such namespace", o.namespace)
	}

	if o.duration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.duration)
		defer cancel()
	}
	start := time.Now()
	base := clusterload.Result{Namespace: o.namespace, Workers: o.workers, StartedAt: start.UTC().Format(time.RFC3339Nano)}
	if o.burst > 0 {
		base.Burst, base.BurstEverySeconds = o.burst, o.burstEvery.Seconds()
	}
	path := filepath.Join(o.outDir, clusterload.ResultFile)
	counts := &pairCounts{}
	send := func(i int) {
		t0 := time.Now()
		err := clusterload.Pair(ctx, c, o.namespace, i)
		if ctx.Err() != nil {
			return // interrupted by the end, not failed
		}
		counts.record(err, time.Since(t0))
	}
	var wg sync.WaitGroup
	for w := range o.workers {
		wg.Go(func() {
			for i := 0; ctx.Err() == nil; i++ {
				send(w*1_000_000 + i)
				sleep(ctx, o.pause)
			}
		})
	}
	if o.burst > 0 {
		wg.Go(func() {
			for b := 0; sleep(ctx, o.burstEvery); b++ {
				var burst sync.WaitGroup
				for j := range o.burst {
					burst.Go(func() { send(900_000_000 + b*1_000 + j) })
				}
				burst.Wait()
			}
		})
	}
	if o.burst > 0 {
		say("cluster load: %d workers and bursts of %d pairs every %s, to namespace %s", o.workers, o.burst, o.burstEvery, o.namespace)
	} else {
		say("cluster load: %d workers sending request pairs to namespace %s", o.workers, o.namespace)
	}
	if err := writeResult(path, counts.result(base, false)); err != nil {
		return 0, err
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	tick := time.NewTicker(progressEvery)
	defer tick.Stop()
	for running := true; running; {
		select {
		case <-done:
			running = false
		case <-tick.C:
			if err := writeResult(path, counts.result(base, false)); err != nil {
				say("cluster load: writing the progress: %v", err)
			}
		}
	}

	end := time.Now()
	base.FinishedAt, base.Seconds = end.UTC().Format(time.RFC3339Nano), end.Sub(start).Seconds()
	r := counts.result(base, true)
	if err := writeResult(path, r); err != nil {
		return 0, err
	}
	fmt.Println(clusterSummary(r, path))
	if r.Failed > 0 {
		return 1, nil
	}
	return 0, nil
}

// clusterSummary is the line the mode prints when it ends.
func clusterSummary(r clusterload.Result, path string) string {
	s := fmt.Sprintf("cluster load: %d request pairs in %.1fs from %d workers", r.Pairs, r.Seconds, r.Workers)
	if r.Burst > 0 {
		s += fmt.Sprintf(" and bursts of %d", r.Burst)
	}
	s += fmt.Sprintf(", %d failed; pair latency p50 %.1f ms, p99 %.1f ms, max %.1f ms", r.Failed, r.P50Ms, r.P99Ms, r.MaxMs)
	if len(r.Failures) > 0 {
		s += "; first failure: " + r.Failures[0].String()
	}
	return s + "; written: " + path
}

// writeResult replaces path with r, whole: a reader never sees half a file.
func writeResult(path string, r clusterload.Result) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// sleep waits d or until ctx ends, and says whether ctx is still going.
func sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
