package chart

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/airlock/listenerset-webhook/test/localcluster"
	"github.com/airlock/listenerset-webhook/test/testproc"
)

// hostIP is an address of this machine that an EndpointSlice may hold
// (kube-apiserver refuses loopback and link-local endpoints) and that the
// webhook processes listen on.
func hostIP(t testing.TB) net.IP {
	t.Helper()
	addrs, err := net.InterfaceAddrs()
	require.NoError(t, err)
	var v6 net.IP
	for _, a := range addrs {
		n, ok := a.(*net.IPNet)
		if !ok || n.IP.IsLoopback() || n.IP.IsLinkLocalUnicast() || n.IP.IsMulticast() || n.IP.IsUnspecified() {
			continue
		}
		if n.IP.To4() != nil {
			return n.IP
		}
		if v6 == nil {
			v6 = n.IP
		}
	}
	if v6 != nil {
		return v6
	}
	t.Fatalf("no non-loopback address on this machine for an EndpointSlice (have %v)", addrs)
	return nil
}

// release is a helm release installed into the test cluster.
type helmRelease struct {
	name, ns   string
	kubeconfig string
	full       string // the objects' name when not fullname()'s: a name that contains the chart's
}

// installChart runs `helm install` of the chart into the cluster.
func installChart(ctx context.Context, t testing.TB, c *localcluster.Cluster, name, ns string, args ...string) *helmRelease {
	t.Helper()
	out, err := runHelm(ctx, t, c.KubeconfigPath,
		append(append([]string{"install", name, chartPath, "--namespace", ns, "--create-namespace"}, preloaded...), args...)...)
	require.NoError(t, err, out)
	return &helmRelease{name: name, ns: ns, kubeconfig: c.KubeconfigPath}
}

func (r *helmRelease) helm(ctx context.Context, t testing.TB, args ...string) string {
	t.Helper()
	out, err := runHelm(ctx, t, r.kubeconfig, append(args, "--namespace", r.ns)...)
	require.NoError(t, err, out)
	return out
}

// fullname is what the chart calls the release's objects.
func (r *helmRelease) fullname() string {
	if r.full != "" {
		return r.full
	}
	return r.name + "-listenerset-webhook"
}

// serverName is the name kube-apiserver verifies: <svc>.<ns>.svc.
func (r *helmRelease) serverName() string { return r.fullname() + "." + r.ns + ".svc" }

// deployment reads the release's Deployment as installed.
func (r *helmRelease) deployment(ctx context.Context, t testing.TB, c client.Client) *appsv1.Deployment {
	t.Helper()
	d := &appsv1.Deployment{}
	require.NoError(t, c.Get(ctx, client.ObjectKey{Namespace: r.ns, Name: r.fullname()}, d))
	return d
}

// serviceAccountKubeconfig is a kubeconfig that authenticates as the pods'
// ServiceAccount would (its user name and groups, by client certificate), so
// the webhook gets exactly the chart's RBAC.
func serviceAccountKubeconfig(t testing.TB, c *localcluster.Cluster, ns, sa string) string {
	t.Helper()
	user, err := c.Env.AddUser(envtest.User{
		Name:   "system:serviceaccount:" + ns + ":" + sa,
		Groups: []string{"system:serviceaccounts", "system:serviceaccounts:" + ns, "system:authenticated"},
	}, nil)
	require.NoError(t, err)
	kc, err := user.KubeConfig()
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "sa-kubeconfig")
	require.NoError(t, os.WriteFile(path, kc, 0o600))
	return path
}

// replica is one webhook process, started with a Deployment's container
// args plus the overrides a pod would not need (ports of this machine).
type replica struct {
	name  string
	bin   string
	args  []string
	env   []string
	ports testproc.Ports // the webhooks on every address, health and metrics on 127.0.0.1
	proc  *testproc.Process
	logs  lockedBuffer // everything the process wrote, for checkNoSecretsInLog
}

