package chart

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionregv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/airlock/listenerset-webhook/webhook/certs"
)

// TestRenderCABundleFence: the self-bootstrapped mode ships the policy that
// fences its ServiceAccount's update of the webhook configurations; the
// cert-manager mode (no such update) and the policy mode do not.
func TestRenderCABundleFence(t *testing.T) {
	vap, binding := "ValidatingAdmissionPolicy/"+fullname+"-cabundle-only", "ValidatingAdmissionPolicyBinding/"+fullname+"-cabundle-only"
	self := render(t, "--set", "certManager.enabled=false")
	assert.Subset(t, self.ids(), []string{vap, binding})
	p := self.get(t, "ValidatingAdmissionPolicy", fullname+"-cabundle-only")
	assert.Contains(t, p.Object["spec"].(map[string]any)["matchConditions"].([]any)[0].(map[string]any)["expression"],
		`"system:serviceaccount:`+namespace+`:`+fullname+`"`)
	for _, objs := range []objects{render(t), renderMode(t, "policy", "--set", "certManager.enabled=false"),
		render(t, "--set", "certManager.enabled=false,rbac.create=false")} {
		assert.NotContains(t, objs.ids(), vap)
		assert.NotContains(t, objs.ids(), binding)
	}
}

// TestCABundleFenceEndToEnd installs the chart in the self-bootstrapped
// mode with the real helm and updates its webhook configurations as the
// webhook's ServiceAccount: kube-apiserver denies every change but the
// caBundle and the CA rotation's annotation (the policy the chart ships),
// and admits the same changes by an administrator. (The webhook's own
// injector, under the same policy, is TestSelfBootstrap*'s.)
func TestCABundleFenceEndToEnd(t *testing.T) {
	c := cluster(t)
	ctx := t.Context()
	const ns = "lsw-fence"
	rel := installChart(ctx, t, c, "fence", ns, "--set", "certManager.enabled=false",
		"--set-string", "webhook.namespaceSelector.matchLabels.lsw-e2e=fence")
	t.Cleanup(func() {
		_, _ = runHelm(context.Background(), t, c.KubeconfigPath, "uninstall", rel.name, "--namespace", ns)
	})
	cfg, err := clientcmd.BuildConfigFromFlags("", serviceAccountKubeconfig(t, c, ns, rel.fullname()))
	require.NoError(t, err)
	sa, err := client.New(cfg, client.Options{})
	require.NoError(t, err)
	name := client.ObjectKey{Name: rel.fullname()}
	bundle := []byte("-----BEGIN CERTIFICATE-----\nnot checked here\n-----END CERTIFICATE-----\n")

	// updateAs reads the validating configuration, changes it and updates it
	// as cl (opts: client.DryRunAll for the changes that must be denied, so
	// that one let through cannot make the next a no-op).
	updateAs := func(cl client.Client, change func(*admissionregv1.ValidatingWebhookConfiguration), opts ...client.UpdateOption) error {
		v := &admissionregv1.ValidatingWebhookConfiguration{}
		require.NoError(t, cl.Get(ctx, name, v))
		change(v)
		return cl.Update(ctx, v, opts...)
	}
	denied := func(t *testing.T, err error) {
		t.Helper()
		require.Error(t, err)
		assert.Contains(t, err.Error(), "ValidatingAdmissionPolicy '"+rel.fullname()+"-cabundle-only'")
		assert.Contains(t, err.Error(), "the webhook's ServiceAccount may change")
	}
	// The policy takes effect once kube-apiserver has read it.
	var last error
	require.NoError(t, wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
		last = updateAs(sa, func(v *admissionregv1.ValidatingWebhookConfiguration) {
			v.Webhooks[0].Rules[0].Resources = []string{"*"}
		}, client.DryRunAll)
		return last != nil && strings.Contains(last.Error(), "cabundle-only"), nil
	}), "the ServiceAccount's widened rules are denied; last: %v", last)

	for what, change := range map[string]func(*admissionregv1.ValidatingWebhookConfiguration){
		"rules": func(v *admissionregv1.ValidatingWebhookConfiguration) {
			v.Webhooks[0].Rules[0].Operations = []admissionregv1.OperationType{"*"}
		},
		"failurePolicy": func(v *admissionregv1.ValidatingWebhookConfiguration) {
			p := admissionregv1.Ignore
			v.Webhooks[0].FailurePolicy = &p
		},
		"service": func(v *admissionregv1.ValidatingWebhookConfiguration) {
			v.Webhooks[0].ClientConfig.Service.Name = "elsewhere"
		},
		"url": func(v *admissionregv1.ValidatingWebhookConfiguration) {
			u := "https://attacker.example/"
			v.Webhooks[0].ClientConfig.Service, v.Webhooks[0].ClientConfig.URL = nil, &u
		},
		"namespaces": func(v *admissionregv1.ValidatingWebhookConfiguration) { v.Webhooks[0].NamespaceSelector = nil },
		"timeout": func(v *admissionregv1.ValidatingWebhookConfiguration) {
			s := int32(1)
			v.Webhooks[0].TimeoutSeconds = &s
		},
		"a webhook more": func(v *admissionregv1.ValidatingWebhookConfiguration) {
			w := v.Webhooks[0]
			w.Name = "more." + w.Name
			v.Webhooks = append(v.Webhooks, w)
		},
		"a label":       func(v *admissionregv1.ValidatingWebhookConfiguration) { v.Labels["x"] = "y" },
		"an annotation": func(v *admissionregv1.ValidatingWebhookConfiguration) { v.Annotations = map[string]string{"x": "y"} },
	} {
		t.Run("denied: "+what, func(t *testing.T) { denied(t, updateAs(sa, change, client.DryRunAll)) })
	}
	t.Run("allowed: the caBundle and the rotation's annotation", func(t *testing.T) {
		require.NoError(t, updateAs(sa, func(v *admissionregv1.ValidatingWebhookConfiguration) {
			for i := range v.Webhooks {
				v.Webhooks[i].ClientConfig.CABundle = bundle
			}
			if v.Annotations == nil {
				v.Annotations = map[string]string{}
			}
			v.Annotations[certs.CARotatedAtAnnotation] = time.Now().UTC().Format(time.RFC3339)
		}))
		m := &admissionregv1.MutatingWebhookConfiguration{}
		require.NoError(t, sa.Get(ctx, name, m))
		m.Webhooks[0].ClientConfig.CABundle = bundle
		require.NoError(t, sa.Update(ctx, m))
	})
	t.Run("denied: the mutating webhook's reinvocationPolicy", func(t *testing.T) {
		m := &admissionregv1.MutatingWebhookConfiguration{}
		require.NoError(t, sa.Get(ctx, name, m))
		p := admissionregv1.IfNeededReinvocationPolicy
		m.Webhooks[0].ReinvocationPolicy = &p
		denied(t, sa.Update(ctx, m, client.DryRunAll))
	})
	t.Run("allowed: an administrator's change", func(t *testing.T) {
		require.NoError(t, updateAs(c.Client, func(v *admissionregv1.ValidatingWebhookConfiguration) { v.Labels["changed-by"] = "admin" }))
	})
}
