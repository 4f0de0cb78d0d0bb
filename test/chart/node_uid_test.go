package chart

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/airlock/listenerset-webhook/hack/node"
)

// The namespace label that puts a namespace under restrictedSCC, and the
// annotation OpenShift keeps each namespace's UID range in ("<first>/<size>").
const (
	sccLabel        = "lsw-node-scc"
	sccUIDRangeAnno = "openshift.io/sa.scc.uid-range"
)

// testNodePlatformAssignsUID: with platformAssignsUID=true the chart runs
// under a UID the platform assigns, as OpenShift's restricted-v2 SCC does,
// which the node's kube-apiserver plays with two admission policies
// (restrictedSCC): each namespace gets a random UID range of its own; a pod
// that names no UID gets the range's first on each container, and fsGroup
// the same, and no runAsGroup (the process's group is then 0, as on
// OpenShift); a pod whose UID or fsGroup is outside the range is refused. The
// chart's default (65532 pinned) is refused there and platformAssignsUID=true
// admitted; installed in each certificate mode, the pod's process runs
// under the assigned UID (read from /proc on this machine), becomes Ready by
// its probes (the cert-manager mode reads its Secret volume, mode 0440,
// through the fsGroup alone) and serves kube-apiserver's calls.
func testNodePlatformAssignsUID(t *testing.T, n *node.Node, c client.Client) {
	ctx := t.Context()
	restrictedSCC(ctx, t, c)
	for _, m := range []struct{ name, short, certManager string }{
		{"CertManagerMode", "cm", "true"},
		{"SelfBootstrappedMode", "sb", "false"},
	} {
		t.Run(m.name, func(t *testing.T) {
			ns, appNS, scope := "lsw-node-uid-"+m.short, "lsw-node-uid-"+m.short+"-apps", "node-uid-"+m.short
			// OpenShift allocates each namespace a block of 10000 from 1000000000 on.
			uid := int64(1_000_000_000 + rand.IntN(100_000)*10_000)
			require.NoError(t, c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns,
				Labels:      map[string]string{sccLabel: "restricted"},
				Annotations: map[string]string{sccUIDRangeAnno: fmt.Sprintf("%d/10000", uid)}}}))
			ensureLabelledNamespace(ctx, t, c, appNS, map[string]string{"lsw-e2e": scope})
			args := []string{"--set", "certManager.enabled=" + m.certManager, "--set", "replicaCount=1",
				"--set-string", "webhook.namespaceSelector.matchLabels.lsw-e2e=" + scope}
			t.Logf("namespace %s: UID range %d/10000", ns, uid)

			rel := nodeRelease(ctx, t, n, "uid-"+m.short, ns, append(args, "--set", "platformAssignsUID=true")...)
			if m.certManager == "true" {
				issueLikeCertManager(ctx, t, c, ns, rel.fullname())
				injectLikeCAInjector(ctx, t, c, rel.fullname())
			}
			pods := readyPods(ctx, t, n.Client, rel, 1, 3*time.Minute)
			sc := pods[0].Spec.SecurityContext
			assert.Nil(t, sc.RunAsUser, "the chart pins no pod runAsUser")
			assert.Nil(t, sc.RunAsGroup, "the chart pins no runAsGroup")
			assert.Equal(t, uid, *sc.FSGroup, "the platform's fsGroup")
			assert.Equal(t, uid, *pods[0].Spec.Containers[0].SecurityContext.RunAsUser, "the platform's UID")

			procs := processesOf(t, uid)
			require.Len(t, procs, 1, "one process of this machine runs under UID %d: the pod's", uid)
			assert.Contains(t, procs[0].cmdline, "serve", "the webhook")
			assert.Equal(t, "0", procs[0].gid, "no runAsGroup: group 0, as on OpenShift")
			assert.Contains(t, procs[0].groups, strconv.FormatInt(uid, 10), "the fsGroup is a supplementary group")

			eventually(t, 60*time.Second, "kube-apiserver calls the webhook running under the assigned UID", func() error {
				return checkAdmission(ctx, c, appNS, 0)
			})
			for i := range 10 {
				require.NoError(t, checkAdmission(ctx, c, appNS, i))
			}
			assert.GreaterOrEqual(t, validateRequests(t, pods[0].Status.PodIP, nodeMetricsPort), 11, "validations the pod answered")
			assert.Zero(t, restarts(readyPods(ctx, t, n.Client, rel, 1, 10*time.Second)), "no container restarted")

			// The control: the chart's default (65532 pinned, as the release's
			// ServiceAccount now exists for the pod to name) is refused there.
			_, err := dryRunPodOf(ctx, t, c, rel.name, ns, args...)
			require.Error(t, err, "the chart's default UID 65532 in a restricted namespace")
			assert.Contains(t, err.Error(), "runAsUser 65532: must be in the ranges", "refused for its UID")
		})
	}
}

