package chart

import (
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/airlock/listenerset-webhook/validation"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/airlock/listenerset-webhook/offline/policyreport"
	"github.com/airlock/listenerset-webhook/test/localcluster"
	"github.com/airlock/listenerset-webhook/test/testproc"
)

// policyReportCRD is the PolicyReport CRD the audit tests apply (its source
// and version are in the file).
var policyReportCRD = filepath.Join("testdata", "policyreport", "wgpolicyk8s.io_policyreports.yaml")

// TestAuditWritesReports: `audit -o jsonl --write-reports` against the
// real kube-apiserver, as a ServiceAccount bound only to the ClusterRoles
// `audit --print-rbac --write-reports` prints. Without the PolicyReport CRD
// the audit reports as always and says on stderr that the reports were
// skipped; with it, each namespace with ListenerSets gets one report with a
// fail result for the stored invalid set (its code as the rule) and a warn
// result LS018 for each set's listener (no controller writes their
// status); after the fix the fail is gone, and the report of a namespace
// whose sets were deleted is deleted. A set whose status agrees with the
// prediction, as a controller would write it, has a pass result.
func TestAuditWritesReports(t *testing.T) {
	c := cluster(t)
	ctx := context.Background()
	bin, err := testproc.PluginBinary()
	require.NoError(t, err, "building cmd/kubectl-listenerset")
	const nsA, nsB, sa = "auditrep-a", "auditrep-b", "auditrep"
	for _, ns := range []string{nsA, nsB} {
		ensureLabelledNamespace(ctx, t, c.Client, ns, nil)
	}
	// No webhook watches these namespaces: the invalid set is stored, as
	// one from before the webhook was installed. Each namespace's Gateway
	// admits its sets, and the sets' ports differ: no warning but the
	// invalid set's error.
	bad, good, other := listenerSet(nsA, "bad", false), auditListenerSet(nsA, "good", 8081), auditListenerSet(nsB, "other", 8080)
	ensureAuditGatewayClass(ctx, t, c.Client)
	for _, obj := range []*unstructured.Unstructured{auditGateway(nsA), auditGateway(nsB), bad, good, other} {
		require.NoError(t, c.Client.Create(ctx, obj))
	}
	t.Cleanup(func() {
		for _, ns := range []string{nsA, nsB} {
			_ = c.Client.DeleteAllOf(ctx, listenerSet(ns, "", true), client.InNamespace(ns))
			_ = c.Client.DeleteAllOf(ctx, auditGateway(ns), client.InNamespace(ns))
		}
	})

	var roles bytes.Buffer
	cmd := exec.Command(bin, "audit", "--print-rbac", "--write-reports")
	cmd.Stdout = &roles
	require.NoError(t, cmd.Run())
	r := c.Kubectl(ctx, roles.String(), "apply", "-f", "-")
	require.NoError(t, r.Err, r.Output())
	for _, role := range []string{"listenerset-audit", "listenerset-audit-reports"} {
		r := c.Kubectl(ctx, "", "create", "clusterrolebinding", "auditrep-"+role, "--clusterrole", role, "--serviceaccount", nsA+":"+sa)
		require.NoError(t, r.Err, r.Output())
		t.Cleanup(func() { c.Kubectl(ctx, "", "delete", "clusterrolebinding", "auditrep-"+role, "--ignore-not-found") })
	}
	kubeconfig := serviceAccountKubeconfig(t, c, nsA, sa)

	audit := func(t *testing.T, wantExit int, args ...string) (lines []map[string]any, stderr string) {
		t.Helper()
		var out, errOut bytes.Buffer
		cmd := exec.Command(bin, append([]string{"audit", "--kubeconfig", kubeconfig, "-o", "jsonl", "--write-reports"}, args...)...)
		cmd.Stdout, cmd.Stderr = &out, &errOut
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else {
			require.NoError(t, err)
		}
		require.Equal(t, wantExit, code, "stdout:\n%s\nstderr:\n%s", out.String(), errOut.String())
		for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
			var m map[string]any
			require.NoError(t, json.Unmarshal([]byte(l), &m), l)
			lines = append(lines, m)
		}
		return lines, errOut.String()
	}
	findings := func(lines []map[string]any) (out []string) {
		for _, l := range lines {
			if l["type"] == "finding" {
				out = append(out, l["namespace"].(string)+"/"+l["name"].(string)+" "+l["code"].(string)+" "+l["severity"].(string))
			}
		}
		return out
	}
	report := func(t *testing.T, ns string) *unstructured.Unstructured {
		t.Helper()
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(schema.GroupVersionKind{Group: policyreport.Group, Version: policyreport.Version, Kind: policyreport.Kind})
		err := c.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: policyreport.ReportName}, u)
		if apierrors.IsNotFound(err) {
			return nil
		}
		require.NoError(t, err)
		return u
	}
	const badFinding = nsA + "/bad LS106 error"

	t.Run("without the CRD", func(t *testing.T) {
		lines, stderr := audit(t, 1)
		assert.Contains(t, findings(lines), badFinding)
		assert.Equal(t, "summary", lines[len(lines)-1]["type"])
		assert.Contains(t, stderr, "PolicyReports skipped: the cluster does not serve PolicyReport wgpolicyk8s.io/v1alpha2")
		assert.Equal(t, 1, strings.Count(stderr, "\n"), "one line: %s", stderr)
	})

	_, err = envtest.InstallCRDs(c.Config, envtest.CRDInstallOptions{Paths: []string{policyReportCRD}})
	require.NoError(t, err)

	t.Run("invalid set stored", func(t *testing.T) {
		lines, stderr := audit(t, 1)
		assert.Contains(t, findings(lines), badFinding)
		assert.Contains(t, stderr, "PolicyReports wgpolicyk8s.io/v1alpha2 listenerset-audit: 2 applied")
		a := report(t, nsA)
		require.NotNil(t, a)
		assert.Equal(t, []string{"bad LS106 fail", "bad LS018 warn", "good LS018 warn"}, results(a))
		assert.Equal(t, policyreport.ManagedBy, a.GetLabels()[policyreport.ManagedByLabel])
		fail, _, _ := unstructured.NestedInt64(a.Object, "summary", "fail")
		assert.EqualValues(t, 1, fail)
		b := report(t, nsB)
		require.NotNil(t, b)
		assert.Equal(t, []string{"other LS018 warn"}, results(b))
	})

	t.Run("fixed, and a namespace emptied", func(t *testing.T) {
		require.NoError(t, c.Client.Delete(ctx, bad))
		require.NoError(t, c.Client.Create(ctx, listenerSet(nsA, "bad", true)))
		require.NoError(t, c.Client.Delete(ctx, other))
		// good's controller reports it Accepted, as predicted.
		accepted := map[string]any{"type": "Accepted", "status": "True", "reason": "Accepted", "message": "",
			"observedGeneration": int64(1), "lastTransitionTime": "2026-01-01T00:00:00Z"}
		require.NoError(t, unstructured.SetNestedField(good.Object, map[string]any{"conditions": []any{accepted},
			"listeners": []any{map[string]any{"name": "web", "attachedRoutes": int64(0), "conditions": []any{accepted}}}}, "status"))
		require.NoError(t, c.Client.Status().Update(ctx, good))
		lines, stderr := audit(t, 0)
		assert.Equal(t, []string{nsA + "/bad LS018 warning"}, findings(lines))
		assert.Contains(t, stderr, "1 applied")
		assert.Contains(t, stderr, "1 stale deleted")
		a := report(t, nsA)
		require.NotNil(t, a)
		assert.Equal(t, []string{"bad LS018 warn", "good all pass"}, results(a))
		assert.Nil(t, report(t, nsB), "the stale report is deleted")
	})

	t.Run("-n touches that namespace only", func(t *testing.T) {
		other := auditListenerSet(nsB, "other", 8080)
		require.NoError(t, c.Client.Create(ctx, other))
		audit(t, 0)
		require.NotNil(t, report(t, nsB))
		require.NoError(t, c.Client.Delete(ctx, other))
		_, stderr := audit(t, 0, "-n", nsA)
		assert.Contains(t, stderr, "1 applied")
		assert.Contains(t, stderr, "0 stale deleted")
		assert.NotNil(t, report(t, nsB), "another namespace's report is the audit of that namespace's to delete")
	})
}

