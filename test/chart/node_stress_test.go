package chart

import (
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/airlock/listenerset-webhook/hack/node"
)

// Load of the stress test: steady workers as TestNode's, plus a burst of
// concurrent pairs every few seconds.
const (
	stressWorkers    = 4
	stressBurst      = 8
	stressBurstEvery = 7 * time.Second
)

// TestNodeStress repeats TestNode's disruptions on the real node, each
// under load, and wants no request to fail: helm upgrades that roll both
// replicas, NODE_STRESS_COUNT (default 20) in a row in each certificate
// mode, then as many pod deletions (the kubelet's SIGTERM) and as many
// evictions under the PodDisruptionBudget. kube-apiserver keeps its
// connections to the Service's ClusterIP, translated by kube-proxy to one
// pod, for as long as they live, and sends on them after the pod has left
// the endpoints; a stopping pod must not close one under a request. The
// bursts make kube-apiserver keep more connections than the steady workers
// use, idle at the bottom of its pool (Go's transport reuses the most recent
// first), which is what a drain must leave alone. Each phase logs a RESULT
// line. NODE_TESTS=1 NODE_STRESS=1 (make test-node-stress); not part of
// make test-all.
func TestNodeStress(t *testing.T) {
	if os.Getenv("NODE_STRESS") == "" {
		t.Skip("NODE_STRESS=1 NODE_TESTS=1 runs it (make test-node-stress)")
	}
	count := 20
	if s := os.Getenv("NODE_STRESS_COUNT"); s != "" {
		var err error
		count, err = strconv.Atoi(s)
		require.NoError(t, err, "NODE_STRESS_COUNT")
		require.Positive(t, count, "NODE_STRESS_COUNT")
	}
	n, c := startNode(t)
	ctx := t.Context()

	t.Run("CertManagerMode", func(t *testing.T) {
		const ns, appNS, scope = "lsw-node-scm", "lsw-node-scm-apps", "node-scm"
		ensureLabelledNamespace(ctx, t, c, appNS, map[string]string{"lsw-e2e": scope})
		rel := nodeRelease(ctx, t, n, "scm", ns, "--set-string", "webhook.namespaceSelector.matchLabels.lsw-e2e="+scope)
		issueLikeCertManager(ctx, t, c, ns, rel.fullname())
		injectLikeCAInjector(ctx, t, c, rel.fullname())
		readyPods(ctx, t, n.Client, rel, 2, 3*time.Minute)
		eventually(t, 60*time.Second, "kube-apiserver calls the webhook through the Service", func() error {
			return checkAdmission(ctx, c, appNS, 0)
		})
		stressRollouts(t, n, rel, appNS, count)
	})

	t.Run("SelfBootstrappedMode", func(t *testing.T) {
		const ns, appNS, scope = "lsw-node-ssb", "lsw-node-ssb-apps", "node-ssb"
		ensureLabelledNamespace(ctx, t, c, appNS, map[string]string{"lsw-e2e": scope})
		rel := nodeRelease(ctx, t, n, "ssb", ns, "--set", "certManager.enabled=false",
			"--set-string", "webhook.namespaceSelector.matchLabels.lsw-e2e="+scope)
		readyPods(ctx, t, n.Client, rel, 2, 3*time.Minute)
		eventually(t, 60*time.Second, "kube-apiserver calls the webhook through the Service", func() error {
			return checkAdmission(ctx, c, appNS, 0)
		})
		stressRollouts(t, n, rel, appNS, count)

		t.Run("PodDeletions", func(t *testing.T) {
			underStress(t, n, rel, appNS, "pod deletions (SIGTERM)", count, func(i int) {
				pods := servingPods(ctx, t, n.Client, rel, 2, 2*time.Minute)
				require.NoError(t, n.Client.CoreV1().Pods(ns).Delete(ctx, pods[i%2].Name, metav1.DeleteOptions{}))
				servingPods(ctx, t, n.Client, rel, 2, 2*time.Minute) // its replacement
			})
		})

		t.Run("Evictions", func(t *testing.T) {
			underStress(t, n, rel, appNS, "evictions under the PodDisruptionBudget", count, func(i int) {
				pods := servingPods(ctx, t, n.Client, rel, 2, 2*time.Minute)
				eventually(t, time.Minute, "the PodDisruptionBudget allows one disruption", pdbAllows(ctx, n.Client, rel, 1))
				require.NoError(t, evictPod(ctx, n.Client, ns, pods[i%2].Name))
				servingPods(ctx, t, n.Client, rel, 2, 2*time.Minute) // its replacement
			})
		})
	})
}

// stressRollouts runs count helm upgrades of rel in a row, each changing
// the pod template (a new annotation) so that both replicas roll, and each
// done once helm's --wait is (the old pods may still be draining).
func stressRollouts(t *testing.T, n *node.Node, rel *helmRelease, appNS string, count int) {
	t.Run("Rollouts", func(t *testing.T) {
		ctx := t.Context()
		underStress(t, n, rel, appNS, "helm upgrade rollouts", count, func(i int) {
			before := servingPods(ctx, t, n.Client, rel, 2, 2*time.Minute)
			rel.helm(ctx, t, "upgrade", rel.name, chartPath, "--reuse-values",
				"--set-string", fmt.Sprintf("podAnnotations.lsw-stress=%d", i), "--wait", "--timeout", "4m")
			after := servingPods(ctx, t, n.Client, rel, 2, 2*time.Minute)
			for _, p := range after {
				require.NotContains(t, podNames(before), p.Name, "rollout %d replaced both pods", i)
			}
		})
	})
}

// underStress runs act(0) … act(count-1) under startStressLoad, waits until
// every pod that was stopped is gone (so that their drains happen under the
// load too), and wants no request to have failed.
func underStress(t *testing.T, n *node.Node, rel *helmRelease, appNS, what string, count int, act func(i int)) {
	t.Helper()
	l := startStressLoad(t, n.Kubeconfig, appNS)
	l.await(t, 10, 30*time.Second) // the load goes through kube-apiserver before the first act
	start := time.Now()
	for i := range count {
		act(i)
	}
	took := time.Since(start)
	readyPods(t.Context(), t, n.Client, rel, 2, 3*time.Minute)
	drained := time.Since(start) - took
	l.await(t, 10, 30*time.Second) // through the pods that are left
	r := l.stop(t)
	t.Logf("RESULT stress %s: %d %s in %s, the last stopped pod gone %s later; %d request pairs sent (2 dry-run creates each), %d failed; pair p50 %.1f ms, p99 %.1f ms",
		rel.name, count, what, took.Round(time.Second), drained.Round(100*time.Millisecond), r.Pairs, r.Failed, r.P50Ms, r.P99Ms)
	lostNone(t, r, "the "+what)
	assert.Positive(t, r.Passed)
}

// startStressLoad is startLoad with stressWorkers, plus stressBurst
// concurrent pairs every stressBurstEvery.
func startStressLoad(t testing.TB, kubeconfig, ns string) *load {
	return startLoad(t, kubeconfig, ns, stressWorkers,
		"-cluster-burst", strconv.Itoa(stressBurst), "-cluster-burst-every", stressBurstEvery.String())
}
