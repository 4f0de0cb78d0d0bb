package chart

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/airlock/listenerset-webhook/hack/node"
	"github.com/airlock/listenerset-webhook/test/testproc"
)

// The chart's default ports (values.yaml), as the pods serve them.
const (
	nodeWebhookPort = 9443
	nodeMetricsPort = 8080
)

// TestNode installs the chart with the real helm onto a real node
// (hack/node: kubelet, containerd, kube-proxy, the controllers), in both
// certificate modes, and checks for real what the other chart tests
// simulate: the image starts as the chart runs it and its pods become Ready
// by their own probes; kube-apiserver calls them through the Service (kube-
// proxy's ClusterIP, the EndpointSlice controller's endpoints); the
// kubelet's update of the Secret volume is served without a restart; the
// self-bootstrapped mode works with the pod's own ServiceAccount token and
// the chart's RBAC alone; and a helm upgrade, evictions under the
// PodDisruptionBudget and a pod deletion (the kubelet's SIGTERM) fail no
// request; and with platformAssignsUID=true the pod runs under a UID the
// platform assigns (OpenShift's, played by admission policies); and the
// release, published to a registry and signed there, installs with helm
// from oci:// and the node's containerd pulls it, and the README's,
// adoption.md's, tenancy-capsule.md's and upgrade.md's commands run as the
// pages have them (node_registry_test.go, node_upgrade_test.go);
// and the audit CronJob (audit.enabled) finds a stored invalid set, in its
// log and its PolicyReport, and clears it after the fix (node_audit_test.go);
// and a first install in warn mode whose pods cannot start leaves
// ListenerSet writes working, and how long a first GitOps sync blocks
// writes (node_firstinstall_test.go).
//
// One simulation is kept: cert-manager's controller cannot be built here,
// so the test issues the certificate the chart's Certificate asks for into
// the Secret it names, and copies its ca.crt into the webhook configurations
// as cainjector would. Everything after the Secret (the kubelet's volume,
// the webhook's reload) is real.
//
// Needs root and NODE_TESTS=1 (make test-node).
func TestNode(t *testing.T) {
	n, c := startNode(t)
	t.Run("CertManagerMode", func(t *testing.T) { testNodeCertManager(t, n, c) })
	t.Run("SelfBootstrappedMode", func(t *testing.T) { testNodeSelfBootstrapped(t, n, c) })
	t.Run("HostNetwork", func(t *testing.T) { testNodeHostNetwork(t, n, c) })
	t.Run("PlatformAssignsUID", func(t *testing.T) { testNodePlatformAssignsUID(t, n, c) })
	t.Run("InstallFromRegistry", func(t *testing.T) { testNodeInstallFromRegistry(t, n, c) })
	t.Run("AuditCronJob", func(t *testing.T) { testNodeAuditCronJob(t, n, c) })
	t.Run("WarnModePodsCannotStart", func(t *testing.T) { testNodeWarnModePodsCannotStart(t, n, c) })
	t.Run("FirstSync", func(t *testing.T) { testNodeFirstSync(t, n, c) })
	t.Run("Runbook", func(t *testing.T) { testNodeRunbook(t, n, c) })
}

// testNodeHostNetwork: with hostNetwork the pod serves on the node's own
// address, on ports chosen free on this machine, and kube-apiserver reaches
// it through the Service, whose endpoint is then the node's address. One
// replica: two would need two nodes (the same host ports).
func testNodeHostNetwork(t *testing.T, n *node.Node, c client.Client) {
	ctx := t.Context()
	const ns, appNS, scope = "lsw-node-hn", "lsw-node-hn-apps", "node-hn"
	var ports [3]int
	for i := range ports {
		p, err := testproc.FreePort()
		require.NoError(t, err)
		ports[i] = p
	}
	ensureLabelledNamespace(ctx, t, c, appNS, map[string]string{"lsw-e2e": scope})
	rel := nodeRelease(ctx, t, n, "hn", ns, "--set", "certManager.enabled=false", "--set", "hostNetwork=true",
		"--set", "replicaCount=1", "--set", fmt.Sprintf("webhook.port=%d", ports[0]),
		"--set", fmt.Sprintf("healthPort=%d", ports[1]), "--set", fmt.Sprintf("metrics.port=%d", ports[2]),
		"--set-string", "webhook.namespaceSelector.matchLabels.lsw-e2e="+scope)
	pods := readyPods(ctx, t, n.Client, rel, 1, 3*time.Minute)
	require.True(t, pods[0].Spec.HostNetwork)
	assert.Equal(t, corev1.DNSClusterFirstWithHostNet, pods[0].Spec.DNSPolicy)
	assert.Equal(t, n.NodeIP.String(), pods[0].Status.PodIP, "the pod is on the node's address")
	eventually(t, 60*time.Second, "kube-apiserver calls the host-network pod through the Service", func() error {
		return checkAdmission(ctx, c, appNS, 0)
	})
	for i := range 10 {
		require.NoError(t, checkAdmission(ctx, c, appNS, i))
	}
	assert.GreaterOrEqual(t, validateRequests(t, pods[0].Status.PodIP, ports[2]), 11, "validations the pod answered")
}

