package chart

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/airlock/listenerset-webhook/policy"
	"github.com/airlock/listenerset-webhook/webhook/admission"
)

// enforcementLabel is webhook.enforcementLabel's default, the runbook's.
const enforcementLabel = "listenerset-webhook.airlock.com/enforcement"

// enforcementExpr is the condition the chart appends to the namespaces of
// an entry that denies (NotIn) and of its warn twin (In).
func enforcementExpr(key string, op metav1.LabelSelectorOperator) metav1.LabelSelectorRequirement {
	return metav1.LabelSelectorRequirement{Key: key, Operator: op, Values: []string{"warn"}}
}

// checkWarnTwin: twin is deny's warn twin as reg names it: the same
// webhook at its own name and path, failurePolicy Ignore, for exactly the
// namespaces labelled key=warn among those deny would judge (deny's
// namespaces end with NotIn warn, the twin's with In warn; the rest, the
// bypass label's exclusion too, are the same).
func checkWarnTwin(t *testing.T, deny, twin admissionv1.ValidatingWebhook, reg *admission.WarnTwin, key string) {
	t.Helper()
	require.NotNil(t, reg)
	assert.Equal(t, reg.Name, twin.Name)
	assert.Equal(t, reg.Path, *twin.ClientConfig.Service.Path)
	assert.Equal(t, admissionv1.Ignore, *twin.FailurePolicy, "a webhook that only warns never blocks a write")
	d, w := deny.NamespaceSelector.MatchExpressions, twin.NamespaceSelector.MatchExpressions
	require.NotEmpty(t, d)
	require.NotEmpty(t, w)
	assert.Equal(t, enforcementExpr(key, metav1.LabelSelectorOpNotIn), d[len(d)-1], "%s: not the namespaces labelled to warn", deny.Name)
	assert.Equal(t, enforcementExpr(key, metav1.LabelSelectorOpIn), w[len(w)-1], "%s: exactly those", twin.Name)
	assert.Equal(t, d[:len(d)-1], w[:len(w)-1], "otherwise the same namespaces")
	same := *twin.DeepCopy()
	same.Name, same.ClientConfig.Service.Path, same.FailurePolicy, same.NamespaceSelector =
		deny.Name, deny.ClientConfig.Service.Path, deny.FailurePolicy, deny.NamespaceSelector
	assert.Equal(t, deny, same, "otherwise the same webhook")
}

