package chart

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionv1 "k8s.io/api/admission/v1"
	admissionregv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/airlock/listenerset-webhook/test/load/fixtures"
	"github.com/airlock/listenerset-webhook/test/testproc"
	"github.com/airlock/listenerset-webhook/webhook/admission"
)

// scraped are the helm arguments of a release whose webhook metrics are
// scraped: the ServiceMonitor, with the NetworkPolicy letting a Prometheus in.
var scraped = []string{"--set", "metrics.prometheusRule.enabled=true,metrics.serviceMonitor.enabled=true",
	"--set-json", `networkPolicy.metricsFrom=[{"namespaceSelector":{"matchLabels":{"kubernetes.io/metadata.name":"monitoring"}}}]`}

// alertRules renders the chart's PrometheusRule with args (scraped when
// none) and returns its rule groups, as a Prometheus rules file holds them,
// and every expression.
func alertRules(t *testing.T, args ...string) (rulesFile []byte, exprs []string) {
	t.Helper()
	if len(args) == 0 {
		args = scraped
	}
	rule := render(t, args...).get(t, "PrometheusRule", fullname)
	groups := rule.Object["spec"].(map[string]any)["groups"].([]any)
	for _, g := range groups {
		for _, r := range g.(map[string]any)["rules"].([]any) {
			exprs = append(exprs, r.(map[string]any)["expr"].(string))
		}
	}
	rulesFile, err := yaml.Marshal(map[string]any{"groups": groups})
	require.NoError(t, err)
	return rulesFile, exprs
}

// alertVariants are the renders whose alerts differ, each with its promtool
// tests: the defaults (cert-manager, webhook mode), the self-bootstrapped
// certificates, the policy mode.
var alertVariants = []struct {
	tests string
	args  []string
}{
	{"alerts_test.yaml", scraped},
	{"alerts_selfbootstrap_test.yaml", append([]string{"--set", "certManager.enabled=false"}, scraped...)},
	{"alerts_policy_test.yaml", []string{"--set", "metrics.prometheusRule.enabled=true,admission.mode=policy"}},
}

// TestAlertRules: promtool's unit tests of every alert
// (testdata/alerts*_test.yaml): each fires on the series that mean it and
// stays silent before and on those that do not (a single failed call, a
// renewed certificate). promtool comes from `make promtool` (make test-all
// builds it first).
func TestAlertRules(t *testing.T) {
	promtool := filepath.Join(root, "bin", "promtool")
	if _, err := os.Stat(promtool); err != nil {
		t.Skip("needs bin/promtool: run make promtool (it builds Prometheus' promtool from hack/tools/promtool)")
	}
	tested := map[string]bool{}
	for _, v := range alertVariants {
		t.Run(v.tests, func(t *testing.T) {
			rules, _ := alertRules(t, v.args...)
			dir := t.TempDir()
			require.NoError(t, os.WriteFile(filepath.Join(dir, "rules.yaml"), rules, 0o644))
			tests, err := os.ReadFile(filepath.Join(root, "test/chart/testdata", v.tests))
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(filepath.Join(dir, "alerts_test.yaml"), tests, 0o644))
			var names []string
			for _, line := range strings.Split(string(rules), "\n") {
				if name, ok := strings.CutPrefix(strings.TrimLeft(line, " -"), "alert: "); ok {
					names = append(names, name)
					tested[name] = tested[name] || strings.Contains(string(tests), "alertname: "+name)
				}
			}
			require.NotEmpty(t, names)

			cmd := exec.Command(promtool, "check", "rules", "rules.yaml")
			cmd.Dir = dir
			out, err := cmd.CombinedOutput()
			require.NoError(t, err, "promtool check rules:\n%s", out)
			cmd = exec.Command(promtool, "test", "rules", "alerts_test.yaml")
			cmd.Dir = dir
			out, err = cmd.CombinedOutput()
			require.NoError(t, err, "promtool test rules:\n%s", out)
			t.Logf("promtool test rules, %d alerts:\n%s", len(names), out)
		})
	}
	for name, ok := range tested {
		assert.True(t, ok, "alert %s has no promtool test", name)
	}
}

