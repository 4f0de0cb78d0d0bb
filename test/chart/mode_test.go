package chart

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/discovery"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/airlock/listenerset-webhook/policy"
	"github.com/airlock/listenerset-webhook/test/localcluster"
	"github.com/airlock/listenerset-webhook/test/testproc"
	"github.com/airlock/listenerset-webhook/webhook/admission"
	"github.com/airlock/listenerset-webhook/webhook/clusterview"
)

// The chart's admission.mode (templates/_admission.tpl): webhook (the
// default), policy (the two ValidatingAdmissionPolicies and their bindings only) and
// both (the policy enforces, the webhooks fail open).

// renderKubeVersion is what the render tests tell helm the cluster runs unless
// they name a version: the local control plane's default version
// (hack/k8s-binaries.sh). Chart.yaml's kubeVersion refuses helm template's own
// default (v1.20.0).
const renderKubeVersion = "1.37.2"

// policyFile is the generator's output the chart carries.
const policyFile = chartPath + "/files/policy.yaml"

var update = flag.Bool("update", false, "rewrite "+policyFile+" from the generator")

func renderMode(t testing.TB, mode string, args ...string) objects {
	t.Helper()
	return render(t, append([]string{"--kube-version", renderKubeVersion, "--set", "admission.mode=" + mode}, args...)...)
}

// Everything the chart can render that runs or serves, switched on.
var everyOption = []string{
	"--set", "networkPolicy.enabled=true,metrics.serviceMonitor.enabled=true,autoscaling.enabled=true",
	"--set", "networkPolicy.metricsFrom[0].podSelector.matchLabels.app=prometheus",
	"--set", "clusterChecks.enabled=true,clusterChecks.secrets=true,podDisruptionBudget.enabled=true",
}

// TestRenderAdmissionModes: which objects each mode renders.
func TestRenderAdmissionModes(t *testing.T) {
	declarations := policy.DeclarationsPrefix + fullname
	policyIDs := []string{"ValidatingAdmissionPolicy/" + fullname, "ValidatingAdmissionPolicy/" + declarations,
		"ValidatingAdmissionPolicyBinding/" + fullname, "ValidatingAdmissionPolicyBinding/" + fullname + "-warn",
		"ValidatingAdmissionPolicyBinding/" + declarations, "ValidatingAdmissionPolicyBinding/" + declarations + "-warn"}

	t.Run("webhook is the default and renders no policy", func(t *testing.T) {
		def, explicit := render(t), renderMode(t, "webhook")
		assert.Equal(t, def.ids(), explicit.ids())
		assert.Empty(t, def.ofKind("ValidatingAdmissionPolicy"))
		assert.Empty(t, def.ofKind("ValidatingAdmissionPolicyBinding"))
		_, v := webhookConfigs(t, def)
		assert.Equal(t, admissionv1.Fail, *v.Webhooks[0].FailurePolicy)
		assert.NotContains(t, parseServe(t, typed[appsv1.Deployment](t, def.get(t, "Deployment", fullname)).Spec.Template.Spec.Containers[0].Args),
			"cluster-checks", "clusterChecks.enabled null means off in mode webhook")
	})

	t.Run("policy renders the policies and their bindings, nothing else", func(t *testing.T) {
		for _, args := range [][]string{
			nil,
			{"--set", "certManager.enabled=false,selfBootstrapped.precreateSecret=false"},
			append([]string{"--set", "certManager.enabled=false"}, everyOption...),
			append([]string{"--set", "certManager.issuerRef.name=corp-ca"}, everyOption...),
		} {
			objs := renderMode(t, "policy", args...)
			assert.Equal(t, policyIDs, objs.ids(), "%v: no Deployment, Service, certificates, RBAC, ServiceAccount, PDB, HPA, NetworkPolicy, ServiceMonitor or webhook configuration", args)
		}
	})

	t.Run("both renders the webhook's objects and the policy, the webhooks failing open", func(t *testing.T) {
		for _, certManager := range []string{"true", "false"} {
			set := "certManager.enabled=" + certManager
			webhookOnly := render(t, "--set", set+",clusterChecks.enabled=true")
			both := renderMode(t, "both", "--set", set+",webhook.failurePolicy=Fail")
			assert.ElementsMatch(t, append(webhookOnly.ids(), policyIDs...), both.ids(),
				"mode both: mode webhook with the cluster-aware checks, plus the policy")
			m, v := webhookConfigs(t, both)
			assert.Equal(t, admissionv1.Ignore, *m.Webhooks[0].FailurePolicy, "webhook.failurePolicy=Fail does not apply in mode both")
			assert.Equal(t, admissionv1.Ignore, *v.Webhooks[0].FailurePolicy)
			assert.Equal(t, admission.MutatingMatchConditions(), m.Webhooks[0].MatchConditions)
			dep := typed[appsv1.Deployment](t, both.get(t, "Deployment", fullname))
			assert.Equal(t, "true", parseServe(t, dep.Spec.Template.Spec.Containers[0].Args)["cluster-checks"],
				"clusterChecks.enabled null means on in mode both")
			assert.True(t, *dep.Spec.Template.Spec.AutomountServiceAccountToken, "the cluster view reads the API")
		}

		// clusterChecks.enabled=false is honoured; strict passes through.
		off := renderMode(t, "both", "--set", "clusterChecks.enabled=false")
		assert.NotContains(t, parseServe(t, typed[appsv1.Deployment](t, off.get(t, "Deployment", fullname)).Spec.Template.Spec.Containers[0].Args), "cluster-checks")
		assert.Equal(t, clusterview.RBACRules(clusterview.Watch{Scope: true}),
			typed[rbacv1.ClusterRole](t, off.get(t, "ClusterRole", fullname+"-cluster-view")).Rules, "the scope's view only")
		strict := renderMode(t, "both", "--set", "clusterChecks.strict=true")
		assert.Equal(t, "true", parseServe(t, typed[appsv1.Deployment](t, strict.get(t, "Deployment", fullname)).Spec.Template.Spec.Containers[0].Args)["strict"])
	})
}

