package e2e

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/airlock/listenerset-webhook/validation"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	rbacv1 "k8s.io/api/rbac/v1"
	"sigs.k8s.io/yaml"

	"github.com/airlock/listenerset-webhook/listing"
	"github.com/airlock/listenerset-webhook/offline/judge"
	"github.com/airlock/listenerset-webhook/offline/report"
	"github.com/airlock/listenerset-webhook/test/testproc"
)

// TestOfflineScope: audit, validate --kubeconfig and listeners --kubeconfig
// against the real kube-apiserver judge only Airlock Microgateway's
// ListenerSets, by the GatewayClasses the cluster stores, as the webhook
// with the same --scope does. testdata/scope.yaml is stored with the
// webhook unregistered: the same set (TCP, two certificateRefs) on a
// Gateway of Airlock's class, of another implementation's and of a class
// that does not exist.
func TestOfflineScope(t *testing.T) {
	requireCluster(t)
	bin, err := testproc.PluginBinary()
	require.NoError(t, err, "building cmd/kubectl-listenerset")
	ctx := context.Background()
	t.Cleanup(func() {
		kubectl(t, "", "delete", "listenersets.gateway.networking.k8s.io", "--all", "-n", "osc-team", "--ignore-not-found")
		kubectl(t, "", "delete", "gateways.gateway.networking.k8s.io", "--all", "-n", "osc-infra", "--ignore-not-found")
		kubectl(t, "", "delete", "gatewayclasses.gateway.networking.k8s.io", "osc-envoy", "--ignore-not-found")
	})
	require.NoError(t, cluster.UnregisterWebhooks(ctx, namespace))
	r := kubectl(t, "", "apply", "-f", filepath.Join(root, "test", "e2e", "testdata", "scope.yaml"))
	require.NoError(t, cluster.RegisterWebhooks(ctx, endpoint, namespace), "re-registering the webhook: later tests need it")
	require.NoError(t, r.Err, r.Output())

	kc := cluster.KubeconfigPath
	auditJSON := func(t *testing.T, wantExit int, args ...string) map[string]judge.Result {
		t.Helper()
		out, _ := runAudit(t, bin, wantExit, append([]string{"audit", "--kubeconfig", kc, "-n", "osc-team", "-o", "json"}, args...)...)
		var rep report.Report
		require.NoError(t, json.Unmarshal([]byte(out), &rep), out)
		byName := map[string]judge.Result{}
		for _, res := range rep.Results {
			byName[res.Name] = res
		}
		require.Len(t, byName, 3, out)
		return byName
	}
	hasNote := func(r judge.Result) bool {
		for _, w := range r.Warnings {
			if w.Code == string(validation.CodeScopeUnknown) {
				return true
			}
		}
		return false
	}

	t.Run("audit: another implementation's set has no finding", func(t *testing.T) {
		res := auditJSON(t, report.ExitInvalid)
		assert.False(t, res["on-airlock"].Valid, "Airlock's class: judged")
		assert.True(t, res["on-envoy"].Valid, "another implementation's: not judged")
		assert.Empty(t, res["on-envoy"].Warnings)
		assert.Equal(t, validation.OutcomeOther, res["on-envoy"].Scope)
		assert.False(t, res["on-missing"].Valid, "unknown class: judged (--unknown-parent=judge, the default)")
		assert.True(t, hasNote(res["on-missing"]), "and told why: %+v", res["on-missing"].Warnings)

		_, errOut := runAudit(t, bin, report.ExitInvalid, "audit", "--kubeconfig", kc, "-n", "osc-team")
		assert.Contains(t, errOut, "note: 1 ListenerSet(s) not Airlock Microgateway's")
	})

	t.Run("audit: --unknown-parent=admit", func(t *testing.T) {
		res := auditJSON(t, report.ExitInvalid, "--unknown-parent=admit")
		assert.True(t, res["on-missing"].Valid)
		assert.Equal(t, validation.OutcomeUnknownAdmitted, res["on-missing"].Scope)
		assert.True(t, hasNote(res["on-missing"]))
		assert.False(t, res["on-airlock"].Valid)
	})

	t.Run("audit: --scope=all judges every set", func(t *testing.T) {
		res := auditJSON(t, report.ExitInvalid, "--scope=all")
		for name, r := range res {
			assert.False(t, r.Valid, name)
			assert.Empty(t, r.Scope, name)
		}
	})

	t.Run("audit: the printed rules suffice for the scope", func(t *testing.T) {
		role, _ := runAudit(t, bin, report.ExitValid, "audit", "--print-rbac")
		assert.Contains(t, role, "gatewayclasses")
		const user = "e2e-scope-auditor"
		grant(t, user, typedRules(t, role))
		asUser := listOnlyKubeconfig(t, user)
		want, _ := runAudit(t, bin, report.ExitInvalid, "audit", "--kubeconfig", kc, "-n", "osc-team", "-o", "json")
		got, _ := runAudit(t, bin, report.ExitInvalid, "audit", "--kubeconfig", asUser, "-n", "osc-team", "-o", "json")
		assert.JSONEq(t, want, got)

		// The rules --scope=all prints do not list GatewayClasses: the
		// default scope cannot run with them.
		const less = "e2e-scope-auditor-all"
		unscoped, _ := runAudit(t, bin, report.ExitValid, "audit", "--print-rbac", "--scope=all")
		assert.NotContains(t, unscoped, "gatewayclasses")
		grant(t, less, typedRules(t, unscoped))
		lessKC := listOnlyKubeconfig(t, less)
		out, _ := runAudit(t, bin, report.ExitInputError, "audit", "--kubeconfig", lessKC, "-n", "osc-team", "-o", "json")
		assert.Contains(t, out, "listing GatewayClasses")
		runAudit(t, bin, report.ExitInvalid, "audit", "--kubeconfig", lessKC, "-n", "osc-team", "--scope=all", "-o", "json")
	})

	files := filepath.Join(root, "test", "e2e", "testdata", "scope-files")
	t.Run("validate --kubeconfig: another implementation's change is not judged", func(t *testing.T) {
		out, errOut := runAudit(t, bin, report.ExitValid, "validate", "-f", files, "--kubeconfig", kc)
		assert.Contains(t, out, "1 ListenerSets judged against the cluster (0 invalid): 0 introduced (0 errors), 0 unchanged, 0 fixed\n")
		assert.Contains(t, errOut, "note: 1 ListenerSet(s) not Airlock Microgateway's")

		// Judged as Airlock's: the UDP listener is an introduced error,
		// the TCP one unchanged.
		out, _ = runAudit(t, bin, report.ExitInvalid, "validate", "-f", files, "--kubeconfig", kc, "--scope=all")
		assert.Contains(t, out, `error: ListenerSet osc-team/on-envoy: spec.listeners[2].protocol: Unsupported value: "UDP"`)
		assert.Contains(t, out, "unchanged (2):\n")
	})

	t.Run("listeners --kubeconfig leaves another implementation's Gateway out", func(t *testing.T) {
		out, errOut := runAudit(t, bin, listing.ExitOK, "listeners", "--kubeconfig", kc, "--gateway", "osc-infra/envoy-gw")
		assert.Empty(t, out)
		assert.Contains(t, errOut, `note: 1 Gateway(s) left out, not Airlock Microgateway's (--scope=all lists them): osc-infra/envoy-gw (GatewayClass "osc-envoy" names gateway.envoyproxy.io/gatewayclass-controller)`)
		out, _ = runAudit(t, bin, listing.ExitOK, "listeners", "--kubeconfig", kc, "--gateway", "osc-infra/envoy-gw", "--scope=all")
		assert.Contains(t, out, "ListenerSet/osc-team/on-envoy")

		out, _ = runAudit(t, bin, listing.ExitOK, "listeners", "--kubeconfig", kc, "--gateway", "osc-infra/missing-gw")
		assert.Contains(t, out, "ListenerSet/osc-team/on-missing", "an unknown class is listed (--unknown-parent=judge)")
		_, errOut = runAudit(t, bin, listing.ExitOK, "listeners", "--kubeconfig", kc, "--gateway", "osc-infra/missing-gw", "--unknown-parent=admit")
		assert.Contains(t, errOut, `osc-infra/missing-gw (GatewayClass "osc-missing" is unknown, --unknown-parent=admit)`)
	})
}

// typedRules are the rules of the ClusterRole --print-rbac printed.
func typedRules(t *testing.T, printed string) []rbacv1.PolicyRule {
	t.Helper()
	var role rbacv1.ClusterRole
	require.NoError(t, yaml.Unmarshal([]byte(printed), &role), printed)
	require.NotEmpty(t, role.Rules)
	return role.Rules
}