// restrictedSCC registers what OpenShift's restricted-v2 SCC does to a pod's
// UID and fsGroup (its other rules, capabilities and seccomp, the chart meets
// on every platform) for the namespaces labelled sccLabel=restricted: a
// MutatingAdmissionPolicy fills in the namespace's first UID where a
// container and the pod name none, and the fsGroup where the pod names none;
// a ValidatingAdmissionPolicy then refuses a UID or fsGroup outside the
// namespace's range.
func restrictedSCC(ctx context.Context, t *testing.T, c client.Client) {
	t.Helper()
	match := &admissionv1.MatchResources{
		NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{sccLabel: "restricted"}},
		ResourceRules: []admissionv1.NamedRuleWithOperations{{RuleWithOperations: admissionv1.RuleWithOperations{
			Operations: []admissionv1.OperationType{admissionv1.Create},
			Rule:       admissionv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"}},
		}}},
	}
	rangeVars := []admissionv1.Variable{
		{Name: "uidRange", Expression: fmt.Sprintf("namespaceObject.metadata.annotations[%q].split('/')", sccUIDRangeAnno)},
		{Name: "first", Expression: "int(variables.uidRange[0])"},
		{Name: "last", Expression: "variables.first + int(variables.uidRange[1]) - 1"},
	}
	const podUID = "has(object.spec.securityContext) && has(object.spec.securityContext.runAsUser)"
	const fsGroup = "has(object.spec.securityContext) && has(object.spec.securityContext.fsGroup)"
	const containerUID = "has(c.securityContext) && has(c.securityContext.runAsUser)"
	const name = "lsw-node-restricted-scc"
	objs := []client.Object{
		&admissionv1.MutatingAdmissionPolicy{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: admissionv1.MutatingAdmissionPolicySpec{
				MatchConstraints: match, Variables: rangeVars,
				FailurePolicy:      ptr.To(admissionv1.Fail),
				ReinvocationPolicy: admissionv1.NeverReinvocationPolicy,
				Mutations: []admissionv1.Mutation{{
					PatchType: admissionv1.PatchTypeApplyConfiguration,
					ApplyConfiguration: &admissionv1.ApplyConfiguration{Expression: `Object{spec: Object.spec{
						securityContext: Object.spec.securityContext{
							fsGroup: ` + fsGroup + ` ? object.spec.securityContext.fsGroup : variables.first},
						containers: object.spec.containers.map(c, Object.spec.containers{name: c.name,
							securityContext: Object.spec.containers.securityContext{
								runAsUser: ` + containerUID + ` ? c.securityContext.runAsUser :
									` + podUID + ` ? object.spec.securityContext.runAsUser : variables.first}})}}`},
				}},
			},
		},
		&admissionv1.MutatingAdmissionPolicyBinding{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec:       admissionv1.MutatingAdmissionPolicyBindingSpec{PolicyName: name},
		},
		&admissionv1.ValidatingAdmissionPolicy{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: admissionv1.ValidatingAdmissionPolicySpec{
				MatchConstraints: match, Variables: rangeVars,
				FailurePolicy: ptr.To(admissionv1.Fail),
				Validations: []admissionv1.Validation{
					{
						Expression: "object.spec.containers.all(c, " + containerUID +
							" && c.securityContext.runAsUser >= variables.first && c.securityContext.runAsUser <= variables.last)",
						MessageExpression: `"unable to validate against any security context constraint: runAsUser " + ` +
							`object.spec.containers.map(c, ` + containerUID + ` ? string(c.securityContext.runAsUser) : "unset").join(", ") + ` +
							`": must be in the ranges: [" + string(variables.first) + ", " + string(variables.last) + "]"`,
					},
					{
						Expression: "!(" + podUID + ") || (object.spec.securityContext.runAsUser >= variables.first && object.spec.securityContext.runAsUser <= variables.last)",
						MessageExpression: `"unable to validate against any security context constraint: spec.securityContext.runAsUser " + ` +
							`string(object.spec.securityContext.runAsUser) + ": must be in the ranges: [" + string(variables.first) + ", " + string(variables.last) + "]"`,
					},
					{
						Expression: fsGroup + " && object.spec.securityContext.fsGroup >= variables.first && object.spec.securityContext.fsGroup <= variables.last",
						MessageExpression: `"unable to validate against any security context constraint: fsGroup " + ` +
							`(` + fsGroup + ` ? string(object.spec.securityContext.fsGroup) : "unset") + ": must be in the ranges: [" + string(variables.first) + ", " + string(variables.last) + "]"`,
					},
				},
			},
		},
		&admissionv1.ValidatingAdmissionPolicyBinding{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: admissionv1.ValidatingAdmissionPolicyBindingSpec{PolicyName: name,
				ValidationActions: []admissionv1.ValidationAction{admissionv1.Deny}},
		},
	}
	for _, o := range objs {
		require.NoError(t, c.Create(ctx, o), "%T", o)
		t.Cleanup(func() { _ = c.Delete(context.Background(), o) })
	}
	// The policies take effect once kube-apiserver has compiled them: a
	// probe pod that names no UID gets one.
	probeNS := "lsw-node-scc-probe"
	require.NoError(t, c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: probeNS,
		Labels: map[string]string{sccLabel: "restricted"}, Annotations: map[string]string{sccUIDRangeAnno: "1000000000/10000"}}}))
	eventually(t, time.Minute, "the SCC's policies in effect", func() error {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "probe", Namespace: probeNS},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: node.PauseImage}}}}
		if err := c.Create(ctx, p, client.DryRunAll); err != nil {
			return err
		}
		if sc := p.Spec.Containers[0].SecurityContext; sc == nil || sc.RunAsUser == nil || *sc.RunAsUser != 1_000_000_000 {
			return fmt.Errorf("no UID assigned yet: %+v", sc)
		}
		return nil
	})
}