func newReplica(t testing.TB, name string, podArgs []string, extra ...string) *replica {
	t.Helper()
	bin, err := testproc.WebhookBinary()
	require.NoError(t, err)
	ports, err := testproc.NewPorts()
	require.NoError(t, err)
	r := &replica{
		name: name, bin: bin, ports: ports,
		// HOME without a kubeconfig: the process reaches the API only if
		// given --kubeconfig.
		env: []string{"HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH")},
	}
	// Later flags win: the pod's own args first, then this machine's ports
	// (no --host: kube-apiserver reaches the replica at hostIP).
	r.args = append(append(append([]string{}, podArgs...), ports.Flags()...),
		"--zap-log-level=1",
		// No Service endpoints to leave here: stop at once on SIGTERM
		// instead of after the chart's shutdownDelaySeconds, and wait
		// seconds, not the chart's shutdownTimeoutSeconds, for
		// kube-apiserver to close the connections it keeps alive.
		"--shutdown-delay=0s", "--shutdown-timeout=5s",
	)
	r.args = append(r.args, extra...)
	t.Cleanup(func() { r.stop(t) })
	return r
}

func (r *replica) start(t testing.TB) {
	t.Helper()
	cmd := exec.Command(r.bin, r.args...)
	cmd.Env = r.env
	w := io.MultiWriter(prefixWriter(logWriter(), "["+r.name+"] "), &r.logs)
	cmd.Stdout, cmd.Stderr = w, w
	var err error
	r.proc, err = testproc.Start(cmd, "")
	require.NoError(t, err)
}

// waitReady waits for /readyz, which the webhook answers 200 once its TLS
// listener serves a certificate.
func (r *replica) waitReady(t testing.TB, timeout time.Duration) {
	t.Helper()
	if err := testproc.WaitReady(context.Background(), r.ports.ReadyzURL(), timeout, r.proc.Ended); err != nil {
		t.Fatalf("%s: %v (CHART_TEST_LOGS=1 shows its log)", r.name, err)
	}
}

// stop sends SIGTERM, as the kubelet does, and waits.
func (r *replica) stop(t testing.TB) {
	t.Helper()
	if r.proc == nil {
		return
	}
	proc := r.proc
	r.proc = nil
	if err := proc.Stop(70 * time.Second); err != nil {
		t.Errorf("%s: %v", r.name, err)
	}
	checkNoSecretsInLog(t, r.name, r.logs.String())
}

// secretsSeen are private keys the tests handed to or read from the cluster
// (noteSecret); checkNoSecretsInLog looks for each in the webhook's log.
var secretsSeen struct {
	sync.Mutex
	chunks []string
}

// noteSecret records the base64 lines of a PEM private key, so that a log
// that printed the key (as PEM, as base64 of the DER, or inside a dumped
// Secret) is caught by checkNoSecretsInLog.
func noteSecret(keyPEM []byte) {
	secretsSeen.Lock()
	defer secretsSeen.Unlock()
	for _, line := range strings.Split(string(keyPEM), "\n") {
		if line = strings.TrimSpace(line); len(line) >= 40 && !strings.HasPrefix(line, "-----") {
			secretsSeen.chunks = append(secretsSeen.chunks, line)
		}
	}
}

// checkNoSecretsInLog fails when the log of a webhook process (run at debug
// level, --zap-log-level=1) shows private key material: a PEM block, a base64
// encoded PEM block (a Secret's data as the API returns it), or a line of a
// key the test knows.
func checkNoSecretsInLog(t testing.TB, name, log string) {
	t.Helper()
	for _, marker := range []string{"PRIVATE KEY", "LS0tLS1CRUdJTi" /* base64 of "-----BEGIN" */} {
		if strings.Contains(log, marker) {
			t.Errorf("%s logged private key material (%q)", name, marker)
		}
	}
	secretsSeen.Lock()
	defer secretsSeen.Unlock()
	for _, c := range secretsSeen.chunks {
		if strings.Contains(log, c) {
			t.Errorf("%s logged a line of a private key", name)
			return
		}
	}
}

