package chart

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
)

// TestRenderRefusesAnUnpullableImage: the default image, on the domain
// localhost, renders only with image.preloaded=true, else helm says what to
// set; a registry's image renders without it; the policy mode runs no image
// and needs neither, unless the audit CronJob runs one.
func TestRenderRefusesAnUnpullableImage(t *testing.T) {
	base := []string{"template", release, chartPath, "--namespace", namespace, "--kube-version", renderKubeVersion}
	for _, args := range [][]string{nil, {"--set", "certManager.enabled=false"}, {"--set", "admission.mode=policy,audit.enabled=true"}} {
		out, err := runHelm(t.Context(), t, "", append(base, args...)...)
		require.Error(t, err, "%v rendered:\n%s", args, out)
		assert.Contains(t, err.Error(), "image.repository is localhost/listenerset-webhook, which no node can pull")
		assert.Contains(t, err.Error(), "Set image.repository=<your-registry>/listenerset-webhook")
		assert.Contains(t, err.Error(), "image.preloaded=true")
	}
	for _, args := range [][]string{
		{"--set", "image.repository=registry.example/lsw"},
		{"--set", "image.repository=localhost:5000/lsw"}, // a registry on this machine's port 5000 is pulled from
		{"--set", "admission.mode=policy"},
	} {
		_, err := runHelm(t.Context(), t, "", append(base, args...)...)
		assert.NoError(t, err, "%v", args)
	}
	dep := typed[appsv1.Deployment](t, render(t).get(t, "Deployment", fullname))
	assert.True(t, strings.HasPrefix(dep.Spec.Template.Spec.Containers[0].Image, "localhost/listenerset-webhook:"), dep.Spec.Template.Spec.Containers[0].Image)
}

// TestRenderWarnModeFailsOpen: webhook.failurePolicy's default follows
// webhook.enforcement (deny: Fail, warn: Ignore) for both webhooks; a value
// set wins; mode both is always Ignore.
func TestRenderWarnModeFailsOpen(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "Fail"},
		{[]string{"--set", "webhook.enforcement=warn"}, "Ignore"},
		{[]string{"--set", "webhook.enforcement=warn,webhook.failurePolicy=Fail"}, "Fail"},
		{[]string{"--set", "webhook.enforcement=deny,webhook.failurePolicy=Ignore"}, "Ignore"},
		{[]string{"--set", "admission.mode=both,webhook.failurePolicy=Fail"}, "Ignore"},
	} {
		objs := render(t, tc.args...)
		for _, kind := range []string{"MutatingWebhookConfiguration", "ValidatingWebhookConfiguration"} {
			hooks := objs.get(t, kind, fullname).Object["webhooks"].([]any)
			assert.Equal(t, tc.want, hooks[0].(map[string]any)["failurePolicy"], "%v: %s", tc.args, kind)
		}
	}
	_, err := renderErr(t, "--set", "webhook.failurePolicy=Sometimes")
	assert.ErrorContains(t, err, "/webhook/failurePolicy")
}

// TestRenderCommonAnnotations: commonAnnotations reach every object of every
// mode (not the pods), beside the objects' own annotations, which win;
// webhook.configurationAnnotations only the two webhook configurations.
func TestRenderCommonAnnotations(t *testing.T) {
	const wave = "argocd.argoproj.io/sync-wave"
	every := []string{"--set-string", "commonAnnotations.team=edge,commonAnnotations." + strings.ReplaceAll(wave, ".", `\.`) + "=-1",
		"--set-string", "webhook.configurationAnnotations." + strings.ReplaceAll(wave, ".", `\.`) + "=1",
		"--set", "serviceAccount.annotations.team=own",
		"--set", "audit.enabled=true,metrics.prometheusRule.enabled=true,metrics.dashboard.enabled=true,autoscaling.enabled=true",
		"--set", "metrics.serviceMonitor.enabled=true,networkPolicy.metricsFrom[0].podSelector.matchLabels.app=prometheus"}
	for _, mode := range []string{"webhook", "policy", "both"} {
		for _, certs := range []string{"true", "false"} {
			objs := render(t, append(every, "--set", "admission.mode="+mode+",certManager.enabled="+certs)...)
			require.NotEmpty(t, objs)
			for _, u := range objs {
				a := u.GetAnnotations()
				id := mode + " " + u.GetKind() + "/" + u.GetName()
				switch {
				case u.GetKind() == "ServiceAccount" && u.GetName() == fullname:
					assert.Equal(t, "own", a["team"], "%s: its own annotation wins", id)
				default:
					assert.Equal(t, "edge", a["team"], id)
				}
				switch u.GetKind() {
				case "MutatingWebhookConfiguration", "ValidatingWebhookConfiguration":
					assert.Equal(t, "1", a[wave], id)
					if certs == "true" {
						assert.Equal(t, namespace+"/"+fullname+"-serving", a["cert-manager.io/inject-ca-from"], id)
					} else {
						assert.Equal(t, namespace+"/"+fullname+"-ca", a["listenerset-webhook.airlock.com/cabundle-from"], id)
					}
				default:
					assert.Equal(t, "-1", a[wave], id)
				}
			}
			if mode != "policy" {
				dep := typed[appsv1.Deployment](t, objs.get(t, "Deployment", fullname))
				assert.Empty(t, dep.Spec.Template.Annotations, "the pods get podAnnotations only")
			}
		}
	}
	for _, u := range render(t) {
		if u.GetKind() != "MutatingWebhookConfiguration" && u.GetKind() != "ValidatingWebhookConfiguration" {
			assert.Empty(t, u.GetAnnotations(), "%s/%s: no annotations by default", u.GetKind(), u.GetName())
		}
	}
}

// TestRenderMetricsRestricted: by default the NetworkPolicy closes the
// metrics port to everyone and leaves the webhook port open; metricsFrom
// opens it to its peers; a ServiceMonitor whose scrapes it would block is
// refused, with what to set.
func TestRenderMetricsRestricted(t *testing.T) {
	np := render(t).get(t, "NetworkPolicy", fullname)
	ingress := np.Object["spec"].(map[string]any)["ingress"].([]any)
	require.Len(t, ingress, 1, "only the webhook port: %v", ingress)
	rule := ingress[0].(map[string]any)
	assert.Equal(t, "webhook", rule["ports"].([]any)[0].(map[string]any)["port"])
	assert.NotContains(t, rule, "from", "any peer may call the webhook port")

	np = render(t, "--set", "networkPolicy.metricsFrom[0].namespaceSelector.matchLabels.team=monitoring").get(t, "NetworkPolicy", fullname)
	ingress = np.Object["spec"].(map[string]any)["ingress"].([]any)
	require.Len(t, ingress, 2)
	assert.Equal(t, "metrics", ingress[1].(map[string]any)["ports"].([]any)[0].(map[string]any)["port"])

	_, err := renderErr(t, "--set", "metrics.serviceMonitor.enabled=true")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "set networkPolicy.metricsFrom to your Prometheus' peers")
	for _, args := range [][]string{
		{"--set", "metrics.serviceMonitor.enabled=true,networkPolicy.enabled=false"},
		{"--set", "metrics.serviceMonitor.enabled=true,networkPolicy.metricsFrom[0].podSelector.matchLabels.app=prometheus"},
	} {
		assert.NotEmpty(t, render(t, args...).ofKind("ServiceMonitor"), "%v", args)
	}
}
