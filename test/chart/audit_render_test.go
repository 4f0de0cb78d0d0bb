package chart

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/airlock/listenerset-webhook/offline/live"
	"github.com/airlock/listenerset-webhook/validation"
)

// auditName is the audit's CronJob, ServiceAccount and ClusterRole.
const auditName = fullname + "-audit"

// TestRenderAudit: audit.enabled adds, in every admission.mode, a CronJob
// that runs the image's plugin as `audit -o jsonl` with its own
// ServiceAccount, whose ClusterRole has exactly the rules `audit
// --print-rbac` prints with the same scope flags as the webhook's (list
// only; gatewayclasses with scope.enabled; secrets with
// clusterChecks.secrets), and
// with audit.reports a second one, exactly the reports' rules of `audit
// --print-rbac --write-reports`. One run at a time, no retry, a deadline, a
// token for this pod alone, the Deployment's securityContext, and labels no
// selector of the webhook's matches. Off by default, it adds nothing.
func TestRenderAudit(t *testing.T) {
	off := render(t)
	for _, id := range []string{"CronJob/" + auditName, "ServiceAccount/" + auditName, "ClusterRole/" + auditName} {
		assert.NotContains(t, off.ids(), id)
	}

	// The scope's flags, as the webhook's Deployment has them.
	scoped := []string{"--scope=class", "--controller-names=microgateway.airlock.com/gatewayclass-controller", "--unknown-parent=judge"}
	// The tenancy's flags, as the webhook's Deployment has them, after the scope's.
	tenancy := []string{"--allowed-hostnames-annotation=" + validation.DefaultAllowedHostnamesAnnotation, "--first-claim=warn"}
	scoped = append(scoped[:len(scoped):len(scoped)], tenancy...)
	// Findings are reported, not a failed Job: only a run that failed fails it.
	args := func(flags ...string) []string {
		return append([]string{"audit", "--output=jsonl", "--exit-code-on-findings=false"}, flags...)
	}
	for _, tc := range []struct {
		set                       string
		args                      []string
		secrets, reports, classes bool
	}{
		{set: "audit.enabled=true", args: args(scoped...), classes: true},
		{set: "audit.enabled=true,admission.mode=policy", args: args(scoped...), classes: true},
		{set: "audit.enabled=true,admission.mode=both,certManager.enabled=false", args: args(scoped...), classes: true},
		{set: "audit.enabled=true,scope.enabled=false", args: args(append([]string{"--scope=all"}, tenancy...)...)},
		{set: "audit.enabled=true,scope.controllerNames={a.example/x,b.example/y},scope.unknownParent=admit",
			args: args(append([]string{"--scope=class", "--controller-names=a.example/x,b.example/y", "--unknown-parent=admit"}, tenancy...)...), classes: true},
		{set: "audit.enabled=true,tenancy.tenantLabel=capsule.clastix.io/tenant,tenancy.allowedHostnamesAnnotation=example.com/hosts,tenancy.firstClaim=deny",
			args: args("--scope=class", "--controller-names=microgateway.airlock.com/gatewayclass-controller", "--unknown-parent=judge",
				"--tenant-label=capsule.clastix.io/tenant", "--allowed-hostnames-annotation=example.com/hosts", "--first-claim=deny"), classes: true},
		{set: "audit.enabled=true,audit.reports=true,clusterChecks.strict=true,clusterChecks.secrets=true,admission.addNames.ecdhCurves[0]=X25519MLKEM1024",
			args:    args(append([]string{"--strict", "--secrets", "--add-names=ecdhCurves=X25519MLKEM1024"}, append(scoped, "--write-reports")...)...),
			secrets: true, reports: true, classes: true},
	} {
		t.Run(tc.set, func(t *testing.T) {
			objs := render(t, "--set", tc.set)
			cj := typed[batchv1.CronJob](t, objs.get(t, "CronJob", auditName))
			assert.Equal(t, "17 * * * *", cj.Spec.Schedule)
			assert.Equal(t, batchv1.ForbidConcurrent, cj.Spec.ConcurrencyPolicy)
			require.NotNil(t, cj.Spec.StartingDeadlineSeconds)
			job := cj.Spec.JobTemplate.Spec
			require.NotNil(t, job.BackoffLimit)
			assert.EqualValues(t, 0, *job.BackoffLimit, "a finding is exit 1: no retry")
			require.NotNil(t, job.ActiveDeadlineSeconds)
			pod := job.Template.Spec
			assert.Equal(t, corev1.RestartPolicyNever, pod.RestartPolicy)
			assert.Equal(t, auditName, pod.ServiceAccountName)
			require.NotNil(t, pod.AutomountServiceAccountToken)
			assert.True(t, *pod.AutomountServiceAccountToken, "the audit reads the API")
			require.Len(t, pod.Containers, 1)
			c := pod.Containers[0]
			assert.Equal(t, []string{"/kubectl-listenerset"}, c.Command)
			assert.Equal(t, tc.args, c.Args)
			assert.NotEmpty(t, c.Resources.Limits.Memory())

			sa := typed[corev1.ServiceAccount](t, objs.get(t, "ServiceAccount", auditName))
			require.NotNil(t, sa.AutomountServiceAccountToken)
			assert.False(t, *sa.AutomountServiceAccountToken)

			cr := typed[rbacv1.ClusterRole](t, objs.get(t, "ClusterRole", auditName))
			assert.Equal(t, live.ClusterRole(tc.secrets, tc.classes).Rules, cr.Rules, "audit --print-rbac's rules")
			checkBinding(t, objs, auditName)
			if tc.reports {
				rr := typed[rbacv1.ClusterRole](t, objs.get(t, "ClusterRole", auditName+"-reports"))
				assert.Equal(t, live.ReportsClusterRole().Rules, rr.Rules, "audit --print-rbac --write-reports' reports rules")
				checkBinding(t, objs, auditName+"-reports")
			} else {
				assert.NotContains(t, objs.ids(), "ClusterRole/"+auditName+"-reports")
			}

			podLabels := labels.Set(job.Template.Labels)
			for _, d := range objs.ofKind("Deployment") {
				dep := typed[appsv1.Deployment](t, d)
				sel, err := metav1.LabelSelectorAsSelector(dep.Spec.Selector)
				require.NoError(t, err)
				assert.False(t, sel.Matches(podLabels), "the Deployment's selector matches the audit's pods")
				assert.Equal(t, dep.Spec.Template.Spec.Containers[0].SecurityContext, c.SecurityContext)
				assert.Equal(t, dep.Spec.Template.Spec.SecurityContext, pod.SecurityContext)
			}
			for _, s := range objs.ofKind("Service") {
				svc := typed[corev1.Service](t, s)
				assert.False(t, labels.SelectorFromSet(svc.Spec.Selector).Matches(podLabels), "Service %s selects the audit's pods", svc.Name)
			}
		})
	}

	objs := render(t, "--set", "audit.enabled=true,rbac.create=false")
	assert.NotContains(t, objs.ids(), "ClusterRole/"+auditName)
	assert.Contains(t, objs.ids(), "CronJob/"+auditName)

	_, err := renderErr(t, "--set", "audit.enabled=true,audit.schedule=")
	assert.ErrorContains(t, err, "schedule")
}

// checkBinding: the ClusterRoleBinding name binds the ClusterRole name to
// the audit's ServiceAccount.
func checkBinding(t *testing.T, objs objects, name string) {
	t.Helper()
	crb := typed[rbacv1.ClusterRoleBinding](t, objs.get(t, "ClusterRoleBinding", name))
	assert.Equal(t, rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: name}, crb.RoleRef)
	assert.Equal(t, []rbacv1.Subject{{Kind: "ServiceAccount", Name: auditName, Namespace: namespace}}, crb.Subjects)
}