// TestRenderedPolicyIsTheGenerators: the chart's policies and bindings (the
// rules' and the declarations') are policy.Generate's for the release's
// names and the values' actions and namespaces (the webhooks' own
// selector), label for label apart from the chart's labels. The CEL is the
// generator's, not a copy.
func TestRenderedPolicyIsTheGenerators(t *testing.T) {
	objs := renderMode(t, "policy",
		"--set", "admission.policy.validationActions={Warn,Audit},webhook.excludeNamespaces={legacy}",
		"--set", "webhook.namespaceSelector.matchLabels.env=prod",
		"--set-json", `webhook.namespaceSelector.matchExpressions=[{"key":"tier","operator":"Exists"}]`,
		"--set-string", "webhook.objectSelector.matchLabels.microgateway\\.airlock\\.com/validate=true")

	selector := &metav1.LabelSelector{
		MatchLabels: map[string]string{"env": "prod"},
		MatchExpressions: []metav1.LabelSelectorRequirement{
			{Key: "kubernetes.io/metadata.name", Operator: metav1.LabelSelectorOpNotIn, Values: []string{"kube-system", namespace, "legacy"}},
			{Key: bypassLabel, Operator: metav1.LabelSelectorOpDoesNotExist},
			{Key: "tier", Operator: metav1.LabelSelectorOpExists},
		},
	}
	want, err := policy.Generate(policy.Options{
		PolicyName: fullname, BindingName: fullname,
		Actions:           []admissionv1.ValidationAction{admissionv1.Warn, admissionv1.Audit},
		NamespaceSelector: selector,
	})
	require.NoError(t, err)
	var metas []metav1.ObjectMeta
	for _, pair := range want.Pairs() {
		wantVAP, wantBinding := pair.Policy, pair.Binding
		wantBinding.Spec.MatchResources.ObjectSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"microgateway.airlock.com/validate": "true"}}
		gotVAP := typed[admissionv1.ValidatingAdmissionPolicy](t, objs.get(t, "ValidatingAdmissionPolicy", wantVAP.Name))
		gotBinding := typed[admissionv1.ValidatingAdmissionPolicyBinding](t, objs.get(t, "ValidatingAdmissionPolicyBinding", wantBinding.Name))
		assert.Equal(t, wantVAP.TypeMeta, gotVAP.TypeMeta)
		assert.Equal(t, wantVAP.Spec, gotVAP.Spec, "the policy %s as the generator writes it", wantVAP.Name)
		assert.Equal(t, wantBinding.TypeMeta, gotBinding.TypeMeta)
		assert.Equal(t, wantBinding.Spec, gotBinding.Spec, "the binding %s the generator writes for these options", wantBinding.Name)
		metas = append(metas, gotVAP.ObjectMeta, gotBinding.ObjectMeta)
	}

	// The same namespaces as the webhooks of mode both (the mutating one:
	// the validating one is split by the enforcement label, as a binding
	// with Deny is).
	m, _ := webhookConfigs(t, renderMode(t, "both",
		"--set", "webhook.excludeNamespaces={legacy},webhook.namespaceSelector.matchLabels.env=prod",
		"--set-json", `webhook.namespaceSelector.matchExpressions=[{"key":"tier","operator":"Exists"}]`))
	assert.Equal(t, selector, m.Webhooks[0].NamespaceSelector)
	assert.NotContains(t, objs.ids(), "ValidatingAdmissionPolicyBinding/"+fullname+"-warn", "Warn: nothing to split")

	for _, meta := range metas {
		assert.Equal(t, release, meta.Labels["app.kubernetes.io/instance"])
		assert.Equal(t, "Helm", meta.Labels["app.kubernetes.io/managed-by"])
		assert.True(t, meta.CreationTimestamp.IsZero(), "no creationTimestamp")
	}

	// The default: Deny, every namespace but the excluded ones and those
	// labelled to warn, which the warn twin judges with Warn.
	def := renderMode(t, "policy")
	judged := []metav1.LabelSelectorRequirement{{Key: "kubernetes.io/metadata.name", Operator: metav1.LabelSelectorOpNotIn,
		Values: []string{"kube-system", namespace}}, {Key: bypassLabel, Operator: metav1.LabelSelectorOpDoesNotExist}}
	for _, name := range []string{fullname, policy.DeclarationsPrefix + fullname} {
		b := typed[admissionv1.ValidatingAdmissionPolicyBinding](t, def.get(t, "ValidatingAdmissionPolicyBinding", name))
		assert.Equal(t, []admissionv1.ValidationAction{admissionv1.Deny}, b.Spec.ValidationActions)
		assert.Nil(t, b.Spec.MatchResources.ObjectSelector)
		assert.Equal(t, append(slices.Clone(judged), enforcementExpr(enforcementLabel, metav1.LabelSelectorOpNotIn)),
			b.Spec.MatchResources.NamespaceSelector.MatchExpressions, name)
		w := typed[admissionv1.ValidatingAdmissionPolicyBinding](t, def.get(t, "ValidatingAdmissionPolicyBinding", name+"-warn"))
		assert.Equal(t, name, w.Spec.PolicyName)
		assert.Equal(t, []admissionv1.ValidationAction{admissionv1.Warn}, w.Spec.ValidationActions)
		assert.Equal(t, append(slices.Clone(judged), enforcementExpr(enforcementLabel, metav1.LabelSelectorOpIn)),
			w.Spec.MatchResources.NamespaceSelector.MatchExpressions, name+"-warn")
	}
}

