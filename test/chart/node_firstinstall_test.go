package chart

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/airlock/listenerset-webhook/hack/node"
)

// testNodeWarnModePodsCannotStart: a first install in warn mode whose pods
// can never start (an image no node has, pullPolicy Never: the kubelet
// reports ErrImageNeverPull) leaves ListenerSet writes working, an invalid
// one too (stored unchecked): the webhooks fail open by default in warn
// mode. The same release upgraded to deny, whose default failurePolicy is
// Fail, blocks them: the test can tell the two apart.
func testNodeWarnModePodsCannotStart(t *testing.T, n *node.Node, c client.Client) {
	ctx := t.Context()
	const ns, appNS, scope = "lsw-node-warn", "lsw-node-warn-apps", "node-warn"
	ensureLabelledNamespace(ctx, t, c, appNS, map[string]string{"lsw-e2e": scope})
	rel := nodeRelease(ctx, t, n, "warn", ns, "--set", "webhook.enforcement=warn",
		"--set", "image.repository=localhost/listenerset-webhook-absent,image.pullPolicy=Never",
		"--set", "certManager.enabled=false", "--set-string", "webhook.namespaceSelector.matchLabels.lsw-e2e="+scope)

	eventually(t, 2*time.Minute, "the kubelet reports that the pods' image is not there", func() error {
		pods, err := n.Client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: "app.kubernetes.io/instance=" + rel.name})
		if err != nil {
			return err
		}
		for _, p := range pods.Items {
			for _, s := range p.Status.ContainerStatuses {
				if s.State.Waiting != nil && s.State.Waiting.Reason == "ErrImageNeverPull" {
					return nil
				}
			}
		}
		return fmt.Errorf("no container waiting with ErrImageNeverPull yet (%d pods)", len(pods.Items))
	})
	for _, kind := range []string{"Mutating", "Validating"} {
		assert.Equal(t, admissionv1.Ignore, failurePolicyOf(t, c, kind, rel.fullname()), "%sWebhookConfiguration in warn mode", kind)
	}
	require.NoError(t, c.Create(ctx, listenerSet(appNS, "written-while-down", true)), "a valid ListenerSet")
	require.NoError(t, c.Create(ctx, listenerSet(appNS, "invalid-while-down", false)), "an invalid ListenerSet, stored unchecked")

	rel.helm(ctx, t, "upgrade", rel.name, chartPath, "--reuse-values", "--set", "webhook.enforcement=deny")
	assert.Equal(t, admissionv1.Fail, failurePolicyOf(t, c, "Validating", rel.fullname()), "deny mode")
	eventually(t, 30*time.Second, "with deny (failurePolicy Fail) the same write fails", func() error {
		err := c.Create(ctx, listenerSet(appNS, "blocked", true), client.DryRunAll)
		switch {
		case err == nil:
			return errors.New("admitted")
		case !strings.Contains(err.Error(), "failed calling webhook"):
			return fmt.Errorf("failed otherwise: %w", err)
		}
		return nil
	})
}

// failurePolicyOf is the failurePolicy of the first webhook of the
// Mutating or Validating webhook configuration name.
func failurePolicyOf(t *testing.T, c client.Client, kind, name string) admissionv1.FailurePolicyType {
	t.Helper()
	key := types.NamespacedName{Name: name}
	if kind == "Mutating" {
		m := &admissionv1.MutatingWebhookConfiguration{}
		require.NoError(t, c.Get(t.Context(), key, m))
		return *m.Webhooks[0].FailurePolicy
	}
	v := &admissionv1.ValidatingWebhookConfiguration{}
	require.NoError(t, c.Get(t.Context(), key, v))
	return *v.Webhooks[0].FailurePolicy
}
