package chart

import (
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestNodeRepeatedPodDeletions deletes a webhook pod ten times in a row (the
// kubelet's SIGTERM each time) while four clients create ListenerSets
// through kube-apiserver, and wants no request to fail: TestNode's single
// deletion, repeated so that a rare shutdown race shows. kube-apiserver keeps
// its connection to the Service's ClusterIP, translated by kube-proxy to one
// pod, for as long as that connection lives, so a stopping pod must not leave
// it idle to be closed under a request. NODE_TESTS=1 NODE_STRESS=1; about two
// minutes; not part of make test.
func TestNodeRepeatedPodDeletions(t *testing.T) {
	if os.Getenv("NODE_STRESS") == "" {
		t.Skip("NODE_STRESS=1 NODE_TESTS=1 runs it")
	}
	n, c := startNode(t)
	ctx := t.Context()
	const ns, appNS, scope = "lsw-node-st", "lsw-node-st-apps", "node-st"
	ensureLabelledNamespace(ctx, t, c, appNS, map[string]string{"lsw-e2e": scope})
	rel := nodeRelease(ctx, t, n, "st", ns, "--set", "certManager.enabled=false",
		"--set-string", "webhook.namespaceSelector.matchLabels.lsw-e2e="+scope)
	readyPods(ctx, t, n.Client, rel, 2, 3*time.Minute)
	eventually(t, 60*time.Second, "kube-apiserver calls the webhook through the Service", func() error {
		return checkAdmission(ctx, c, appNS, 0)
	})
	l := startLoad(c, appNS, 4)
	const deletions = 10
	for i := range deletions {
		pods := readyPods(ctx, t, n.Client, rel, 2, 2*time.Minute)
		require.NoError(t, n.Client.CoreV1().Pods(ns).Delete(ctx, pods[i%2].Name, metav1.DeleteOptions{}))
		time.Sleep(3 * time.Second)
	}
	readyPods(ctx, t, n.Client, rel, 2, 2*time.Minute)
	time.Sleep(2 * time.Second)
	ok, errs := l.stop()
	t.Logf("%d pod deletions under load: %d request pairs, %d failed", deletions, ok, len(errs))
	assert.Empty(t, errs, "requests failed while pods stopped")
	assert.Positive(t, ok)
}
