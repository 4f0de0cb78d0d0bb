package chart

import (
	"testing"

	"github.com/airlock/listenerset-webhook/validation"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/airlock/listenerset-webhook/webhook/clusterview"
)

// TestRenderClusterView: scope.* become the serve flags --scope,
// --controller-names and --unknown-parent, clusterChecks.* --cluster-checks,
// --strict and --watch-secrets; a token is mounted in either certificate
// mode while either needs the API, and the one ClusterRole has exactly
// clusterview.RBACRules of what the webhook watches (the rules the
// end-to-end tests run the view with): gateways and gatewayclasses for the
// scope (on by default), the cluster-aware checks' kinds with them, list
// and watch on secrets only with clusterChecks.secrets. With both off,
// nothing is read and nothing is granted.
func TestRenderClusterView(t *testing.T) {
	const role = fullname + "-cluster-view"
	flags := func(objs objects) map[string]string {
		return parseServe(t, typed[appsv1.Deployment](t, objs.get(t, "Deployment", fullname)).Spec.Template.Spec.Containers[0].Args)
	}

	for _, tc := range []struct {
		set                string
		watch              clusterview.Watch
		names, unknown     string
		certManagerEnabled bool
	}{
		{set: "", watch: clusterview.Watch{Scope: true}, certManagerEnabled: true},
		{set: "scope.controllerNames={microgateway.airlock.com/a,microgateway.airlock.com/b},scope.unknownParent=admit",
			watch: clusterview.Watch{Scope: true}, names: "microgateway.airlock.com/a,microgateway.airlock.com/b", unknown: "admit", certManagerEnabled: true},
		{set: "clusterChecks.enabled=true", watch: clusterview.Watch{Scope: true, Cluster: true}, certManagerEnabled: true},
		{set: "scope.enabled=false,clusterChecks.enabled=true,clusterChecks.strict=true,clusterChecks.secrets=true",
			watch: clusterview.Watch{Cluster: true, Secrets: true}, certManagerEnabled: true},
		{set: "clusterChecks.enabled=true,clusterChecks.secrets=true,certManager.enabled=false", watch: clusterview.Watch{Scope: true, Cluster: true, Secrets: true}},
	} {
		t.Run(tc.set, func(t *testing.T) {
			objs := render(t)
			if tc.set != "" {
				objs = render(t, "--set", tc.set)
			}
			fs := flags(objs)
			if tc.watch.Scope {
				assert.Equal(t, "class", fs["scope"])
				want := tc.names
				if want == "" {
					want = string(validation.AirlockControllerName)
				}
				assert.Equal(t, want, fs["controller-names"])
				assert.Equal(t, map[bool]string{true: tc.unknown, false: "judge"}[tc.unknown != ""], fs["unknown-parent"])
			} else {
				assert.Equal(t, "all", fs["scope"])
				assert.NotContains(t, fs, "controller-names")
			}
			assert.Equal(t, tc.watch.Cluster, fs["cluster-checks"] == "true")
			assert.Equal(t, tc.watch.Secrets, fs["watch-secrets"] == "true")
			// The tenancy's flags come with the cluster checks, which read them.
			if tc.watch.Cluster {
				assert.Equal(t, validation.DefaultAllowedHostnamesAnnotation, fs["allowed-hostnames-annotation"])
				assert.Equal(t, "warn", fs["first-claim"])
			} else {
				assert.NotContains(t, fs, "first-claim")
			}
			assert.NotContains(t, fs, "tenant-label")
			dep := typed[appsv1.Deployment](t, objs.get(t, "Deployment", fullname))
			require.NotNil(t, dep.Spec.Template.Spec.AutomountServiceAccountToken)
			assert.True(t, *dep.Spec.Template.Spec.AutomountServiceAccountToken, "the view reads the API")

			cr := typed[rbacv1.ClusterRole](t, objs.get(t, "ClusterRole", role))
			assert.Equal(t, clusterview.RBACRules(tc.watch), cr.Rules)
			crb := typed[rbacv1.ClusterRoleBinding](t, objs.get(t, "ClusterRoleBinding", role))
			assert.Equal(t, rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role}, crb.RoleRef)
			assert.Equal(t, []rbacv1.Subject{{Kind: "ServiceAccount", Name: dep.Spec.Template.Spec.ServiceAccountName, Namespace: namespace}},
				crb.Subjects)
		})
	}

	// Scope off, no cluster checks, cert-manager: no API reads, no token, no role.
	off := render(t, "--set", "scope.enabled=false")
	assert.Equal(t, "all", flags(off)["scope"])
	assert.NotContains(t, off.ids(), "ClusterRole/"+role)
	dep := typed[appsv1.Deployment](t, off.get(t, "Deployment", fullname))
	require.NotNil(t, dep.Spec.Template.Spec.AutomountServiceAccountToken)
	assert.False(t, *dep.Spec.Template.Spec.AutomountServiceAccountToken, "nothing reads the API")

	// tenancy.* become --tenant-label, --allowed-hostnames-annotation and --first-claim.
	fs := flags(render(t, "--set", "clusterChecks.enabled=true,tenancy.tenantLabel=capsule.clastix.io/tenant,"+
		"tenancy.allowedHostnamesAnnotation=example.com/hosts,tenancy.firstClaim=deny"))
	assert.Equal(t, "capsule.clastix.io/tenant", fs["tenant-label"])
	assert.Equal(t, "example.com/hosts", fs["allowed-hostnames-annotation"])
	assert.Equal(t, "deny", fs["first-claim"])

	// rbac.create=false leaves RBAC to the operator here too.
	objs := render(t, "--set", "clusterChecks.enabled=true,rbac.create=false")
	assert.NotContains(t, objs.ids(), "ClusterRole/"+role)

	_, err := renderErr(t, "--set", "clusterChecks.watchSecrets=true")
	assert.ErrorContains(t, err, "additional properties 'watchSecrets' not allowed")
	_, err = renderErr(t, "--set", "scope.unknownParent=ignore")
	assert.ErrorContains(t, err, "unknownParent")
	_, err = renderErr(t, "--set-json", "scope.controllerNames=[]")
	assert.Error(t, err, "no controller name")
}