// lockedBuffer collects a process's stdout and stderr, which exec copies
// from two goroutines.
type lockedBuffer struct {
	mu  sync.Mutex
	buf strings.Builder
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// servedCert dials the replica directly as kube-apiserver would (server name
// serverName, roots) and returns the leaf, or the handshake error.
func (r *replica) servedCert(serverName string, roots *x509.CertPool) (*x509.Certificate, error) {
	d := tls.Dialer{Config: &tls.Config{ServerName: serverName, RootCAs: roots, MinVersion: tls.VersionTLS12}}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	conn, err := d.DialContext(ctx, "tcp", r.ports.Addr())
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	return conn.(*tls.Conn).ConnectionState().PeerCertificates[0], nil
}

// series is the value of one series of the replica's /metrics (its name
// and labels as the page writes them), 0 while it is absent.
func (r *replica) series(t testing.TB, series string) float64 {
	t.Helper()
	for _, line := range strings.Split(r.metrics(t), "\n") {
		if v, ok := strings.CutPrefix(line, series+" "); ok {
			f, err := strconv.ParseFloat(v, 64)
			require.NoError(t, err, line)
			return f
		}
	}
	return 0
}

// metrics is the replica's /metrics page.
func (r *replica) metrics(t testing.TB) string {
	t.Helper()
	resp, err := http.Get("http://" + r.ports.MetricsAddr() + "/metrics")
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return string(body)
}

var requestsMetric = regexp.MustCompile(`(?m)^controller_runtime_webhook_requests_total\{code="200",webhook="([^"]+)"\} (\d+)`)

// requests is how many requests the replica answered with 200, per path.
func (r *replica) requests(t testing.TB) map[string]int {
	t.Helper()
	got := map[string]int{}
	for _, m := range requestsMetric.FindAllStringSubmatch(r.metrics(t), -1) {
		n, _ := strconv.Atoi(m[2])
		got[m[1]] = n
	}
	return got
}

// endpointSlice puts a ready replica behind the release's Service, as the
// EndpointSlice controller does for a ready pod: kube-apiserver then sends
// webhook calls for the Service's https port to ip:replica.port.
func endpointSlice(ctx context.Context, t testing.TB, c client.Client, rel *helmRelease, r *replica, ip net.IP) *discoveryv1.EndpointSlice {
	t.Helper()
	addrType := discoveryv1.AddressTypeIPv4
	if ip.To4() == nil {
		addrType = discoveryv1.AddressTypeIPv6
	}
	s := &discoveryv1.EndpointSlice{
		ObjectMeta: metav1.ObjectMeta{
			Name: rel.fullname() + "-" + r.name, Namespace: rel.ns,
			Labels: map[string]string{
				discoveryv1.LabelServiceName: rel.fullname(),
				discoveryv1.LabelManagedBy:   "chart-test",
			},
		},
		AddressType: addrType,
		Endpoints: []discoveryv1.Endpoint{{
			Addresses:  []string{ip.String()},
			Conditions: discoveryv1.EndpointConditions{Ready: ptr.To(true)},
		}},
		Ports: []discoveryv1.EndpointPort{{
			Name: ptr.To("https"), Port: ptr.To(int32(r.ports.Webhook)), Protocol: ptr.To(corev1.ProtocolTCP),
		}},
	}
	require.NoError(t, c.Create(ctx, s))
	return s
}

// listenerSet is a ListenerSet in ns; valid or (protocol TCP) rejected by the
// validating webhook only.
func listenerSet(ns, name string, valid bool) *unstructured.Unstructured {
	protocol := "HTTP"
	if !valid {
		protocol = "TCP"
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "gateway.networking.k8s.io/v1",
		"kind":       "ListenerSet",
		"metadata":   map[string]any{"name": name, "namespace": ns},
		"spec": map[string]any{
			"parentRef": map[string]any{"name": "gw"},
			"listeners": []any{map[string]any{"name": "web", "protocol": protocol, "port": int64(8080)}},
		},
	}}
}

// curveListenerSet is a ListenerSet of one HTTPS listener whose
// ecdhCurves option is curves.
func curveListenerSet(ns, name, curves string) *unstructured.Unstructured {
	ls := listenerSet(ns, name, true)
	ls.Object["spec"].(map[string]any)["listeners"] = []any{map[string]any{
		"name": "tls", "protocol": "HTTPS", "port": int64(8443),
		"tls": map[string]any{
			"certificateRefs": []any{map[string]any{"name": "cert"}},
			"options":         map[string]any{"microgateway.airlock.com/ecdhCurves": curves},
		},
	}}
	return ls
}

