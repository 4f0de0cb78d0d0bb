package chart

import (
	"context"
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

// testNodeFirstSync measures the first-sync window on the real node: every
// object of the self-bootstrapped render applied at once with server-side
// apply, as a GitOps tool does, then a ListenerSet written every 50 ms
// until one is admitted: how long, and what the writes before failed with
// (docs/gitops.md). The image is the node's, so no pull is timed.
func testNodeFirstSync(t *testing.T, n *node.Node, c client.Client) {
	ctx := t.Context()
	const name, ns, appNS, scope = "fs", "lsw-node-fs", "lsw-node-fs-apps", "node-fs"
	ensureLabelledNamespace(ctx, t, c, appNS, map[string]string{"lsw-e2e": scope})
	ensureNamespace(ctx, t, c, ns)
	v, err := n.Client.Discovery().ServerVersion()
	require.NoError(t, err)
	out, err := runHelm(ctx, t, "", templateArgs(name, ns, []string{"--kube-version", v.GitVersion,
		"--set", "certManager.enabled=false", "--set-string", "webhook.namespaceSelector.matchLabels.lsw-e2e=" + scope})...)
	require.NoError(t, err)
	objs, err := decodeObjects(out)
	require.NoError(t, err)
	t.Cleanup(func() {
		for _, u := range objs {
			_ = c.Delete(context.Background(), u.DeepCopy())
		}
	})
	for _, u := range objs {
		require.NoError(t, applyAs(ctx, c, u.DeepCopy()),
			"%s/%s", u.GetKind(), u.GetName())
	}
	applied := time.Now()
	w := startWriter(c, appNS)
	defer w.stop()
	eventually(t, 3*time.Minute, "a ListenerSet write is admitted", w.succeeded)
	first, kinds, failures, ok := w.window()
	t.Logf("first sync on the node: %s from the webhooks' registration (Fail) to the first admitted write; %d writes failed, the first with %q; the errors, in order: %q",
		ok.Sub(applied).Round(10*time.Millisecond), failures, first, kinds)
	assert.Contains(t, first, "failed calling webhook")
	require.NoError(t, checkAdmission(ctx, c, appNS, 0))
}
