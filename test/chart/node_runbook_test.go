package chart

import (
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/airlock/listenerset-webhook/hack/node"
)

// testNodeRunbook runs docs/runbook.md's commands that read pods on the
// real node, with the page's NS and RELEASE (self-bootstrapped, two
// replicas): the logs are every pod's, each line prefixed with its pod
// (TestRunbookCommands runs every command against a kube-apiserver without
// pods), and the caBundle and the CA Secret hold the same CA.
func testNodeRunbook(t *testing.T, n *node.Node, _ client.Client) {
	ctx := t.Context()
	blocks, _ := runbook(t)
	m := regexp.MustCompile(`^NS=(\S+) RELEASE=(\S+)\n$`).FindStringSubmatch(blocks[0].text)
	require.NotNil(t, m, "the first block sets NS and RELEASE")
	ns, name := m[1], m[2]
	rel := nodeRelease(ctx, t, n, name, ns, "--set", "certManager.enabled=false",
		"--set-string", "webhook.namespaceSelector.matchLabels.lsw-e2e=node-runbook")
	rel.full = name
	pods := readyPods(ctx, t, n.Client, rel, 2, 3*time.Minute)
	r := newRunbookRunner(t, blocks, n.Kubeconfig, n.BinDir)

	out := r.run("The webhook is down", 0, ns, name)
	for _, p := range pods {
		assert.Contains(t, out, "[pod/"+p.Name+"/webhook] ", "the logs of every pod, each line prefixed with its own")
	}
	subjects := regexp.MustCompile(`(?m)^subject=.*$`).FindAllString(r.run("`x509", 0, ns, name), -1)
	require.Len(t, subjects, 2)
	assert.Equal(t, subjects[0], subjects[1], "the caBundle holds the CA of the Secret")
	assert.Regexp(t, `(?i)\[pod/[^]]+/webhook\] .*self-bootstrapped certificates`, r.run("ListenerSetWebhookCertificateNotRenewed", 0, ns, name))
}
