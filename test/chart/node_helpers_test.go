package chart

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/airlock/listenerset-webhook/hack/node"
	"github.com/airlock/listenerset-webhook/test/localcluster"
	"github.com/airlock/listenerset-webhook/webhook/admission"
)

// nodeSuite is NODE_TESTS=1: the suite that needs root, containerd and a
// kubelet (make test-node, which make test-all runs). Without it the rest of
// test/chart runs as fast as before.
var nodeSuite = os.Getenv("NODE_TESTS") == "1"

// startNode brings up hack/node's single-node cluster for the test (stopped
// and cleaned up at its end) with the Gateway API and cert-manager CRDs.
func startNode(t *testing.T) (*node.Node, client.Client) {
	t.Helper()
	if testing.Short() {
		t.Skip("needs a real node; skipped with -short")
	}
	if !nodeSuite {
		t.Skip("the node suite runs with NODE_TESTS=1 (make test-node; make test-all runs it)")
	}
	// Not root, or Debian's containerd and the rest not installed: a test
	// installs nothing (make test-node, as root, does).
	missing, err := node.Unavailable(root)
	require.NoError(t, err)
	if missing != "" {
		t.Skip(missing)
	}
	start := time.Now()
	progress := func(l string) { fmt.Fprintf(os.Stderr, "[node %s] %s\n", time.Now().Format("15:04:05"), l) }
	n, err := node.Start(t.Context(), node.Options{Root: root, Progress: progress, NoInstall: true})
	require.NoError(t, err)
	t.Cleanup(func() {
		if t.Failed() {
			for _, c := range []string{"kubelet", "kube-apiserver", "containerd", "kube-proxy"} {
				t.Log(n.Log(c, 25))
			}
		}
		s := time.Now()
		require.NoError(t, n.Stop())
		progress(fmt.Sprintf("stopped and cleaned up in %s", time.Since(s).Round(100*time.Millisecond)))
	})
	progress(fmt.Sprintf("up in %s", time.Since(start).Round(100*time.Millisecond)))

	crds, _, err := localcluster.GatewayAPICRDs(t.Context(), root, "")
	require.NoError(t, err)
	cm, err := certManagerCRDDir(t.Context())
	require.NoError(t, err)
	for _, dir := range []string{crds, cm} {
		out, err := n.Kubectl(t.Context(), "apply", "--server-side", "-f", dir)
		require.NoError(t, err, out)
	}
	out, err := n.Kubectl(t.Context(), "wait", "--for=condition=Established", "--timeout=60s", "crd", "--all")
	require.NoError(t, err, out)
	c, err := client.New(n.Config, client.Options{})
	require.NoError(t, err)
	return n, c
}

// nodeRelease installs the chart with the real helm onto the node.
func nodeRelease(ctx context.Context, t *testing.T, n *node.Node, name, ns string, args ...string) *helmRelease {
	t.Helper()
	out, err := runHelm(ctx, t, n.Kubeconfig,
		append(append([]string{"install", name, chartPath, "--namespace", ns, "--create-namespace"}, preloaded...), args...)...)
	require.NoError(t, err, out)
	rel := &helmRelease{name: name, ns: ns, kubeconfig: n.Kubeconfig}
	t.Cleanup(func() {
		_, _ = runHelm(context.Background(), t, n.Kubeconfig, "uninstall", name, "--namespace", ns, "--wait", "--timeout", "2m")
	})
	return rel
}

// readyPods waits until the release has exactly want pods, all Ready by
// their own probes and none terminating, and returns them sorted by name.
func readyPods(ctx context.Context, t *testing.T, cs kubernetes.Interface, rel *helmRelease, want int, timeout time.Duration) []corev1.Pod {
	t.Helper()
	return waitPods(ctx, t, cs, rel, want, false, timeout)
}

// servingPods is readyPods with pods still terminating beside them
// (draining, out of the endpoints): it returns the want Ready ones that are
// not terminating.
func servingPods(ctx context.Context, t *testing.T, cs kubernetes.Interface, rel *helmRelease, want int, timeout time.Duration) []corev1.Pod {
	t.Helper()
	return waitPods(ctx, t, cs, rel, want, true, timeout)
}

