package chart

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// ruleAlerts renders the PrometheusRule with args and returns each alert's
// rule by its name.
func ruleAlerts(t *testing.T, args ...string) map[string]map[string]any {
	t.Helper()
	out := map[string]map[string]any{}
	rule := render(t, args...).get(t, "PrometheusRule", fullname)
	for _, g := range rule.Object["spec"].(map[string]any)["groups"].([]any) {
		for _, r := range g.(map[string]any)["rules"].([]any) {
			rm := r.(map[string]any)
			out[rm["alert"].(string)] = rm
		}
	}
	return out
}

func alertNames(alerts map[string]map[string]any) []string {
	var names []string
	for n := range alerts {
		names = append(names, n)
	}
	return names
}

func severity(rule map[string]any) string {
	return rule["labels"].(map[string]any)["severity"].(string)
}

// webhookMetricAlerts read the webhook's own metrics, which only the chart's
// ServiceMonitor scrapes.
var webhookMetricAlerts = []string{"ListenerSetWebhookDown", "ListenerSetWebhookAnswersFailing", "ListenerSetWebhookShedding",
	"ListenerSetWebhookSlow", "ListenerSetWebhookClusterViewNotSynced", "ListenerSetWebhookCertificateNotRenewed",
	"ListenerSetWebhookCertificateExpiring"}

// apiserverWebhookAlerts and policyAlerts read kube-apiserver's series.
var (
	apiserverWebhookAlerts = []string{"ListenerSetWebhookCallsRejected", "ListenerSetWebhookFailingOpen", "ListenerSetWebhookCallsNearTimeout"}
	policyAlerts           = []string{"ListenerSetPolicyFailing"}
)

// TestRenderAlerts: no alert reads a scrape the release does not configure
// (without the ServiceMonitor, absent(up) would fire forever): the
// webhook's own metrics only with metrics.serviceMonitor.enabled, kube-
// apiserver's series of the webhooks in modes webhook and both, of the
// policy in modes policy and both. Severity critical only where writes are
// refused: the webhook down or its certificate expiring under failurePolicy
// Fail, the policy failing under Deny.
func TestRenderAlerts(t *testing.T) {
	on := []string{"--set", "metrics.prometheusRule.enabled=true"}
	all := append(append(append([]string{}, webhookMetricAlerts...), apiserverWebhookAlerts...), policyAlerts...)
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"without the ServiceMonitor", on, apiserverWebhookAlerts},
		{"without metrics", append([]string{"--set", "metrics.enabled=false"}, on...), apiserverWebhookAlerts},
		{"with the ServiceMonitor", scraped, append(append([]string{}, webhookMetricAlerts...), apiserverWebhookAlerts...)},
		{"policy mode", append([]string{"--set", "admission.mode=policy"}, scraped...), policyAlerts},
		{"both modes", append([]string{"--set", "admission.mode=both,certManager.enabled=false"}, scraped...), all},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.ElementsMatch(t, tc.want, alertNames(ruleAlerts(t, tc.args...)))
		})
	}

	deny := ruleAlerts(t, scraped...)
	warn := ruleAlerts(t, append([]string{"--set", "webhook.enforcement=warn"}, scraped...)...)
	for _, name := range []string{"ListenerSetWebhookDown", "ListenerSetWebhookCertificateExpiring"} {
		assert.Equal(t, "critical", severity(deny[name]), "%s under failurePolicy Fail", name)
		assert.Equal(t, "warning", severity(warn[name]), "%s under failurePolicy Ignore: writes are admitted", name)
	}
	for name, rule := range warn {
		if name != "ListenerSetWebhookCallsRejected" { // fires only under Fail
			assert.Equal(t, "warning", severity(rule), "%s pages in warn mode, where nothing is refused", name)
		}
	}
	policyDeny := ruleAlerts(t, append([]string{"--set", "admission.mode=policy"}, on...)...)
	policyWarn := ruleAlerts(t, append([]string{"--set", "admission.mode=policy", "--set-json", `admission.policy.validationActions=["Warn"]`}, on...)...)
	assert.Equal(t, "critical", severity(policyDeny["ListenerSetPolicyFailing"]))
	assert.Equal(t, "warning", severity(policyWarn["ListenerSetPolicyFailing"]))
	// the alert reads both policies the mode installs, and no other
	m := regexp.MustCompile("policy=~`([^`]*)`").FindStringSubmatch(policyDeny["ListenerSetPolicyFailing"]["expr"].(string))
	require.NotNil(t, m, "the alert selects the policies by a regular expression")
	policies := regexp.MustCompile("^(?:" + m[1] + ")$")
	vaps := renderMode(t, "policy").ofKind("ValidatingAdmissionPolicy")
	require.Len(t, vaps, 2)
	for _, vap := range vaps {
		assert.Regexp(t, policies, vap.GetName())
	}
	assert.NotRegexp(t, policies, "declared-hostnamesX"+fullname)
	assert.NotRegexp(t, policies, "other")
}

