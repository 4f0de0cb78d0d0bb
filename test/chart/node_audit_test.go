package chart

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/airlock/listenerset-webhook/hack/node"
	"github.com/airlock/listenerset-webhook/offline/policyreport"
)

// testNodeAuditCronJob: the chart's audit (audit.enabled, audit.reports) on
// the real node. An invalid ListenerSet is stored in a namespace no webhook
// of the release watches (as one from before the webhook was installed),
// the PolicyReport CRD is installed, and a Job made from the CronJob (as
// `kubectl create job --from=cronjob/...`) runs the image's
// /kubectl-listenerset with the CronJob's ServiceAccount token and RBAC
// alone: it completes (a finding is reported, not a failed run), its pod log has the
// finding's JSON line with its code, and the namespace's PolicyReport a
// fail result for the set. After the fix the next Job completes, the log
// has no error and the report no fail result for the set: only LS018, a
// warning, since no controller on the node writes the set's status. Then
// the schedule itself (every minute) starts a Job of its own, which
// completes.
func testNodeAuditCronJob(t *testing.T, n *node.Node, c client.Client) {
	ctx := t.Context()
	const ns, appNS = "lsw-node-audit", "lsw-node-audit-apps"
	start := time.Now()
	ensureLabelledNamespace(ctx, t, c, appNS, nil)
	bad := listenerSet(appNS, "bad", false)
	ensureAuditGatewayClass(ctx, t, c)
	for _, obj := range []*unstructured.Unstructured{auditGateway(appNS), bad} {
		require.NoError(t, c.Create(ctx, obj))
	}
	t.Cleanup(func() {
		_ = c.DeleteAllOf(context.Background(), listenerSet(appNS, "", true), client.InNamespace(appNS))
		_ = c.DeleteAllOf(context.Background(), auditGateway(appNS), client.InNamespace(appNS))
	})
	crd := filepath.Join(root, "test", "chart", policyReportCRD)
	out, err := n.Kubectl(ctx, "apply", "--server-side", "-f", crd)
	require.NoError(t, err, out)
	t.Cleanup(func() { _, _ = n.Kubectl(context.Background(), "delete", "-f", crd, "--ignore-not-found") })
	out, err = n.Kubectl(ctx, "wait", "--for=condition=Established", "--timeout=60s", "crd/policyreports.wgpolicyk8s.io")
	require.NoError(t, err, out)

	// The webhook watches only namespaces labelled node-audit: none here.
	rel := nodeRelease(ctx, t, n, "au", ns, "--set", "certManager.enabled=false", "--set", "replicaCount=1",
		"--set", "audit.enabled=true", "--set", "audit.reports=true",
		"--set-string", "webhook.namespaceSelector.matchLabels.lsw-e2e=node-audit")
	cronJob := rel.fullname() + "-audit"

	run := func(t *testing.T, name string, wantFailed bool) string {
		t.Helper()
		s := time.Now()
		cj, err := n.Client.BatchV1().CronJobs(ns).Get(ctx, cronJob, metav1.GetOptions{})
		require.NoError(t, err)
		job := &batchv1.Job{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns,
				Annotations:     map[string]string{"cronjob.kubernetes.io/instantiate": "manual"},
				Labels:          cj.Spec.JobTemplate.Labels,
				OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(cj, batchv1.SchemeGroupVersion.WithKind("CronJob"))}},
			Spec: cj.Spec.JobTemplate.Spec,
		}
		_, err = n.Client.BatchV1().Jobs(ns).Create(ctx, job, metav1.CreateOptions{})
		require.NoError(t, err)
		failed := waitJob(ctx, t, n, ns, name, 3*time.Minute)
		log := jobLog(ctx, t, n, ns, name)
		t.Logf("job %s finished in %s (failed=%v):\n%s", name, time.Since(s).Round(100*time.Millisecond), failed, log)
		require.Equal(t, wantFailed, failed, "the Job fails only when the run failed, never for a finding")
		return log
	}
	reportResults := func(t *testing.T) []string {
		t.Helper()
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(schema.GroupVersionKind{Group: policyreport.Group, Version: policyreport.Version, Kind: policyreport.Kind})
		require.NoError(t, c.Get(ctx, client.ObjectKey{Namespace: appNS, Name: policyreport.ReportName}, u))
		return results(u)
	}

	t.Run("finds the stored invalid set", func(t *testing.T) {
		log := run(t, "audit-1", false)
		assert.Contains(t, findingLines(t, log), appNS+"/bad LS106 error")
		assert.Contains(t, log, `"invalid":1,`, "the summary counts the finding")
		assert.Contains(t, log, "PolicyReports wgpolicyk8s.io/v1alpha2 listenerset-audit: 1 applied")
		assert.Equal(t, []string{"bad LS106 fail", "bad LS018 warn"}, reportResults(t))
	})

	t.Run("clears it after the fix", func(t *testing.T) {
		require.NoError(t, c.Delete(ctx, bad))
		require.NoError(t, c.Create(ctx, listenerSet(appNS, "bad", true)))
		log := run(t, "audit-2", false)
		assert.Equal(t, []string{appNS + "/bad LS018 warning"}, findingLines(t, log))
		assert.Equal(t, []string{"bad LS018 warn"}, reportResults(t))
	})

	t.Run("runs on its schedule", func(t *testing.T) {
		rel.helm(ctx, t, "upgrade", rel.name, chartPath, "--reuse-values", "--set", "audit.schedule=* * * * *")
		s := time.Now()
		var scheduled string
		eventually(t, 3*time.Minute, "a Job the schedule started completes", func() error {
			jobs, err := n.Client.BatchV1().Jobs(ns).List(ctx, metav1.ListOptions{})
			if err != nil {
				return err
			}
			for _, j := range jobs.Items {
				if j.Annotations["cronjob.kubernetes.io/instantiate"] == "manual" {
					continue
				}
				for _, cond := range j.Status.Conditions {
					if cond.Type == batchv1.JobComplete && cond.Status == corev1.ConditionTrue {
						scheduled = j.Name
						return nil
					}
				}
			}
			return fmt.Errorf("%d jobs, none scheduled and complete", len(jobs.Items))
		})
		t.Logf("scheduled job %s complete %s after the upgrade", scheduled, time.Since(s).Round(time.Second))
		// The fixed set is valid; no controller runs here to report it.
		assert.Equal(t, []string{appNS + "/bad LS018 warning"}, findingLines(t, jobLog(ctx, t, n, ns, scheduled)))
	})
	t.Logf("AuditCronJob took %s", time.Since(start).Round(time.Second))
}

