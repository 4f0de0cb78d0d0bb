package chart

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/airlock/listenerset-webhook/webhook/clusterview"
)

// TestRenderClusterChecks: clusterChecks.* become the serve flags
// --cluster-checks, --strict and --watch-secrets, a token is mounted in
// either certificate mode, and the ClusterRole has exactly
// clusterview.RBACRules (the rules the end-to-end tests run the view
// with): list/watch on secrets only with clusterChecks.secrets. Off by
// default, it adds nothing.
func TestRenderClusterChecks(t *testing.T) {
	const role = fullname + "-cluster-checks"
	flags := func(objs objects) map[string]string {
		return parseServe(t, typed[appsv1.Deployment](t, objs.get(t, "Deployment", fullname)).Spec.Template.Spec.Containers[0].Args)
	}

	off := render(t)
	assert.NotContains(t, off.ids(), "ClusterRole/"+role)
	assert.NotContains(t, flags(off), "cluster-checks")

	for _, tc := range []struct {
		set                string
		strict, secrets    bool
		certManagerEnabled bool
	}{
		{set: "clusterChecks.enabled=true", certManagerEnabled: true},
		{set: "clusterChecks.enabled=true,clusterChecks.strict=true,clusterChecks.secrets=true", strict: true, secrets: true, certManagerEnabled: true},
		{set: "clusterChecks.enabled=true,clusterChecks.secrets=true,certManager.enabled=false", secrets: true},
	} {
		t.Run(tc.set, func(t *testing.T) {
			objs := render(t, "--set", tc.set)
			fs := flags(objs)
			assert.Equal(t, "true", fs["cluster-checks"])
			assert.Equal(t, tc.strict, fs["strict"] == "true")
			assert.Equal(t, tc.secrets, fs["watch-secrets"] == "true")
			dep := typed[appsv1.Deployment](t, objs.get(t, "Deployment", fullname))
			require.NotNil(t, dep.Spec.Template.Spec.AutomountServiceAccountToken)
			assert.True(t, *dep.Spec.Template.Spec.AutomountServiceAccountToken, "the view reads the API")

			cr := typed[rbacv1.ClusterRole](t, objs.get(t, "ClusterRole", role))
			assert.Equal(t, clusterview.RBACRules(tc.secrets), cr.Rules)
			crb := typed[rbacv1.ClusterRoleBinding](t, objs.get(t, "ClusterRoleBinding", role))
			assert.Equal(t, rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role}, crb.RoleRef)
			assert.Equal(t, []rbacv1.Subject{{Kind: "ServiceAccount", Name: dep.Spec.Template.Spec.ServiceAccountName, Namespace: namespace}},
				crb.Subjects)
		})
	}

	// rbac.create=false leaves RBAC to the operator here too.
	objs := render(t, "--set", "clusterChecks.enabled=true,rbac.create=false")
	assert.NotContains(t, objs.ids(), "ClusterRole/"+role)

	_, err := renderErr(t, "--set", "clusterChecks.watchSecrets=true")
	assert.ErrorContains(t, err, "additional properties 'watchSecrets' not allowed")
}
