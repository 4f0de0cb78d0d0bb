package chart

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// chartValues reads the chart's values.yaml.
func chartValues(t *testing.T) map[string]any {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(root, chartPath, "values.yaml"))
	require.NoError(t, err)
	var v map[string]any
	require.NoError(t, yaml.Unmarshal(raw, &v))
	return v
}

// selectors returns every namespaceSelector that decides which namespaces
// are judged: each webhook's and each policy binding's (the rules' and the
// declarations', the warn twins' too).
func selectors(t *testing.T, objs objects) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, u := range objs {
		switch u.GetKind() {
		case "ValidatingWebhookConfiguration", "MutatingWebhookConfiguration":
			hooks, _, _ := unstructured.NestedSlice(u.Object, "webhooks")
			for _, h := range hooks {
				out = append(out, h.(map[string]any)["namespaceSelector"].(map[string]any))
			}
		case "ValidatingAdmissionPolicyBinding":
			if u.GetName() == fullname+"-cabundle-only" {
				continue // the caBundle fence's binding matches no namespace
			}
			sel, _, _ := unstructured.NestedMap(u.Object, "spec", "matchResources", "namespaceSelector")
			out = append(out, sel)
		}
	}
	return out
}

// TestRenderBypassLabel: every release, by default, lets an administrator
// take a namespace out of every check by a label (docs/runbook.md's way
// out of a wrong denial, without a redeploy): each webhook's and each policy
// binding's namespaceSelector excludes webhook.bypassLabel; an empty value
// drops the condition, another key moves it.
func TestRenderBypassLabel(t *testing.T) {
	label := chartValues(t)["webhook"].(map[string]any)["bypassLabel"]
	require.Equal(t, bypassLabel, label, "the default label, the runbook's")
	excluded := func(key string) map[string]any { return map[string]any{"key": key, "operator": "DoesNotExist"} }
	for mode, objs := range map[string]objects{
		"webhook": render(t), "both": renderMode(t, "both", "--set", "certManager.enabled=false"), "policy": renderMode(t, "policy"),
	} {
		sels := selectors(t, objs)
		require.NotEmpty(t, sels, mode)
		for _, s := range sels {
			assert.Contains(t, s["matchExpressions"], excluded(bypassLabel), "mode %s", mode)
		}
	}
	for _, s := range selectors(t, renderMode(t, "both", "--set", "certManager.enabled=false,webhook.bypassLabel=")) {
		assert.NotContains(t, s["matchExpressions"], excluded(bypassLabel), "webhook.bypassLabel empty")
	}
	for _, s := range selectors(t, render(t, "--set", "webhook.bypassLabel=example.com/skip")) {
		assert.Contains(t, s["matchExpressions"], excluded("example.com/skip"))
	}
	_, err := renderErr(t, "--set", "webhook.bypassLabel=not a label")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "bypassLabel")
}

// TestTenancyRecipeForbidsTheBypass: docs/tenancy-capsule.md's Capsule Tenant
// forbids tenants the bypass label (whoever sets it skips every check), the
// enforcement label (whoever sets it to warn turns every denial into a
// warning) and the declared hostnames' annotation, the chart's defaults of
// each.
func TestTenancyRecipeForbidsTheBypass(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(root, "docs/tenancy-capsule.md"))
	require.NoError(t, err)
	m := regexp.MustCompile("(?s)```yaml\n(apiVersion: capsule.clastix.io/[^\n]*\nkind: Tenant\n.*?)```").FindSubmatch(raw)
	require.NotNil(t, m, "docs/tenancy-capsule.md has a Capsule Tenant")
	var tenant struct {
		Spec struct {
			NamespaceOptions struct {
				ForbiddenLabels      struct{ Denied []string } `json:"forbiddenLabels"`
				ForbiddenAnnotations struct{ Denied []string } `json:"forbiddenAnnotations"`
			} `json:"namespaceOptions"`
		} `json:"spec"`
	}
	require.NoError(t, yaml.Unmarshal(m[1], &tenant), "%s", m[1])
	values := chartValues(t)
	opts := tenant.Spec.NamespaceOptions
	assert.Contains(t, opts.ForbiddenLabels.Denied, values["webhook"].(map[string]any)["bypassLabel"], "tenants may not set the bypass label")
	assert.Contains(t, opts.ForbiddenLabels.Denied, values["webhook"].(map[string]any)["enforcementLabel"], "tenants may not switch to warn")
	assert.Contains(t, opts.ForbiddenAnnotations.Denied, values["tenancy"].(map[string]any)["allowedHostnamesAnnotation"])
}
