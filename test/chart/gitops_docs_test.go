package chart

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"
)

// gitopsObjects are the objects of docs/gitops.md's yaml blocks under heading.
func gitopsObjects(t *testing.T, heading string) objects {
	t.Helper()
	var objs objects
	for _, b := range docBlocksOf(t, "docs/gitops.md", heading, "yaml") {
		o, err := decodeObjects(b)
		require.NoError(t, err, b)
		objs = append(objs, o...)
	}
	return objs
}

// TestGitOpsManifests reads docs/gitops.md's Argo CD and Flux manifests:
// cert-manager and the Prometheus Operator's CRDs before the chart (Argo
// CD's sync waves of Applications, Flux's dependsOn), the chart's signature
// verified where the tool can (Flux's OCIRepository verify with the
// release's key as a Secret; Argo CD cannot, the page says so), the helm
// test where the tool runs it (Flux); then renders the chart with each
// tool's release name, namespace and values and has kube-apiserver accept
// every object as the tool would write it: server-side apply as
// argocd-controller, a create as helm-controller's helm install (dry runs,
// strict field validation). The controllers themselves are not run here.
func TestGitOpsManifests(t *testing.T) {
	argo := gitopsObjects(t, "Argo CD")
	flux := gitopsObjects(t, "Flux")

	wave := func(u *unstructured.Unstructured) string { return u.GetAnnotations()["argocd.argoproj.io/sync-wave"] }
	apps := argo.ofKind("Application")
	require.Len(t, apps, 3, "%v", argo.ids())
	assert.Equal(t, []string{"-2", "-1", "0"}, []string{wave(apps.get(t, "Application", "cert-manager")),
		wave(apps.get(t, "Application", "prometheus-operator-crds")), wave(apps.get(t, "Application", imageName))},
		"cert-manager, then the Prometheus Operator's CRDs, then the chart")
	app := apps.get(t, "Application", imageName)
	chart, _, _ := unstructured.NestedString(app.Object, "spec", "source", "chart")
	assert.Equal(t, imageName, chart)
	argoValues, _, _ := unstructured.NestedMap(app.Object, "spec", "source", "helm", "valuesObject")
	argoRelease, _, _ := unstructured.NestedString(app.Object, "spec", "source", "helm", "releaseName")
	argoNS, _, _ := unstructured.NestedString(app.Object, "spec", "destination", "namespace")
	assert.Equal(t, false, argoValues["test"].(map[string]any)["enabled"], "Argo CD runs no helm test: none rendered")

	repo := flux.get(t, "OCIRepository", imageName)
	verify, _, _ := unstructured.NestedMap(repo.Object, "spec", "verify")
	assert.Equal(t, "cosign", verify["provider"])
	keyName, _, _ := unstructured.NestedString(repo.Object, "spec", "verify", "secretRef", "name")
	key := flux.get(t, "Secret", keyName)
	assert.Equal(t, repo.GetNamespace(), key.GetNamespace(), "the key beside the OCIRepository")
	pub, _, _ := unstructured.NestedString(key.Object, "stringData", "cosign.pub")
	assert.Contains(t, pub, "BEGIN PUBLIC KEY", "the release's cosign.pub (source-controller reads keys ending in .pub)")
	hr := flux.get(t, "HelmRelease", imageName)
	deps, _, _ := unstructured.NestedSlice(hr.Object, "spec", "dependsOn")
	var depNames []string
	for _, d := range deps {
		depNames = append(depNames, d.(map[string]any)["name"].(string))
	}
	assert.ElementsMatch(t, []string{"cert-manager", "prometheus-operator-crds"}, depNames)
	ref, _, _ := unstructured.NestedString(hr.Object, "spec", "chartRef", "name")
	assert.Equal(t, repo.GetName(), ref)
	testEnabled, _, _ := unstructured.NestedBool(hr.Object, "spec", "test", "enable")
	assert.True(t, testEnabled, "helm-controller runs the chart's helm test")
	fluxValues, _, _ := unstructured.NestedMap(hr.Object, "spec", "values")
	fluxRelease, _, _ := unstructured.NestedString(hr.Object, "spec", "releaseName")

	c := cluster(t)
	ctx := t.Context()
	version := serverVersion(t, c)
	for _, tc := range []struct {
		tool, release, ns string
		values            map[string]any
		write             func(u *unstructured.Unstructured) error
	}{
		{"Argo CD", argoRelease, argoNS, argoValues, func(u *unstructured.Unstructured) error {
			return applyAs(ctx, c.Client, u, client.DryRunAll)
		}},
		{"Flux", fluxRelease, hr.GetNamespace(), fluxValues, func(u *unstructured.Unstructured) error {
			return c.Client.Create(ctx, u, client.DryRunAll, client.FieldOwner("helm-controller"),
				client.FieldValidation(metav1.FieldValidationStrict))
		}},
	} {
		t.Run(tc.tool, func(t *testing.T) {
			ensureNamespace(ctx, t, c.Client, tc.ns)
			b, err := yaml.Marshal(tc.values)
			require.NoError(t, err)
			file := filepath.Join(t.TempDir(), "values.yaml")
			require.NoError(t, os.WriteFile(file, b, 0o644))
			out, err := runHelm(ctx, t, "", templateArgs(tc.release, tc.ns, []string{"--kube-version", version, "-f", file})...)
			require.NoError(t, err)
			objs, err := decodeObjects(out)
			require.NoError(t, err)
			require.NotEmpty(t, objs.ofKind("Deployment"))
			for _, u := range objs {
				if u.GetNamespace() == "" && u.GetKind() != "ValidatingWebhookConfiguration" && u.GetKind() != "MutatingWebhookConfiguration" &&
					!strings.HasPrefix(u.GetKind(), "Cluster") {
					u.SetNamespace(tc.ns) // as the tool sets the destination namespace
				}
				assert.NoError(t, tc.write(u.DeepCopy()), "%s %s/%s", tc.tool, u.GetKind(), u.GetName())
			}
		})
	}
}