// dryRunPodOf renders the chart as release rel in ns with args and creates
// its Deployment's pod in ns with a server-side dry-run: the pod as the
// cluster's admission leaves it, or its refusal.
func dryRunPodOf(ctx context.Context, t *testing.T, c client.Client, rel, ns string, args ...string) (*corev1.Pod, error) {
	t.Helper()
	out, err := runHelm(ctx, t, "", templateArgs(rel, ns, args)...)
	require.NoError(t, err, out)
	objs, err := decodeObjects(out)
	require.NoError(t, err)
	dep := typed[appsv1.Deployment](t, objs.get(t, "Deployment", rel+"-listenerset-webhook"))
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: rel + "-dry-run", Namespace: ns, Labels: dep.Spec.Template.Labels},
		Spec: dep.Spec.Template.Spec}
	return pod, c.Create(ctx, pod, client.DryRunAll)
}

// process is what /proc/<pid>/status and cmdline say of a process.
type process struct {
	pid, gid, cmdline string
	groups            []string
}

// processesOf lists this machine's processes whose real UID is uid (the
// container's, seen from the host: the node's containers share its kernel).
func processesOf(t *testing.T, uid int64) []process {
	t.Helper()
	dirs, err := filepath.Glob("/proc/[0-9]*")
	require.NoError(t, err)
	want := strconv.FormatInt(uid, 10)
	var procs []process
	for _, d := range dirs {
		status, err := os.ReadFile(filepath.Join(d, "status"))
		if err != nil {
			continue // gone meanwhile
		}
		fields := map[string][]string{}
		for _, l := range strings.Split(string(status), "\n") {
			if k, v, ok := strings.Cut(l, ":"); ok {
				fields[k] = strings.Fields(v)
			}
		}
		if len(fields["Uid"]) == 0 || fields["Uid"][0] != want {
			continue
		}
		cmdline, _ := os.ReadFile(filepath.Join(d, "cmdline"))
		p := process{pid: filepath.Base(d), cmdline: strings.ReplaceAll(string(cmdline), "\x00", " "), groups: fields["Groups"]}
		if len(fields["Gid"]) > 0 {
			p.gid = fields["Gid"][0]
		}
		procs = append(procs, p)
	}
	return procs
}