// waitJob waits until the Job has finished and says whether it failed.
func waitJob(ctx context.Context, t *testing.T, n *node.Node, ns, name string, timeout time.Duration) (failed bool) {
	t.Helper()
	eventually(t, timeout, "job "+name+" finished", func() error {
		j, err := n.Client.BatchV1().Jobs(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		for _, cond := range j.Status.Conditions {
			if cond.Status != corev1.ConditionTrue {
				continue
			}
			switch cond.Type {
			case batchv1.JobComplete:
				return nil
			case batchv1.JobFailed:
				failed = true
				return nil
			}
		}
		return fmt.Errorf("active %d, succeeded %d, failed %d", j.Status.Active, j.Status.Succeeded, j.Status.Failed)
	})
	return failed
}

// jobLog is the log of the Job's one pod, through kube-apiserver and the
// kubelet (stdout and stderr, as kubectl logs shows them).
func jobLog(ctx context.Context, t *testing.T, n *node.Node, ns, job string) string {
	t.Helper()
	pods, err := n.Client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: "job-name=" + job})
	require.NoError(t, err)
	require.Len(t, pods.Items, 1, "one pod: backoffLimit 0")
	b, err := n.Client.CoreV1().Pods(ns).GetLogs(pods.Items[0].Name, &corev1.PodLogOptions{}).DoRaw(ctx)
	require.NoError(t, err)
	return string(b)
}

// findingLines are the log's JSON finding lines as "ns/name CODE severity";
// its other lines (the summary, the reports' note) are not findings.
func findingLines(t *testing.T, log string) []string {
	t.Helper()
	var out []string
	for _, l := range strings.Split(log, "\n") {
		if !strings.HasPrefix(l, "{") {
			continue
		}
		var f struct{ Type, Namespace, Name, Code, Severity string }
		require.NoError(t, json.Unmarshal([]byte(l), &f), l)
		if f.Type == "finding" {
			out = append(out, f.Namespace+"/"+f.Name+" "+f.Code+" "+f.Severity)
		}
	}
	return out
}