func waitPods(ctx context.Context, t *testing.T, cs kubernetes.Interface, rel *helmRelease, want int, terminatingToo bool, timeout time.Duration) []corev1.Pod {
	t.Helper()
	var pods []corev1.Pod
	eventually(t, timeout, fmt.Sprintf("%d pods of %s Ready", want, rel.fullname()), func() error {
		list, err := cs.CoreV1().Pods(rel.ns).List(ctx, metav1.ListOptions{LabelSelector: "app.kubernetes.io/instance=" + rel.name})
		if err != nil {
			return err
		}
		pods = pods[:0]
		var states []string
		for _, p := range list.Items {
			ready := p.DeletionTimestamp == nil && podReady(&p)
			states = append(states, fmt.Sprintf("%s %s ready=%v", p.Name, p.Status.Phase, ready))
			if ready {
				pods = append(pods, p)
			}
		}
		if len(pods) != want || (!terminatingToo && len(list.Items) != want) {
			return fmt.Errorf("%v", states)
		}
		return nil
	})
	sort.Slice(pods, func(i, j int) bool { return pods[i].Name < pods[j].Name })
	return pods
}

// pdbAllows is a check that the release's PodDisruptionBudget allows want
// disruptions, as of its current generation.
func pdbAllows(ctx context.Context, cs kubernetes.Interface, rel *helmRelease, want int32) func() error {
	return func() error {
		pdb, err := cs.PolicyV1().PodDisruptionBudgets(rel.ns).Get(ctx, rel.fullname(), metav1.GetOptions{})
		if err != nil {
			return err
		}
		if pdb.Status.DisruptionsAllowed != want || pdb.Status.ObservedGeneration != pdb.Generation {
			return fmt.Errorf("disruptionsAllowed %d (observed generation %d of %d)",
				pdb.Status.DisruptionsAllowed, pdb.Status.ObservedGeneration, pdb.Generation)
		}
		return nil
	}
}

// evictPod asks for a pod's eviction, as kubectl drain does: the
// PodDisruptionBudget decides (429 when it does not allow it).
func evictPod(ctx context.Context, cs kubernetes.Interface, ns, name string) error {
	return cs.PolicyV1().Evictions(ns).Evict(ctx, &policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}})
}

func podReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

func podNames(pods []corev1.Pod) []string {
	var names []string
	for _, p := range pods {
		names = append(names, p.Name)
	}
	return names
}

// restarts is the sum of the pods' container restart counts.
func restarts(pods []corev1.Pod) int32 {
	var n int32
	for _, p := range pods {
		for _, c := range p.Status.ContainerStatuses {
			n += c.RestartCount
		}
	}
	return n
}

// servedCertAt dials a pod's webhook port directly (its address on the
// node's pod bridge) as kube-apiserver would, and returns the leaf.
func servedCertAt(podIP string, port int, serverName string, roots *x509.CertPool) (*x509.Certificate, error) {
	d := tls.Dialer{Config: &tls.Config{ServerName: serverName, RootCAs: roots, MinVersion: tls.VersionTLS12}}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	conn, err := d.DialContext(ctx, "tcp", net.JoinHostPort(podIP, strconv.Itoa(port)))
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	return conn.(*tls.Conn).ConnectionState().PeerCertificates[0], nil
}

// validateRequests reads a pod's metrics (its metrics port on the pod bridge)
// and returns how many requests its validating webhook answered with 200.
func validateRequests(t *testing.T, podIP string, port int) int {
	t.Helper()
	resp, err := http.Get("http://" + net.JoinHostPort(podIP, strconv.Itoa(port)) + "/metrics")
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	total := 0
	for _, m := range requestsMetric.FindAllStringSubmatch(string(b), -1) {
		if m[1] == admission.ValidatePath {
			v, _ := strconv.Atoi(m[2])
			total += v
		}
	}
	return total
}