// dashboardQueries renders the chart's Grafana dashboard and returns every
// PromQL it runs: each panel's targets and each variable's query.
func dashboardQueries(t *testing.T) []string {
	t.Helper()
	cm := render(t, "--set", "metrics.dashboard.enabled=true").get(t, "ConfigMap", fullname+"-dashboard")
	var dash struct {
		Panels []struct {
			Title   string `json:"title"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
		Templating struct {
			List []struct {
				Type  string `json:"type"`
				Query any    `json:"query"`
			} `json:"list"`
		} `json:"templating"`
	}
	require.NoError(t, json.Unmarshal([]byte(cm.Object["data"].(map[string]any)["listenerset-webhook.json"].(string)), &dash))
	require.NotEmpty(t, dash.Panels)
	var out []string
	for _, p := range dash.Panels {
		require.NotEmpty(t, p.Targets, "panel %q has no query", p.Title)
		for _, q := range p.Targets {
			out = append(out, q.Expr)
		}
	}
	for _, v := range dash.Templating.List {
		if q, ok := v.Query.(map[string]any); ok && v.Type == "query" {
			// label_values(metric{...}, label): the metric as a selector
			out = append(out, strings.Replace(strings.TrimPrefix(q["query"].(string), "label_values("), ",", "{},", 1))
		}
	}
	return out
}

// metricName is a metric selector in a PromQL expression: a name followed
// by its label matchers (every selector of the chart's alerts has some).
var metricName = regexp.MustCompile(`([a-zA-Z_:][a-zA-Z0-9_:]*)\{`)

// TestAlertMetricsExist: every metric an alert or the dashboard reads is
// one the server really exposes at /metrics (a histogram by its _bucket
// series), but up, which Prometheus writes for each target, and
// kube-apiserver's own (TestAlertAPIServerMetricsExist).
func TestAlertMetricsExist(t *testing.T) {
	_, exprs := alertRules(t)
	exprs = append(exprs, dashboardQueries(t)...)
	var wanted []string
	for _, e := range exprs {
		for _, m := range metricName.FindAllStringSubmatch(e, -1) {
			if m[1] != "up" && !strings.HasPrefix(m[1], apiserverMetricPrefix) && !slices.Contains(wanted, m[1]) {
				wanted = append(wanted, m[1])
			}
		}
	}
	require.NotEmpty(t, wanted)

	// Two servers, so that every series exists: one denies (a valid and an
	// invalid review), the other warns instead, with cluster checks on (a
	// kube-apiserver that is not there: the synced gauges stay 0).
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	require.NoError(t, os.WriteFile(kubeconfig, []byte(`apiVersion: v1
kind: Config
clusters: [{name: none, cluster: {server: "https://127.0.0.1:1"}}]
contexts: [{name: none, context: {cluster: none, user: none}}]
users: [{name: none, user: {token: none}}]
current-context: none
`), 0o600))
	valid := fixtures.Review("1", admissionv1.Create, fixtures.Defaulted(fixtures.TwoListeners()), nil)
	invalid := fixtures.Review("2", admissionv1.Create, fixtures.Defaulted(fixtures.ManyErrors()), nil)
	page := scrapeAfter(t, nil, valid, invalid) +
		scrapeAfter(t, []string{"--enforcement=warn", "--cluster-checks", "--kubeconfig=" + kubeconfig}, invalid)
	for _, name := range wanted {
		assert.Regexp(t, `(?m)^`+regexp.QuoteMeta(name)+`[{ ]`, page, "the server exposes no %s that an alert or the dashboard reads", name)
	}
}

// scrapeAfter starts the server with flags, posts each review to the
// validating webhook, and returns its /metrics page.
func scrapeAfter(t *testing.T, flags []string, reviews ...[]byte) string {
	t.Helper()
	bin, err := testproc.WebhookBinary()
	require.NoError(t, err)
	ports, err := testproc.NewPorts()
	require.NoError(t, err)
	args := append(append(testproc.ServeFlags(), ports.Flags()...), "--host=127.0.0.1", "--cert-dir="+t.TempDir())
	proc, err := testproc.Start(exec.Command(bin, append(args, flags...)...), filepath.Join(t.TempDir(), "serve.log"))
	require.NoError(t, err)
	defer func() { _ = proc.Stop(30 * time.Second) }()
	require.NoError(t, testproc.WaitReady(t.Context(), ports.ReadyzURL(), time.Minute, proc.Ended), proc.Log())

	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}} // loopback, a generated certificate
	defer client.CloseIdleConnections()
	for _, body := range reviews {
		resp, err := client.Post("https://"+ports.Addr()+admission.ValidatePath, "application/json", bytes.NewReader(body))
		require.NoError(t, err)
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		require.Equal(t, http.StatusOK, resp.StatusCode)
	}
	resp, err := http.Get("http://" + ports.MetricsAddr() + "/metrics")
	require.NoError(t, err)
	defer resp.Body.Close()
	page, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return string(page)
}

// TestRenderAlertsAndDashboard: both are off by default; the dashboard is
// never rendered in admission.mode=policy (no webhook to watch) or without
// metrics, and goes where the sidecar looks. The alerts: see TestRenderAlerts.
func TestRenderAlertsAndDashboard(t *testing.T) {
	rule, dashboard := "PrometheusRule/"+fullname, "ConfigMap/"+fullname+"-dashboard"
	on := "metrics.prometheusRule.enabled=true,metrics.dashboard.enabled=true"
	assert.NotContains(t, render(t).ids(), rule)
	assert.NotContains(t, render(t).ids(), dashboard)
	assert.Subset(t, render(t, "--set", on).ids(), []string{rule, dashboard})
	assert.Subset(t, renderMode(t, "both", "--set", on).ids(), []string{rule, dashboard})
	for _, objs := range []objects{renderMode(t, "policy", "--set", on), render(t, "--set", on+",metrics.enabled=false")} {
		assert.Contains(t, objs.ids(), rule, "kube-apiserver's alerts")
		assert.NotContains(t, objs.ids(), dashboard)
	}
	cm := render(t, "--set", on+",metrics.dashboard.namespace=monitoring").get(t, "ConfigMap", fullname+"-dashboard")
	assert.Equal(t, "monitoring", cm.GetNamespace())
	assert.Equal(t, "1", cm.GetLabels()["grafana_dashboard"])
}

// apiserverMetricPrefix starts the names of kube-apiserver's metrics, which
// some alerts read instead of the webhook's: its calls of the webhooks
// (apiserver_admission_webhook_*) and its policy checks
// (apiserver_validating_admission_policy_*).
const apiserverMetricPrefix = "apiserver_"

// TestAlertAPIServerMetricsExist: every series of kube-apiserver an alert
// reads exists in a real kube-apiserver's /metrics, with the labels and
// values the alert selects, after what the alert means happened: the
// chart's webhook names registered against a closed port of this machine,
// the mutating one with failurePolicy Ignore (it fails open), the validating
// one with Fail (the write is rejected for a calling error); and the
// chart's policy, installed in mode policy, denying an invalid ListenerSet.
// (The policy alert's error_type values, compile_error and out_of_budget,
// are k8s.io/apiserver's ValidationErrorType, which a valid policy does not
// produce on demand.)
func TestAlertAPIServerMetricsExist(t *testing.T) {
	_, exprs := alertRules(t, append([]string{"--set", "admission.mode=both,certManager.enabled=false"}, scraped...)...)
	var wanted []string
	for _, e := range exprs {
		for _, m := range metricName.FindAllStringSubmatch(e, -1) {
			if strings.HasPrefix(m[1], apiserverMetricPrefix) && !slices.Contains(wanted, m[1]) {
				wanted = append(wanted, m[1])
			}
		}
	}
	require.Len(t, wanted, 5, "kube-apiserver metrics the alerts read: %v", wanted)

	c := cluster(t)
	ctx := t.Context()
	const ns = "lsw-alert-metrics"
	ensureLabelledNamespace(ctx, t, c.Client, ns, map[string]string{"lsw-alert-metrics": "yes"})
	port, err := testproc.FreePort() // nothing listens there: connection refused
	require.NoError(t, err)
	reg := admission.Registrations()
	url := fmt.Sprintf("https://127.0.0.1:%d/", port)
	fail, ignore := admissionregv1.Fail, admissionregv1.Ignore
	none := admissionregv1.SideEffectClassNone
	hook := func(name string, policy *admissionregv1.FailurePolicyType) admissionregv1.ValidatingWebhook {
		return admissionregv1.ValidatingWebhook{
			Name: name, ClientConfig: admissionregv1.WebhookClientConfig{URL: &url},
			Rules: reg.Rules, FailurePolicy: policy, SideEffects: &none, AdmissionReviewVersions: []string{"v1"},
			NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"lsw-alert-metrics": "yes"}},
		}
	}
	// Both in one validating configuration: kube-apiserver labels the
	// series by the webhook's name, which is what the alerts select.
	cfg := &admissionregv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "lsw-alert-metrics"},
		Webhooks:   []admissionregv1.ValidatingWebhook{hook(reg.Mutating.Name, &ignore), hook(reg.Validating.Name, &fail)},
	}
	require.NoError(t, c.Client.Create(ctx, cfg))
	t.Cleanup(func() { _ = c.Client.Delete(context.Background(), cfg) })

	eventually(t, 30*time.Second, "kube-apiserver rejects the write for a calling error", func() error {
		err := c.Client.Create(ctx, listenerSet(ns, "alert-metrics", true), client.DryRunAll)
		if err == nil {
			return errors.New("admitted")
		}
		if !strings.Contains(err.Error(), fmt.Sprintf("failed calling webhook %q", reg.Validating.Name)) ||
			!strings.Contains(err.Error(), "connection refused") {
			return err
		}
		return nil
	})
	cs, err := kubernetes.NewForConfig(c.Config)
	require.NoError(t, err)
	require.NoError(t, c.Client.Delete(ctx, cfg))

	// The chart's policy, in the namespace alone.
	rel := installChart(ctx, t, c, "alert-metrics", "lsw-alert-metrics-rel", "--set", "admission.mode=policy",
		"--set-string", "webhook.namespaceSelector.matchLabels.lsw-alert-metrics=yes")
	t.Cleanup(func() {
		_, _ = runHelm(context.Background(), t, c.KubeconfigPath, "uninstall", rel.name, "--namespace", rel.ns)
	})
	eventually(t, 30*time.Second, "the policy denies an invalid ListenerSet", func() error {
		return deniedByPolicy(c.Client.Create(ctx, listenerSet(ns, "alert-metrics-invalid", false), client.DryRunAll), rel.fullname())
	})

	page, err := cs.CoreV1().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	require.NoError(t, err)
	var lines []string
	for _, l := range strings.Split(string(page), "\n") {
		if strings.HasPrefix(l, apiserverMetricPrefix) && (strings.Contains(l, "listenersets.microgateway.airlock.com") || strings.Contains(l, `policy="`+rel.fullname()+`"`)) {
			lines = append(lines, l)
		}
	}
	series := strings.Join(lines, "\n")
	v, m, p := regexp.QuoteMeta(reg.Validating.Name), regexp.QuoteMeta(reg.Mutating.Name), regexp.QuoteMeta(rel.fullname())
	for _, want := range []string{
		`apiserver_admission_webhook_rejection_count\{error_type="calling_webhook_error",name="` + v + `",operation="CREATE",rejection_code="[0-9]+",type="validating"\} [1-9]`,
		`apiserver_admission_webhook_fail_open_count\{name="` + m + `",type="validating"\} [1-9]`,
		`apiserver_admission_webhook_admission_duration_seconds_bucket\{name="` + v + `",operation="CREATE",rejected="true",type="validating",le="10"\} [1-9]`,
		`apiserver_admission_webhook_admission_duration_seconds_count\{name="` + v + `",operation="CREATE",rejected="true",type="validating"\} [1-9]`,
		`apiserver_validating_admission_policy_check_total\{enforcement_action="deny",error_type="invalid_error",policy="` + p + `",policy_binding="` + p + `"\} [1-9]`,
	} {
		assert.Regexp(t, want, series, "kube-apiserver's series of the webhooks")
	}
	for _, name := range wanted {
		assert.Regexp(t, `(?m)^`+regexp.QuoteMeta(name)+`\{`, series, "kube-apiserver exposes no %s of the webhooks that an alert reads", name)
	}
}