var denied = fmt.Sprintf("admission webhook %q denied the request", localcluster.ValidatingWebhookName)

// checkAdmission sends one valid and one invalid ListenerSet (server-side
// dry-run) and says what went wrong, if anything: the valid one must be
// admitted (both webhooks answered), the invalid one denied by the webhook.
func checkAdmission(ctx context.Context, c client.Client, ns string, i int) error {
	err := c.Create(ctx, listenerSet(ns, fmt.Sprintf("ok-%d", i), true), client.DryRunAll)
	if err != nil {
		return fmt.Errorf("valid ListenerSet: %w", err)
	}
	err = c.Create(ctx, listenerSet(ns, fmt.Sprintf("bad-%d", i), false), client.DryRunAll)
	switch {
	case err == nil:
		return errors.New("invalid ListenerSet admitted")
	case !strings.Contains(err.Error(), denied) || !strings.Contains(err.Error(), "spec.listeners[0].protocol"):
		return fmt.Errorf("invalid ListenerSet: %w", err)
	}
	return nil
}

// load sends checkAdmission pairs from workers goroutines until stopped.
type load struct {
	cancel context.CancelFunc
	wg     sync.WaitGroup
	ok     atomic.Int64
	mu     sync.Mutex
	errs   []string
}

func startLoad(c client.Client, ns string, workers int) *load {
	ctx, cancel := context.WithCancel(context.Background())
	l := &load{cancel: cancel}
	for w := range workers {
		l.wg.Add(1)
		go func() {
			defer l.wg.Done()
			for i := 0; ctx.Err() == nil; i++ {
				err := checkAdmission(ctx, c, ns, w*1_000_000+i)
				if ctx.Err() != nil {
					return
				}
				l.record(err)
				time.Sleep(20 * time.Millisecond)
			}
		}()
	}
	return l
}

// record counts a pair that passed, or keeps its failure with the time.
func (l *load) record(err error) {
	if err == nil {
		l.ok.Add(1)
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.errs = append(l.errs, time.Now().Format("15:04:05.000")+" "+err.Error())
}

// await waits until n more pairs have passed than when it was called: the
// load has gone on through kube-apiserver in between.
func (l *load) await(t testing.TB, n int64, timeout time.Duration) {
	t.Helper()
	want := l.ok.Load() + n
	eventually(t, timeout, fmt.Sprintf("%d more request pairs through kube-apiserver", n), func() error {
		if got := l.ok.Load(); got < want {
			return fmt.Errorf("%d of %d", got, want)
		}
		return nil
	})
}

// stop ends the load and returns the pairs that passed and the failures.
func (l *load) stop() (int64, []string) {
	l.cancel()
	l.wg.Wait()
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.ok.Load(), l.errs
}

// canI asks kube-apiserver whether user may do verb on resource/name.
func canI(ctx context.Context, t testing.TB, c client.Client, user string, groups []string, attrs authorizationv1.ResourceAttributes) bool {
	t.Helper()
	sar := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
		User: user, Groups: groups, ResourceAttributes: &attrs,
	}}
	require.NoError(t, c.Create(ctx, sar))
	return sar.Status.Allowed
}

// ensureLabelledNamespace creates ns with labels (the releases under test
// only see namespaces labelled for them).
func ensureLabelledNamespace(ctx context.Context, t testing.TB, c client.Client, ns string, labels map[string]string) {
	t.Helper()
	err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns, Labels: labels}})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
}

// eventually polls cond every 100ms until it returns nil or timeout passes.
func eventually(t testing.TB, timeout time.Duration, what string, cond func() error) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		err := cond()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %s: %v", what, timeout, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func pool(certs ...*x509.Certificate) *x509.CertPool {
	p := x509.NewCertPool()
	for _, c := range certs {
		p.AddCert(c)
	}
	return p
}

// prefixWriter prefixes each write (log line) with p.
func prefixWriter(w io.Writer, p string) io.Writer {
	if w == io.Discard {
		return w
	}
	return writerFunc(func(b []byte) (int, error) {
		_, err := fmt.Fprintf(w, "%s%s", p, b)
		return len(b), err
	})
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(b []byte) (int, error) { return f(b) }