func testNodeCertManager(t *testing.T, n *node.Node, c client.Client) {
	ctx := t.Context()
	const ns, appNS, scope = "lsw-node-cm", "lsw-node-cm-apps", "node-cm"
	ensureLabelledNamespace(ctx, t, c, appNS, map[string]string{"lsw-e2e": scope})
	rel := nodeRelease(ctx, t, n, "cm", ns, "--set-string", "webhook.namespaceSelector.matchLabels.lsw-e2e="+scope)

	// The kept simulation: cert-manager issues what the Certificate asks for.
	_, ca, secret, issue := issueLikeCertManager(ctx, t, c, ns, rel.fullname())
	injectLikeCAInjector(ctx, t, c, rel.fullname())

	// Real from here: the kubelet mounts the Secret, the probes pass.
	pods := readyPods(ctx, t, n.Client, rel, 2, 3*time.Minute)
	eventually(t, 60*time.Second, "kube-apiserver calls the webhook through the Service", func() error {
		return checkAdmission(ctx, c, appNS, 0)
	})
	for i := range 20 {
		require.NoError(t, checkAdmission(ctx, c, appNS, i))
	}
	checkServed(t, pods, 21)

	// Renewal (a new key and serial, as cert-manager's rotationPolicy Always):
	// the kubelet updates the Secret volume, each pod serves the new
	// certificate without a restart, and no request fails meanwhile.
	l := startLoad(t, n.Kubeconfig, appNS, 2)
	require.NoError(t, c.Get(ctx, client.ObjectKeyFromObject(secret), secret))
	secret.Data = issue()
	require.NoError(t, c.Update(ctx, secret))
	want := parsePEM(secret.Data["tls.crt"])[0]
	written := time.Now()
	for _, p := range pods {
		eventually(t, 2*time.Minute, p.Name+" serves the renewed certificate", func() error {
			got, err := servedCertAt(p.Status.PodIP, nodeWebhookPort, rel.serverName(), ca.Pool())
			if err != nil {
				return err
			}
			if got.SerialNumber.Cmp(want.SerialNumber) != 0 {
				return fmt.Errorf("still serial %x", got.SerialNumber)
			}
			return nil
		})
	}
	took := time.Since(written)
	l.await(t, 10, 30*time.Second) // with the renewed certificate
	r := l.stop(t)
	after := readyPods(ctx, t, n.Client, rel, 2, 10*time.Second)
	assert.Equal(t, podNames(pods), podNames(after), "the same pods")
	assert.Zero(t, restarts(after), "no container restarted")
	t.Logf("Secret update served by both pods %s after the write (kubelet syncFrequency 10s); %d request pairs, %d failed",
		took.Round(100*time.Millisecond), r.Pairs, r.Failed)
	lostNone(t, r, "the renewal")
	assert.Positive(t, r.Passed)
}

// checkServed: the pods' own metrics count at least want validations (the
// ones just sent through kube-apiserver). kube-apiserver keeps its
// connection to the Service's ClusterIP, which kube-proxy translated to one
// pod, so one pod may have answered them all.
func checkServed(t *testing.T, pods []corev1.Pod, want int) {
	t.Helper()
	total := 0
	for _, p := range pods {
		total += validateRequests(t, p.Status.PodIP, nodeMetricsPort)
	}
	assert.GreaterOrEqual(t, total, want, "validations the pods answered")
}