// TestRenderEnforcementLabel: by default every release splits each entry
// that denies by webhook.enforcementLabel, in every mode that denies: the
// validating webhooks (enforcement deny) and each policy binding (Deny)
// leave the namespaces labelled warn to their warn twins (the webhook's at
// its own path, failurePolicy Ignore; the binding <name>-warn with Warn in
// place of Deny). Nothing that does not deny is split; an empty value
// renders no twin, another key moves the condition.
func TestRenderEnforcementLabel(t *testing.T) {
	reg := admission.Registrations()
	label := chartValues(t)["webhook"].(map[string]any)["enforcementLabel"]
	require.Equal(t, enforcementLabel, label, "the default label, the runbook's")

	// webhookTwins checks the validating configuration's twins, and returns how many.
	webhookTwins := func(t *testing.T, objs objects, key string) int {
		t.Helper()
		_, v := webhookConfigs(t, objs)
		byName := map[string]admissionv1.ValidatingWebhook{}
		for _, w := range v.Webhooks {
			byName[w.Name] = w
		}
		n := 0
		for _, pair := range []struct {
			deny string
			twin *admission.WarnTwin
		}{{reg.Validating.Name, reg.Validating.Warn}, {reg.Routes.Name, reg.Routes.Warn}} {
			deny, ok := byName[pair.deny]
			twin, twinned := byName[pair.twin.Name]
			if !ok {
				assert.False(t, twinned, "no twin without its webhook")
				continue
			}
			if twinned {
				checkWarnTwin(t, deny, twin, pair.twin, key)
				n++
			}
		}
		return n
	}
	// policyTwin checks each binding's twin, the rules' and the declared
	// hostnames', and says whether they have one (both or neither).
	policyTwin := func(t *testing.T, objs objects, key string, actions ...admissionv1.ValidationAction) bool {
		t.Helper()
		var twinned []bool
		for _, name := range []string{fullname, policy.DeclarationsPrefix + fullname} {
			b := typed[admissionv1.ValidatingAdmissionPolicyBinding](t, objs.get(t, "ValidatingAdmissionPolicyBinding", name))
			if !slices.Contains(objs.ids(), "ValidatingAdmissionPolicyBinding/"+name+"-warn") {
				for _, e := range b.Spec.MatchResources.NamespaceSelector.MatchExpressions {
					assert.NotEqual(t, key, e.Key, "%s: no twin, no split", name)
				}
				twinned = append(twinned, false)
				continue
			}
			w := typed[admissionv1.ValidatingAdmissionPolicyBinding](t, objs.get(t, "ValidatingAdmissionPolicyBinding", name+"-warn"))
			assert.Equal(t, b.Spec.PolicyName, w.Spec.PolicyName)
			assert.Equal(t, actions, w.Spec.ValidationActions, name)
			d, ws := b.Spec.MatchResources.NamespaceSelector.MatchExpressions, w.Spec.MatchResources.NamespaceSelector.MatchExpressions
			assert.Equal(t, enforcementExpr(key, metav1.LabelSelectorOpNotIn), d[len(d)-1], name)
			assert.Equal(t, enforcementExpr(key, metav1.LabelSelectorOpIn), ws[len(ws)-1], name)
			assert.Equal(t, d[:len(d)-1], ws[:len(ws)-1], "%s: otherwise the same namespaces", name)
			assert.Equal(t, b.Spec.MatchResources.ObjectSelector, w.Spec.MatchResources.ObjectSelector, name)
			twinned = append(twinned, true)
		}
		assert.Equal(t, twinned[0], twinned[1], "both bindings split alike")
		return twinned[0]
	}
	both := []string{"--set", "certManager.enabled=false"}

	assert.Equal(t, 1, webhookTwins(t, render(t), enforcementLabel), "webhook: the validating webhook's")
	assert.Equal(t, 2, webhookTwins(t, render(t, "--set", "clusterChecks.enabled=true"), enforcementLabel), "and the routes'")
	assert.True(t, policyTwin(t, renderMode(t, "policy"), enforcementLabel, admissionv1.Warn), "policy")
	objs := renderMode(t, "both", both...)
	assert.Equal(t, 2, webhookTwins(t, objs, enforcementLabel), "both")
	assert.True(t, policyTwin(t, objs, enforcementLabel, admissionv1.Warn), "both")

	// The binding's other actions carry over: Warn takes Deny's place.
	assert.True(t, policyTwin(t, renderMode(t, "policy", "--set", "admission.policy.validationActions={Deny,Audit}"),
		enforcementLabel, admissionv1.Warn, admissionv1.Audit))

	// What does not deny is not split.
	assert.Zero(t, webhookTwins(t, render(t, "--set", "webhook.enforcement=warn,clusterChecks.enabled=true"), enforcementLabel), "enforcement warn")
	assert.False(t, policyTwin(t, renderMode(t, "policy", "--set", "admission.policy.validationActions={Audit}"), enforcementLabel), "Audit only")
	objs = renderMode(t, "both", append(both, "--set", "webhook.enforcement=warn")...)
	assert.Zero(t, webhookTwins(t, objs, enforcementLabel), "both, enforcement warn: the webhooks deny nothing")
	assert.True(t, policyTwin(t, objs, enforcementLabel, admissionv1.Warn), "but the binding does")

	// Empty: no label, no twins; another key moves the condition.
	objs = renderMode(t, "both", append(both, "--set", "webhook.enforcementLabel=")...)
	assert.Zero(t, webhookTwins(t, objs, enforcementLabel))
	assert.False(t, policyTwin(t, objs, enforcementLabel))
	for _, s := range selectors(t, objs) {
		for _, e := range s["matchExpressions"].([]any) {
			assert.NotEqual(t, enforcementLabel, e.(map[string]any)["key"])
		}
	}
	objs = renderMode(t, "both", append(both, "--set", "webhook.enforcementLabel=example.com/mode")...)
	assert.Equal(t, 2, webhookTwins(t, objs, "example.com/mode"))
	assert.True(t, policyTwin(t, objs, "example.com/mode", admissionv1.Warn))

	_, err := renderErr(t, "--set", "webhook.enforcementLabel=not a label")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "enforcementLabel")
}