// ensureAuditGatewayClass creates the GatewayClass of auditGateway, Airlock
// Microgateway's, unless it exists, with the status a controller would write:
// the audit judges the ListenerSets of Airlock's Gateways (a class not found
// would add the LS309 note, a class no controller accepted LS317).
func ensureAuditGatewayClass(ctx context.Context, t *testing.T, c client.Client) {
	t.Helper()
	gc := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "gateway.networking.k8s.io/v1",
		"kind":       "GatewayClass",
		"metadata":   map[string]any{"name": "airlock"},
		"spec":       map[string]any{"controllerName": string(validation.AirlockControllerName)},
	}}
	if err := c.Create(ctx, gc); err != nil && !apierrors.IsAlreadyExists(err) {
		require.NoError(t, err)
	}
	require.NoError(t, localcluster.AcceptClass(ctx, c, "airlock"))
}

// auditGateway is the Gateway gw in ns that admits the ListenerSets of ns.
func auditGateway(ns string) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "gateway.networking.k8s.io/v1",
		"kind":       "Gateway",
		"metadata":   map[string]any{"name": "gw", "namespace": ns},
		"spec": map[string]any{
			"gatewayClassName": "airlock",
			"allowedListeners": map[string]any{"namespaces": map[string]any{"from": "Same"}},
			"listeners":        []any{map[string]any{"name": "http", "protocol": "HTTP", "port": int64(80)}},
		},
	}}
}

// auditListenerSet is listenerSet's valid set with its listener on port.
func auditListenerSet(ns, name string, port int64) *unstructured.Unstructured {
	ls := listenerSet(ns, name, true)
	ls.Object["spec"].(map[string]any)["listeners"].([]any)[0].(map[string]any)["port"] = port
	return ls
}

// results are a PolicyReport's results as "set rule result".
func results(u *unstructured.Unstructured) (out []string) {
	rs, _, _ := unstructured.NestedSlice(u.Object, "results")
	for _, r := range rs {
		m := r.(map[string]any)
		res := m["resources"].([]any)[0].(map[string]any)
		out = append(out, res["name"].(string)+" "+m["rule"].(string)+" "+m["result"].(string))
	}
	return out
}
