package chart

import (
	"context"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// renderWithTests is render with the helm test's hooks (templates/tests).
func renderWithTests(t testing.TB, ns string, args ...string) objects {
	t.Helper()
	out, err := runHelm(context.Background(), t, "", withTests(templateArgs(release, ns, args))...)
	require.NoError(t, err)
	objs, err := decodeObjects(out)
	require.NoError(t, err)
	return objs
}

// withTests are helm template's arguments a without --skip-tests.
func withTests(a []string) []string {
	return slices.DeleteFunc(a, func(s string) bool { return s == "--skip-tests" })
}

// testHooks are the objects of objs that are helm test hooks.
func testHooks(objs objects) objects {
	var out objects
	for _, u := range objs {
		if u.GetAnnotations()["helm.sh/hook"] == "test" {
			out = append(out, u)
		}
	}
	return out
}

// TestHelmTestHook: the chart's helm test (docs/upgrade.md, the README) is
// a pod of the image running `kubectl listenerset check` with create on
// ListenerSets in test.namespace only, expecting the webhook's answer, or
// the policy's in policy mode; every object is a test hook, deleted once it
// passed, never part of what helm install applies.
func TestHelmTestHook(t *testing.T) {
	objs := renderWithTests(t, namespace)
	hooks := testHooks(objs)
	assert.ElementsMatch(t, []string{"ServiceAccount/" + fullname + "-test", "Role/" + fullname + "-test",
		"RoleBinding/" + fullname + "-test", "Pod/" + fullname + "-test", "NetworkPolicy/" + fullname + "-test"}, hooks.ids())
	assert.Empty(t, testHooks(render(t)), "helm install applies no test hook (--skip-tests renders)")
	for _, u := range hooks {
		assert.Equal(t, "before-hook-creation,hook-succeeded", u.GetAnnotations()["helm.sh/hook-delete-policy"], u.GetName())
	}
	pod := hooks.get(t, "Pod", fullname+"-test")
	assert.Equal(t, "0", pod.GetAnnotations()["helm.sh/hook-weight"], "after its account and role (-1)")
	container := func(pod *unstructured.Unstructured) map[string]any {
		cs, _, _ := unstructured.NestedSlice(pod.Object, "spec", "containers")
		require.Len(t, cs, 1)
		return cs[0].(map[string]any)
	}
	assert.Equal(t, []any{"/kubectl-listenerset"}, container(pod)["command"])
	assert.Equal(t, []any{"check", "--namespace=default", "--expect=webhook"}, container(pod)["args"])
	role := hooks.get(t, "Role", fullname+"-test")
	assert.Equal(t, "default", role.GetNamespace())
	rules, _, _ := unstructured.NestedSlice(role.Object, "rules")
	assert.Equal(t, []any{map[string]any{"apiGroups": []any{"gateway.networking.k8s.io"}, "resources": []any{"listenersets"},
		"verbs": []any{"create"}}}, rules, "create on ListenerSets, nothing else")

	for _, tc := range []struct {
		args   []string
		expect string
	}{
		{[]string{"--set", "admission.mode=policy", "--set", "image.repository=registry.example/lsw"}, "policy"},
		{[]string{"--set", "admission.mode=both", "--set", "test.namespace=team-a", "--set", "test.gateway=infra/airlock"}, "any"},
	} {
		pod := testHooks(renderWithTests(t, namespace, tc.args...)).get(t, "Pod", fullname+"-test")
		args := container(pod)["args"].([]any)
		assert.Contains(t, args, "--expect="+tc.expect, "%v", tc.args)
	}
	args := container(testHooks(renderWithTests(t, namespace, "--set", "test.namespace=team-a", "--set", "test.gateway=infra/airlock")).
		get(t, "Pod", fullname+"-test"))["args"]
	assert.Equal(t, []any{"check", "--namespace=team-a", "--gateway=infra/airlock", "--expect=webhook"}, args)
	// Policy mode without an image of its own: no test, rather than a render that fails on image.repository.
	assert.Empty(t, testHooks(renderWithTests(t, namespace, "--set", "admission.mode=policy", "--set", "image.preloaded=false")))
	assert.Empty(t, testHooks(renderWithTests(t, namespace, "--set", "test.enabled=false")))
	assert.Empty(t, testHooks(renderWithTests(t, namespace, "--set", "networkPolicy.enabled=false")).ofKind("NetworkPolicy"))

	for _, ns := range []string{namespace, "kube-system"} {
		out, err := runHelm(context.Background(), t, "", withTests(templateArgs(release, namespace, []string{"--set", "test.namespace=" + ns}))...)
		require.Error(t, err, out)
		assert.Contains(t, err.Error(), "test.namespace is "+ns+", which the webhooks and the policy never judge")
	}
}

// TestHelmTestHookRestricted: kube-apiserver admits the test's objects into
// a namespace whose PodSecurity is enforced at restricted (a dry run).
func TestHelmTestHookRestricted(t *testing.T) {
	c := cluster(t)
	ctx := t.Context()
	const ns = "lsw-helmtest-restricted"
	ensureLabelledNamespace(ctx, t, c.Client, ns, map[string]string{"pod-security.kubernetes.io/enforce": "restricted"})
	hooks := testHooks(renderWithTests(t, ns, "--kube-version", serverVersion(t, c)))
	require.Len(t, hooks, 5)
	cl, warn := warningClient(t, c)
	for _, u := range hooks {
		err := cl.Create(ctx, u.DeepCopy(), client.DryRunAll, client.FieldValidation(metav1.FieldValidationStrict))
		assert.NoError(t, err, "%s/%s", u.GetKind(), u.GetName())
	}
	assert.Empty(t, warn.take(), "kube-apiserver warned")
	// The check: a pod that breaks restricted is refused there.
	pod := hooks.get(t, "Pod", fullname+"-test").DeepCopy()
	require.NoError(t, unstructured.SetNestedField(pod.Object, nil, "spec", "securityContext", "seccompProfile"))
	err := cl.Create(ctx, pod, client.DryRunAll)
	assert.ErrorContains(t, err, `violates PodSecurity "restricted:latest"`)
}