// chartPolicyArgs are the flags make chart-policy gives `kubectl
// listenerset policy`: its defaults with the scope, which the chart keeps
// (setting the Gateways) or removes (without admission.policy.gateways).
var chartPolicyArgs = []string{"--gateways", "infra/airlock"}

// TestPolicyFileIsGenerated: files/policy.yaml is exactly what the
// generator writes (`kubectl listenerset policy` with chartPolicyArgs,
// policy.YAML with default options and one Gateway). It fails when a rule
// or a name list changed in Go and the chart's copy was not regenerated.
func TestPolicyFileIsGenerated(t *testing.T) {
	want, err := policy.YAML(policy.Options{Gateways: []string{"infra/airlock"}})
	require.NoError(t, err)
	path := filepath.Join(root, policyFile)
	if *update {
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, want, 0o644))
	}
	got, err := os.ReadFile(path)
	require.NoError(t, err)
	if !testing.Short() {
		// The command make chart-policy runs prints the same.
		bin, err := testproc.PluginBinary()
		require.NoError(t, err)
		out, err := exec.Command(bin, append([]string{"policy"}, chartPolicyArgs...)...).Output()
		require.NoError(t, err)
		require.Equal(t, string(want), string(out), "kubectl-listenerset policy prints policy.YAML with these options")
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s is stale: regenerate it with `make chart-policy` (go run ./cmd/kubectl-listenerset policy %s > %s) or `go test ./test/chart -run TestPolicyFileIsGenerated -update`",
			policyFile, strings.Join(chartPolicyArgs, " "), policyFile)
	}
}

// TestChartKubeVersion: Chart.yaml's kubeVersion is a lower bound only, the
// version matrix' oldest (hack/k8s-binaries.sh versions), and its
// tested-kube-versions annotation is the matrix' range. helm refuses every
// older version in every mode, helm template's default (v1.20.0) too;
// ValidatingAdmissionPolicy is GA (admissionregistration.k8s.io/v1) since
// 1.30, the oldest, so modes policy and both need no check of their own. A
// version above the range renders, and says it is untested (NOTES.txt and
// the comment helm template shows); one inside it says nothing.
func TestChartKubeVersion(t *testing.T) {
	out, err := exec.Command("bash", filepath.Join(root, localcluster.BinariesScript), "versions").Output()
	require.NoError(t, err)
	versions := strings.Fields(string(out))
	require.NotEmpty(t, versions)
	minor := func(v string) int {
		parts := strings.Split(v, ".")
		require.Len(t, parts, 3, v)
		m, err := strconv.Atoi(parts[1])
		require.NoError(t, err, v)
		return m
	}
	oldest, newest := minor(versions[0]), minor(versions[len(versions)-1])
	chart, err := os.ReadFile(filepath.Join(root, chartPath, "Chart.yaml"))
	require.NoError(t, err)
	assert.Contains(t, string(chart), "\n"+fmt.Sprintf(`kubeVersion: ">=1.%d.0-0"`, oldest)+"\n", "Chart.yaml's kubeVersion is the matrix' oldest, no upper bound")
	assert.Contains(t, string(chart), fmt.Sprintf(`listenerset-webhook.airlock.com/tested-kube-versions: ">=1.%d.0-0 <1.%d.0-0"`, oldest, newest+1)+"\n",
		"Chart.yaml's tested-kube-versions is the matrix' range")
	notes, err := os.ReadFile(filepath.Join(root, chartPath, "templates", "NOTES.txt"))
	require.NoError(t, err)
	assert.Contains(t, string(notes), `include "lsw.untestedKubeVersion"`, "NOTES.txt says when the version is untested")

	const untested = "is outside the versions this chart is tested on"
	for _, mode := range []string{"webhook", "policy", "both"} {
		for _, version := range []string{fmt.Sprintf("1.%d.9", oldest-1), fmt.Sprintf("1.%d", oldest-1), ""} {
			args := append([]string{"template", release, chartPath, "--namespace", namespace}, preloaded...)
			args = append(args, "--set", "admission.mode="+mode)
			if version != "" {
				args = append(args, "--kube-version", version)
			}
			// not renderErr: it would add --kube-version
			out, err := runHelm(t.Context(), t, "", args...)
			require.Error(t, err, "%s on %q rendered:\n%s", mode, version, out)
			assert.Contains(t, err.Error(), "chart requires kubeVersion: >=1.")
			assert.Contains(t, err.Error(), "which is incompatible with Kubernetes v")
		}
		for _, version := range append([]string{fmt.Sprintf("1.%d.0", oldest), fmt.Sprintf("v1.%d.2-gke.1200", oldest)}, versions...) {
			out, err := renderErr(t, "--set", "admission.mode="+mode, "--kube-version", version)
			if assert.NoError(t, err, "%s on %s", mode, version) {
				assert.NotContains(t, out, untested, "%s on %s", mode, version)
			}
		}
		for _, version := range []string{fmt.Sprintf("1.%d.0", newest+1), "1.40.0", fmt.Sprintf("v1.%d.1-eks.3", newest+1)} {
			out, err := renderErr(t, "--set", "admission.mode="+mode, "--kube-version", version)
			if assert.NoError(t, err, "%s on %s: a newer Kubernetes must not lock the chart out", mode, version) {
				assert.Regexp(t, `(?m)^# WARNING: Kubernetes v1\.[0-9]+\.[0-9]+ `+untested, out, "%s on %s", mode, version)
			}
		}
	}
}