func testNodeSelfBootstrapped(t *testing.T, n *node.Node, c client.Client) {
	ctx := t.Context()
	const ns, appNS, scope = "lsw-node-sb", "lsw-node-sb-apps", "node-sb"
	ensureLabelledNamespace(ctx, t, c, appNS, map[string]string{"lsw-e2e": scope})
	rel := nodeRelease(ctx, t, n, "sb", ns, "--set", "certManager.enabled=false",
		"--set-string", "webhook.namespaceSelector.matchLabels.lsw-e2e="+scope)

	// Ready means each pod got its certificate from the CA Secret through the
	// API with its own ServiceAccount token and the chart's Role: a missing
	// permission keeps it unready and fails here.
	pods := readyPods(ctx, t, n.Client, rel, 2, 3*time.Minute)
	for _, p := range pods {
		assert.Equal(t, rel.fullname(), p.Spec.ServiceAccountName)
		var vols []string
		for _, v := range p.Spec.Volumes {
			vols = append(vols, v.Name)
		}
		require.Len(t, vols, 1, "the projected ServiceAccount token is the pod's only credential: %v", vols)
		require.NotNil(t, p.Spec.Volumes[0].Projected, "the kubelet's projected token volume")
	}
	caSecret, err := n.Client.CoreV1().Secrets(ns).Get(ctx, rel.fullname()+"-ca", metav1.GetOptions{})
	require.NoError(t, err)
	assert.NotEmpty(t, caSecret.Data, "the webhook filled its CA Secret")
	eventually(t, 60*time.Second, "the webhook injects its caBundle and kube-apiserver calls it through the Service", func() error {
		v := &admissionv1.ValidatingWebhookConfiguration{}
		if err := c.Get(ctx, types.NamespacedName{Name: rel.fullname()}, v); err != nil {
			return err
		}
		if len(v.Webhooks) == 0 || len(v.Webhooks[0].ClientConfig.CABundle) == 0 {
			return fmt.Errorf("no caBundle yet")
		}
		return checkAdmission(ctx, c, appNS, 0)
	})
	for i := range 20 {
		require.NoError(t, checkAdmission(ctx, c, appNS, i))
	}
	checkServed(t, pods, 21)

	t.Run("HelmUpgradeRollsBothReplicasUnderLoad", func(t *testing.T) {
		before := readyPods(ctx, t, n.Client, rel, 2, time.Minute)
		l := startLoad(t, n.Kubeconfig, appNS, 2)
		start := time.Now()
		rel.helm(ctx, t, "upgrade", rel.name, chartPath, "--reuse-values",
			"--set-string", "podAnnotations.lsw-rollout=1", "--wait", "--timeout", "4m")
		after := readyPods(ctx, t, n.Client, rel, 2, 2*time.Minute)
		took := time.Since(start)
		l.await(t, 10, 30*time.Second) // through the new pods
		r := l.stop(t)
		for _, p := range after {
			assert.NotContains(t, podNames(before), p.Name, "replaced by the rollout")
		}
		t.Logf("rollout of both replicas in %s; %d request pairs through kube-apiserver, %d failed",
			took.Round(100*time.Millisecond), r.Pairs, r.Failed)
		lostNone(t, r, "the rollout")
		assert.Greater(t, r.Passed, int64(10))
	})

	t.Run("EvictionsUnderPodDisruptionBudget", func(t *testing.T) {
		pods := readyPods(ctx, t, n.Client, rel, 2, time.Minute)
		eventually(t, time.Minute, "the PodDisruptionBudget allows one disruption", pdbAllows(ctx, n.Client, rel, 1))
		evict := func(name string) error { return evictPod(ctx, n.Client, ns, name) }
		l := startLoad(t, n.Kubeconfig, appNS, 2)
		require.NoError(t, evict(pods[0].Name), "the first eviction")
		err := evict(pods[1].Name)
		require.Error(t, err, "a second eviction while the first replica is not back")
		assert.True(t, apierrors.IsTooManyRequests(err), "refused by the PodDisruptionBudget (429): %v", err)

		back := readyPods(ctx, t, n.Client, rel, 2, 2*time.Minute)
		assert.NotContains(t, podNames(back), pods[0].Name)
		eventually(t, time.Minute, "the PodDisruptionBudget allows one disruption again", pdbAllows(ctx, n.Client, rel, 1))
		require.NoError(t, evict(pods[1].Name), "the second pod once the first is back")
		readyPods(ctx, t, n.Client, rel, 2, 2*time.Minute)
		l.await(t, 10, 30*time.Second) // through the pods that replaced both
		r := l.stop(t)
		t.Logf("two evictions, one refused in between; %d request pairs, %d failed", r.Pairs, r.Failed)
		lostNone(t, r, "the evictions")
		assert.Positive(t, r.Passed)
	})

	t.Run("PodDeletionUnderLoad", func(t *testing.T) {
		pods := readyPods(ctx, t, n.Client, rel, 2, time.Minute)
		l := startLoad(t, n.Kubeconfig, appNS, 2)
		l.await(t, 10, 30*time.Second) // the load goes through kube-apiserver before the deletion
		start := time.Now()
		// The default grace period: the kubelet sends SIGTERM, the webhook
		// fails /readyz, keeps serving for its shutdown delay while the pod
		// leaves the endpoints, then drains.
		require.NoError(t, n.Client.CoreV1().Pods(ns).Delete(ctx, pods[0].Name, metav1.DeleteOptions{}))
		eventually(t, 2*time.Minute, pods[0].Name+" gone", func() error {
			_, err := n.Client.CoreV1().Pods(ns).Get(ctx, pods[0].Name, metav1.GetOptions{})
			if apierrors.IsNotFound(err) {
				return nil
			}
			return fmt.Errorf("still there (%v)", err)
		})
		gone := time.Since(start)
		readyPods(ctx, t, n.Client, rel, 2, 2*time.Minute)
		l.await(t, 10, 30*time.Second) // through the pod that replaced it
		r := l.stop(t)
		t.Logf("pod deleted (SIGTERM) and gone in %s; %d request pairs, %d failed", gone.Round(100*time.Millisecond), r.Pairs, r.Failed)
		lostNone(t, r, "the pod's stop")
		assert.Positive(t, r.Passed)
	})
}