// TestRenderCertificateAlertsFollowRenewal: the certificate alerts compute
// the renewal from certManager.renewBefore (any Go duration), or at two
// thirds of the validity in the self-bootstrapped mode.
func TestRenderCertificateAlertsFollowRenewal(t *testing.T) {
	expr := func(args ...string) string {
		return ruleAlerts(t, append(args, scraped...)...)["ListenerSetWebhookCertificateNotRenewed"]["expr"].(string)
	}
	for renewBefore, seconds := range map[string]string{"720h": "2592000", "1h30m": "5400", "90s": "90", "1.5h": "5400", "2160h0m0s": "7776000"} {
		e := expr("--set", "certManager.renewBefore="+renewBefore)
		assert.Contains(t, e, "> bool "+seconds+") * "+seconds+" + ", renewBefore)
	}
	self := expr("--set", "certManager.enabled=false")
	assert.NotContains(t, self, "bool", "self-bootstrapped: two thirds of the validity")
	assert.Regexp(t, regexp.MustCompile(`\) / 3 - 900$`), self)
}

// TestRenderRunbookURL: the alerts link the runbook of the chart's release
// (appVersion is its tag, vX.Y.Z, in a release), main for a chart from a
// working tree, or metrics.prometheusRule.runbookURL.
func TestRenderRunbookURL(t *testing.T) {
	url := func(chartDir string, args ...string) string {
		out, err := runHelm(t.Context(), t, "", append(append([]string{"template", release, chartDir, "--namespace", namespace,
			"--kube-version", renderKubeVersion}, preloaded...), append(args, scraped...)...)...)
		require.NoError(t, err, out)
		objs, err := decodeObjects(out)
		require.NoError(t, err)
		rule := objs.get(t, "PrometheusRule", fullname)
		r := rule.Object["spec"].(map[string]any)["groups"].([]any)[0].(map[string]any)["rules"].([]any)[0].(map[string]any)
		return r["annotations"].(map[string]any)["runbook_url"].(string)
	}
	assert.Equal(t, "https://github.com/airlock/listenerset-webhook/blob/main/docs/runbook.md#listenersetwebhookdown", url(chartPath))
	assert.Equal(t, "https://example.com/rb.md#listenersetwebhookdown", url(chartPath, "--set", "metrics.prometheusRule.runbookURL=https://example.com/rb.md"))

	// A released chart, as hack/release.sh writes its appVersion.
	dir := filepath.Join(t.TempDir(), "listenerset-webhook")
	require.NoError(t, os.CopyFS(dir, os.DirFS(filepath.Join(root, chartPath))))
	chart, err := os.ReadFile(filepath.Join(dir, "Chart.yaml"))
	require.NoError(t, err)
	released := regexp.MustCompile(`(?m)^appVersion: .*$`).ReplaceAllString(string(chart), `appVersion: "v1.2.3"`)
	require.True(t, strings.Contains(released, `appVersion: "v1.2.3"`))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "Chart.yaml"), []byte(released), 0o644))
	assert.Equal(t, "https://github.com/airlock/listenerset-webhook/blob/v1.2.3/docs/runbook.md#listenersetwebhookdown", url(dir))
}