// TestAdmissionModeValues: values.schema.json and the templates refuse what
// kube-apiserver would.
func TestAdmissionModeValues(t *testing.T) {
	for _, tc := range []struct{ set, want string }{
		{"admission.mode=webhooks", "value must be one of 'webhook', 'policy', 'both'"},
		{"admission.policy.validationActions={Block}", "/admission/policy/validationActions/0"},
		{"admission.policy.validationActions={Deny,Deny}", "/admission/policy/validationActions"},
		{"admission.policy.validationActions=null", "missing property 'validationActions'"},
		{"admission.policy.action=Deny", "additional properties 'action' not allowed"},
		{"admission.policy.validationActions={Deny,Warn}", "Deny and Warn exclude each other"},
		{"clusterChecks.enabled=sometimes", "/clusterChecks/enabled"},
	} {
		t.Run(tc.set, func(t *testing.T) {
			out, err := renderErr(t, "--kube-version", renderKubeVersion, "--set", "admission.mode=policy", "--set", tc.set)
			require.Error(t, err, "rendered:\n%s", out)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
	out, err := runHelm(t.Context(), t, "", "lint", "--strict", chartPath, "--kube-version", renderKubeVersion, "--set", "admission.mode=both")
	require.NoError(t, err, out)
	out, err = runHelm(t.Context(), t, "", "lint", "--strict", chartPath, "--kube-version", renderKubeVersion, "--set", "admission.mode=policy")
	require.NoError(t, err, out)
}

// serverVersion is the test cluster's kube-apiserver version, for helm
// template's --kube-version.
func serverVersion(t testing.TB, c *localcluster.Cluster) string {
	t.Helper()
	dc, err := discovery.NewDiscoveryClientForConfig(c.Config)
	require.NoError(t, err)
	v, err := dc.ServerVersion()
	require.NoError(t, err)
	return v.GitVersion
}

// TestAdmissionModesServerSideDryRun: kube-apiserver accepts every object
// each mode renders (strict field validation, no warnings), the policy's CEL
// included: kube-apiserver compiles it when the policy is created.
func TestAdmissionModesServerSideDryRun(t *testing.T) {
	c := cluster(t)
	ctx := t.Context()
	cl, warn := warningClient(t, c)
	ensureNamespace(ctx, t, cl, namespace)
	version := serverVersion(t, c)

	for _, tc := range []struct {
		name string
		args []string
		want int
	}{
		{"webhook", []string{"--set", "admission.mode=webhook"}, 13},
		{"policy", []string{"--set", "admission.mode=policy"}, 6}, // each binding's warn twin too
		{"policy, scoped to Airlock's Gateways", []string{"--set", "admission.mode=policy,admission.policy.gateways={infra/airlock,team-a/*}"}, 6},
		{"policy, Warn and Audit, selectors", []string{"--set", "admission.mode=policy,admission.policy.validationActions={Warn,Audit}",
			"--set", "webhook.namespaceSelector.matchLabels.env=prod,webhook.objectSelector.matchLabels.team=edge"}, 4},
		{"both, cert-manager", []string{"--set", "admission.mode=both"}, 19},
		{"both, self-bootstrapped, every option", append([]string{"--set", "admission.mode=both,certManager.enabled=false,clusterChecks.strict=true"}, everyOption...), 24}, // with the caBundle fence and its binding
	} {
		t.Run(tc.name, func(t *testing.T) {
			objs := render(t, append([]string{"--kube-version", version}, tc.args...)...)
			assert.Len(t, objs, tc.want, "%v", objs.ids())
			for _, u := range objs {
				err := cl.Create(ctx, u.DeepCopy(), client.DryRunAll, client.FieldValidation(metav1.FieldValidationStrict))
				assert.NoError(t, err, "%s/%s", u.GetKind(), u.GetName())
			}
			assert.Empty(t, warn.take(), "kube-apiserver warned")
		})
	}

	// The dry-run catches a broken policy: kube-apiserver compiles the CEL.
	vap := renderMode(t, "policy").get(t, "ValidatingAdmissionPolicy", fullname).DeepCopy()
	validations := vap.Object["spec"].(map[string]any)["validations"].([]any)
	validations[0].(map[string]any)["expression"] = "object.spec.listeners.all(l, l.port >"
	err := cl.Create(ctx, vap, client.DryRunAll, client.FieldValidation(metav1.FieldValidationStrict))
	assert.ErrorContains(t, err, "compilation failed")
}

// policyDenied is kube-apiserver's message when the release's policy denies.
func policyDenied(name string) string {
	return "ValidatingAdmissionPolicy '" + name + "' with binding '" + name + "' denied request: "
}

// TestPolicyModeEndToEnd installs the chart in mode policy with the real
// helm: only the two policies, their bindings and the bindings' warn twins
// are installed, nothing runs, and
// kube-apiserver denies an invalid ListenerSet by the policy (422 Invalid,
// the field path in the message), admits a valid one, and leaves namespaces
// outside the binding's selector alone. admission.addNames adds the curve
// X448: kube-apiserver admits it, and denies an unknown curve beside it.
func TestPolicyModeEndToEnd(t *testing.T) {
	c := cluster(t)
	ctx := t.Context()
	admin := c.Client
	const (
		ns     = "lsw-pol"
		appNS  = "lsw-pol-apps"
		other  = "lsw-pol-other"
		scopes = "pol"
	)
	ensureLabelledNamespace(ctx, t, admin, appNS, map[string]string{"lsw-e2e": scopes})
	ensureLabelledNamespace(ctx, t, admin, other, nil)
	rel := installChart(ctx, t, c, "pol", ns, "--set", "admission.mode=policy,admission.addNames.ecdhCurves={X448}",
		"--set-string", "webhook.namespaceSelector.matchLabels.lsw-e2e="+scopes)
	t.Cleanup(func() {
		_, _ = runHelm(context.Background(), t, c.KubeconfigPath, "uninstall", rel.name, "--namespace", ns)
	})

	manifest, err := decodeObjects(rel.helm(ctx, t, "get", "manifest", rel.name))
	require.NoError(t, err)
	declarations := policy.DeclarationsPrefix + rel.fullname()
	assert.Equal(t, []string{"ValidatingAdmissionPolicy/" + rel.fullname(), "ValidatingAdmissionPolicy/" + declarations,
		"ValidatingAdmissionPolicyBinding/" + rel.fullname(), "ValidatingAdmissionPolicyBinding/" + rel.fullname() + "-warn",
		"ValidatingAdmissionPolicyBinding/" + declarations, "ValidatingAdmissionPolicyBinding/" + declarations + "-warn"}, manifest.ids())
	status := rel.helm(ctx, t, "status", rel.name)
	assert.Contains(t, status, "deployed")
	assert.Contains(t, status, "The ValidatingAdmissionPolicies "+rel.fullname()+" and "+declarations+" and their bindings (Deny)", "the NOTES say what judges")
	assert.NotContains(t, status, "Certificates:", "no webhook, no certificates in the NOTES")

	eventually(t, 30*time.Second, "kube-apiserver enforces the policy", func() error {
		return deniedByPolicy(admin.Create(ctx, listenerSet(appNS, "bad", false), client.DryRunAll), rel.fullname())
	})
	err = admin.Create(ctx, listenerSet(appNS, "bad", false), client.DryRunAll)
	require.Error(t, err)
	assert.True(t, apierrors.IsInvalid(err), "422 Invalid: %v", err)
	assert.Contains(t, err.Error(), policyDenied(rel.fullname()))
	assert.Contains(t, err.Error(), "spec.listeners[0].protocol")
	require.NoError(t, admin.Create(ctx, listenerSet(appNS, "good", true)), "a valid ListenerSet is stored")
	// admission.addNames: the added curve is admitted, an unknown one not
	assert.NoError(t, admin.Create(ctx, curveListenerSet(appNS, "added-curve", "X448,X25519"), client.DryRunAll), "the curve admission.addNames adds")
	err = admin.Create(ctx, curveListenerSet(appNS, "unknown-curve", "X448,X449"), client.DryRunAll)
	require.Error(t, err, "an unknown curve beside the added one")
	assert.Contains(t, err.Error(), `Unsupported value: "X449": supported values: "X25519MLKEM768", "X25519", "P-256", "P-384", "P-521", "X448"`)
	assert.NoError(t, admin.Create(ctx, listenerSet(other, "bad", false), client.DryRunAll),
		"a namespace outside the binding's selector is not judged")

	// The real kubectl prints the denial like any validation error.
	r := c.Kubectl(ctx, `apiVersion: gateway.networking.k8s.io/v1
kind: ListenerSet
metadata: {name: bad-kubectl, namespace: `+appNS+`}
spec:
  parentRef: {name: gw}
  listeners:
  - {name: web, protocol: TCP, port: 8080}
`, "apply", "-f", "-")
	require.Error(t, r.Err)
	t.Logf("kubectl apply:\n%s", r.Output())
	assert.Contains(t, r.Output(), policyDenied(rel.fullname()))
	assert.Contains(t, r.Output(), "spec.listeners[0].protocol")

	// helm uninstall removes the policy: the invalid one passes again.
	rel.helm(ctx, t, "uninstall", rel.name)
	eventually(t, 30*time.Second, "the policy is gone", func() error {
		return admin.Create(ctx, listenerSet(appNS, "bad", false), client.DryRunAll)
	})
}

// TestBothModeEndToEnd installs the chart in mode both (self-bootstrapped
// certificates) with the real helm and runs a webhook replica with the
// Deployment's args and the ServiceAccount's identity behind the Service.
// With the webhook up, the policy denies an invalid ListenerSet and the
// webhook adds its cluster-aware warning to a valid one. With the webhook
// down, kube-apiserver fails open (Ignore): the valid one is admitted at
// once, without the warning, and the policy still denies the invalid one.
func TestBothModeEndToEnd(t *testing.T) {
	c := cluster(t)
	ctx := t.Context()
	admin := c.Client
	const (
		ns     = "lsw-both"
		appNS  = "lsw-both-apps"
		scopes = "both"
	)
	ensureLabelledNamespace(ctx, t, admin, appNS, map[string]string{"lsw-e2e": scopes})
	rel := installChart(ctx, t, c, "both", ns, "--set", "admission.mode=both,certManager.enabled=false",
		"--set-string", "webhook.namespaceSelector.matchLabels.lsw-e2e="+scopes)
	t.Cleanup(func() {
		_, _ = runHelm(context.Background(), t, c.KubeconfigPath, "uninstall", rel.name, "--namespace", ns)
	})
	cl, warn := warningClient(t, c)

	// Nothing serves yet, and writes pass the webhooks (Ignore); the policy
	// already denies.
	eventually(t, 30*time.Second, "kube-apiserver enforces the policy", func() error {
		return deniedByPolicy(cl.Create(ctx, listenerSet(appNS, "bad", false), client.DryRunAll), rel.fullname())
	})
	require.NoError(t, cl.Create(ctx, listenerSet(appNS, "early", true), client.DryRunAll), "no webhook yet: Ignore")

	dep := rel.deployment(ctx, t, admin)
	pod := dep.Spec.Template.Spec
	args := parseServe(t, pod.Containers[0].Args)
	require.Equal(t, "true", args["cluster-checks"])
	kubeconfig := serviceAccountKubeconfig(t, c, ns, pod.ServiceAccountName)
	r := newReplica(t, "r0", pod.Containers[0].Args, "--kubeconfig="+kubeconfig)
	r.start(t)
	r.waitReady(t, 90*time.Second)
	slice := endpointSlice(ctx, t, admin, rel, r, hostIP(t))
	t.Cleanup(func() { _ = admin.Delete(context.Background(), slice) })

	// The webhook answers: its cluster-aware warning (no Gateway "gw" in the
	// namespace) comes with the valid ListenerSet, once its view has synced.
	notFound := "spec.parentRef.name: Gateway " + appNS + "/gw not found"
	eventually(t, 60*time.Second, "the webhook's cluster-aware warning", func() error {
		warn.take()
		if err := cl.Create(ctx, listenerSet(appNS, "good", true), client.DryRunAll); err != nil {
			return err
		}
		for _, w := range warn.take() {
			if strings.Contains(w, notFound) {
				return nil
			}
		}
		return errNoWarning
	})
	err := cl.Create(ctx, listenerSet(appNS, "bad", false), client.DryRunAll)
	assert.Contains(t, err.Error(), policyDenied(rel.fullname()), "the policy denies before the webhook is asked")
	assert.Positive(t, r.requests(t)[admission.ValidatePath])

	// The webhook goes down: writes do not wait for it, and the policy still denies.
	r.stop(t)
	for i := range 5 {
		warn.take()
		start := time.Now()
		require.NoError(t, cl.Create(ctx, listenerSet(appNS, "during-outage", true), client.DryRunAll), "write %d with the webhook down", i)
		assert.Less(t, time.Since(start), 5*time.Second, "kube-apiserver does not wait out the webhook's timeout")
		for _, w := range warn.take() {
			assert.NotContains(t, w, notFound, "no webhook, no cluster-aware warning")
		}
		err := cl.Create(ctx, listenerSet(appNS, "bad-during-outage", false), client.DryRunAll)
		require.Error(t, err)
		assert.True(t, apierrors.IsInvalid(err), "%v", err)
		assert.Contains(t, err.Error(), policyDenied(rel.fullname()))
		assert.Contains(t, err.Error(), "spec.listeners[0].protocol")
	}
}

var errNoWarning = errors.New("no cluster-aware warning yet")

// deniedByPolicy is nil when err is the denial of the policy named name.
func deniedByPolicy(err error, name string) error {
	switch {
	case err == nil:
		return errors.New("admitted")
	case !localcluster.PolicyDenied(err, name):
		return err
	}
	return nil
}

// TestRenderPolicyScope: admission.policy.gateways scopes the policy as
// `kubectl listenerset policy --gateways` does; without it (the default) the
// policy is the generator's unscoped one (TestRenderedPolicyIsTheGenerators
// compares the rest). A list too long for a match condition, or a bad
// entry, is refused.
func TestRenderPolicyScope(t *testing.T) {
	samePolicies := func(objs objects, opts policy.Options, what string) {
		t.Helper()
		opts.PolicyName = fullname
		want, err := policy.Generate(opts)
		require.NoError(t, err)
		for _, pair := range want.Pairs() {
			got := typed[admissionv1.ValidatingAdmissionPolicy](t, objs.get(t, "ValidatingAdmissionPolicy", pair.Policy.Name))
			assert.Equal(t, pair.Policy.Spec, got.Spec, "%s: %s as the generator writes it", what, pair.Policy.Name)
		}
	}
	for _, mode := range []string{"policy", "both"} {
		samePolicies(renderMode(t, mode, "--set", "admission.policy.gateways={infra/airlock,team-a/*}"),
			policy.Options{Gateways: []string{"infra/airlock", "team-a/*"}}, mode+", scoped")
	}
	samePolicies(renderMode(t, "policy", "--set", "admission.policy.gateways=null"), policy.Options{}, "no Gateways: unscoped")

	long := make([]string, 0, 300)
	for i := range cap(long) {
		long = append(long, fmt.Sprintf("namespace-%03d/%s", i, strings.Repeat("g", 240)))
	}
	_, err := renderErr(t, "--set", "admission.mode=policy", "--set", "admission.policy.gateways={"+strings.Join(long, ",")+"}")
	assert.ErrorContains(t, err, "admission.policy.gateways: Too long: may not be more than 65536 bytes")
	_, err = policy.Generate(policy.Options{Gateways: long})
	assert.ErrorContains(t, err, "gateways: Too long: may not be more than 65536 bytes", "the generator's limit is the chart's")
	for _, bad := range []string{"admission.policy.gateways={infra}", "admission.policy.gateways={Infra/gw}", "admission.policy.gateways={infra/gw,infra/gw}",
		"admission.policy.gateways={infra/a b}"} {
		out, err := renderErr(t, "--set", "admission.mode=policy", "--set", bad)
		if assert.Error(t, err, bad) {
			assert.Contains(t, out, "/admission/policy/gateways", bad)
		}
	}
}

// TestPolicyScopeEndToEnd installs the chart in mode policy with
// admission.policy.gateways naming one Airlock Gateway, with the real helm:
// another implementation's ListenerSet (TCP and UDP listeners, two
// certificateRefs) attached to another Gateway is stored, the same attached
// to the Airlock Gateway is denied by the policy; a helm upgrade that lists
// the other Gateway too judges its ListenerSets from then on.
func TestPolicyScopeEndToEnd(t *testing.T) {
	c := cluster(t)
	ctx := t.Context()
	admin := c.Client
	const (
		ns    = "lsw-scope"
		appNS = "lsw-scope-apps"
	)
	ensureLabelledNamespace(ctx, t, admin, appNS, nil)
	rel := installChart(ctx, t, c, "scope", ns, "--set", "admission.mode=policy,admission.policy.gateways={"+appNS+"/airlock}")
	t.Cleanup(func() {
		_, _ = runHelm(context.Background(), t, c.KubeconfigPath, "uninstall", rel.name, "--namespace", ns)
	})

	other := func(name, parent string) *unstructured.Unstructured {
		ls := listenerSet(appNS, name, false)
		spec := ls.Object["spec"].(map[string]any)
		spec["parentRef"] = map[string]any{"name": parent}
		spec["listeners"] = []any{
			map[string]any{"name": "tcp", "protocol": "TCP", "port": int64(5000)},
			map[string]any{"name": "udp", "protocol": "UDP", "port": int64(5001)},
			map[string]any{"name": "https", "protocol": "HTTPS", "port": int64(443), "hostname": "a.example.com",
				"tls": map[string]any{"certificateRefs": []any{map[string]any{"name": "one"}, map[string]any{"name": "two"}}}},
		}
		return ls
	}
	eventually(t, 30*time.Second, "kube-apiserver enforces the policy on the Airlock Gateway's ListenerSet", func() error {
		return deniedByPolicy(admin.Create(ctx, other("airlock-tcp", "airlock"), client.DryRunAll), rel.fullname())
	})
	err := admin.Create(ctx, other("airlock-tcp", "airlock"), client.DryRunAll)
	require.Error(t, err)
	t.Logf("under the Airlock Gateway: %v", err)
	assert.Contains(t, err.Error(), `spec.listeners[0].protocol: Unsupported value: "TCP"`)
	assert.Contains(t, err.Error(), "spec.listeners[2].tls.certificateRefs: Too many: 2")
	require.NoError(t, admin.Create(ctx, other("envoy-tcp", "envoy")), "another implementation's ListenerSet is stored")

	// The platform lists the other Gateway too: judged from then on.
	rel.helm(ctx, t, "upgrade", rel.name, chartPath, "--reuse-values", "--set", "admission.policy.gateways={"+appNS+"/airlock,"+appNS+"/envoy}")
	eventually(t, time.Minute, "a Gateway added to the list is judged", func() error {
		return deniedByPolicy(admin.Create(ctx, other("envoy-2", "envoy"), client.DryRunAll), rel.fullname())
	})
	require.NoError(t, admin.Create(ctx, other("istio-tcp", "istio"), client.DryRunAll), "a Gateway still not listed")
}

// TestRenderDeletionWebhook: with the cluster-aware checks the validating
// configuration has the deletion webhook of admission.Registrations (DELETE
// only, failurePolicy Ignore, a short timeout) whatever webhook.failurePolicy
// and webhook.timeoutSeconds say; without them (it would read no routes)
// it has none.
func TestRenderDeletionWebhook(t *testing.T) {
	reg := admission.Registrations().Deleting
	for _, mode := range []string{"webhook", "both"} {
		m, v := webhookConfigs(t, renderMode(t, mode, "--set", "clusterChecks.enabled=true,webhook.failurePolicy=Fail,webhook.timeoutSeconds=10"))
		require.Len(t, v.Webhooks, 5, "%s: validating, deletion, routes and the warn twins of the two that deny", mode)
		d := v.Webhooks[1]
		assert.Equal(t, reg.Name, d.Name)
		assert.Equal(t, reg.Path, *d.ClientConfig.Service.Path)
		assert.Equal(t, reg.Rules, d.Rules)
		assert.Equal(t, admissionv1.Ignore, *d.FailurePolicy)
		assert.Equal(t, int32(admission.DeletionTimeoutSeconds), *d.TimeoutSeconds)
		assert.Equal(t, m.Webhooks[0].NamespaceSelector, d.NamespaceSelector, "the namespaces judged: it denies nothing, so no twin")
		assert.Equal(t, []admissionv1.OperationType{admissionv1.Delete}, d.Rules[0].Operations)
	}
	_, v := webhookConfigs(t, render(t))
	assert.Len(t, v.Webhooks, 2, "no cluster checks, no deletion webhook: the validating one and its twin")
}

// TestRenderRouteWebhook: with the cluster-aware checks, in every mode that
// runs the webhook, the validating configuration has the HTTPRoute webhook
// of admission.Registrations (creates and updates of httproutes, called
// for routes naming a ListenerSet), with the validating webhook's
// failurePolicy: Fail in mode webhook, open (Ignore) with enforcement
// warn and in mode both; without them it has none.
func TestRenderRouteWebhook(t *testing.T) {
	reg := admission.Registrations().Routes
	for _, tc := range []struct {
		mode, set string
		policy    admissionv1.FailurePolicyType
		twins     bool // enforcement deny: the warn twins
	}{
		{"webhook", "clusterChecks.enabled=true", admissionv1.Fail, true},
		{"webhook", "clusterChecks.enabled=true,webhook.enforcement=warn", admissionv1.Ignore, false},
		{"both", "clusterChecks.enabled=true", admissionv1.Ignore, true},
	} {
		_, v := webhookConfigs(t, renderMode(t, tc.mode, "--set", tc.set))
		if tc.twins {
			require.Len(t, v.Webhooks, 5, tc.mode)
			checkWarnTwin(t, v.Webhooks[2], v.Webhooks[4], reg.Warn, enforcementLabel)
		} else {
			require.Len(t, v.Webhooks, 3, tc.mode)
		}
		r := v.Webhooks[2]
		assert.Equal(t, reg.Name, r.Name)
		assert.Equal(t, reg.Path, *r.ClientConfig.Service.Path)
		assert.Equal(t, reg.Rules, r.Rules)
		assert.Equal(t, reg.MatchConditions, r.MatchConditions)
		assert.Equal(t, tc.policy, *r.FailurePolicy, "%s %s", tc.mode, tc.set)
		assert.Equal(t, v.Webhooks[0].FailurePolicy, r.FailurePolicy, "the validating webhook's")
		assert.Equal(t, v.Webhooks[0].NamespaceSelector, r.NamespaceSelector, "the same namespaces")
	}
}
