package chart

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilversion "k8s.io/apimachinery/pkg/util/version"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/airlock/listenerset-webhook/test/localcluster"
)

var (
	clusterOnce sync.Once
	testCluster *localcluster.Cluster
	clusterErr  error
)

// cluster returns the package's control plane, started on first use: etcd
// and kube-apiserver with the Gateway API CRDs (test/localcluster), plus
// cert-manager's CRDs from the cert-manager module this repository requires
// (its deploy/crds), and a stand-in ServiceMonitor CRD (testdata/crds).
// kube-apiserver routes calls to a Service to one of its EndpointSlices'
// addresses (--enable-aggregator-routing), as a cluster without kube-proxy
// must: that lets the chart's webhook configurations, which name the
// Service, reach webhook processes on this machine.
func cluster(t testing.TB) *localcluster.Cluster {
	t.Helper()
	if testing.Short() {
		t.Skip("needs kube-apiserver and etcd; skipped with -short")
	}
	clusterOnce.Do(func() {
		start := time.Now()
		testCluster, clusterErr = startCluster(context.Background())
		if clusterErr == nil {
			fmt.Fprintf(os.Stderr, "chart tests: control plane with cert-manager and Gateway API CRDs ready in %s\n",
				time.Since(start).Round(100*time.Millisecond))
		}
	})
	if clusterErr != nil {
		t.Fatalf("starting the control plane: %v", clusterErr)
	}
	return testCluster
}

func startCluster(ctx context.Context) (*localcluster.Cluster, error) {
	opts := localcluster.Options{
		Root: root, Progress: os.Stderr,
		APIServerArgs: map[string][]string{"enable-aggregator-routing": {"true"}},
	}
	if os.Getenv("CHART_TEST_CONTROL_PLANE_LOGS") != "" {
		opts.ControlPlaneOutput = os.Stderr
	}
	c, err := localcluster.Start(ctx, opts)
	if err != nil {
		return nil, err
	}
	cmDir, err := certManagerCRDDir(ctx)
	if err != nil {
		_ = c.Stop()
		return nil, err
	}
	crds, err := envtest.InstallCRDs(c.Config, envtest.CRDInstallOptions{
		Paths:              []string{cmDir, filepath.Join(root, "test", "chart", "testdata", "crds")},
		ErrorIfPathMissing: true,
		MaxTime:            time.Minute,
	})
	if err != nil {
		_ = c.Stop()
		return nil, fmt.Errorf("installing cert-manager and ServiceMonitor CRDs: %w", err)
	}
	if len(crds) < 7 {
		_ = c.Stop()
		return nil, fmt.Errorf("only %d CRDs installed from %s", len(crds), cmDir)
	}
	return c, nil
}

func stopCluster() {
	if testCluster != nil {
		if err := testCluster.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "chart tests: stopping the control plane:", err)
		}
	}
}

// certManagerCRDDir is deploy/crds of the cert-manager module in go.mod,
// straight from the module cache.
func certManagerCRDDir(ctx context.Context) (string, error) {
	cmd := exec.CommandContext(ctx, "go", "list", "-m", "-f", "{{.Dir}}", "github.com/cert-manager/cert-manager")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GOWORK=off")
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("locating the cert-manager module: %w", err)
	}
	dir := filepath.Join(strings.TrimSpace(string(out)), "deploy", "crds")
	if _, err := os.Stat(filepath.Join(dir, "cert-manager.io_certificates.yaml")); err != nil {
		return "", fmt.Errorf("no cert-manager CRDs in %s: %w", dir, err)
	}
	return dir, nil
}

// warnings collects the API server's warnings (deprecations and the like).
type warnings struct {
	mu   sync.Mutex
	list []string
}

func (w *warnings) HandleWarningHeader(_ int, _ string, text string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.list = append(w.list, text)
}

func (w *warnings) take() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	l := w.list
	w.list = nil
	return l
}

// warningClient is a client of c whose requests' warnings collect in the
// returned warnings.
func warningClient(t testing.TB, c *localcluster.Cluster) (client.Client, *warnings) {
	t.Helper()
	cfg := rest.CopyConfig(c.Config)
	warn := &warnings{}
	cfg.WarningHandler = warn
	cl, err := client.New(cfg, client.Options{})
	require.NoError(t, err)
	return cl, warn
}

// ensureNamespace creates ns unless it exists.
func ensureNamespace(ctx context.Context, t testing.TB, c client.Client, ns string) {
	t.Helper()
	err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
}

// TestServerSideDryRun: kube-apiserver accepts every object the chart renders
// for its version in every mode, under strict field validation (an unknown or
// duplicate field is an error, not a silent drop), with no warnings.
func TestServerSideDryRun(t *testing.T) {
	c := cluster(t)
	ctx := t.Context()
	cl, warn := warningClient(t, c)
	ensureNamespace(ctx, t, cl, namespace)
	version := serverVersion(t, c)

	everything := []string{
		"--set", "networkPolicy.enabled=true,metrics.serviceMonitor.enabled=true,metrics.serviceMonitor.labels.release=prom",
		"--set", "priorityClassName=system-cluster-critical,webhook.failurePolicy=Ignore,webhook.timeoutSeconds=30",
		"--set", "webhook.objectSelector.matchLabels.team=edge,webhook.excludeNamespaces={legacy}",
		"--set-json", `networkPolicy.metricsFrom=[{"namespaceSelector":{"matchLabels":{"kubernetes.io/metadata.name":"monitoring"}}}]`,
		"--set-json", `networkPolicy.egress=[{"ports":[{"port":443,"protocol":"TCP"},{"port":6443,"protocol":"TCP"}]}]`,
		"--set", "podDisruptionBudget.maxUnavailable=1,replicaCount=3,imagePullSecrets[0].name=regcred",
		"--set", "clusterChecks.enabled=true,clusterChecks.strict=true,clusterChecks.secrets=true",
	}
	autoscaling := []string{
		"--set", "autoscaling.enabled=true,autoscaling.minReplicas=3,autoscaling.maxReplicas=12",
		"--set", "autoscaling.targetCPUUtilizationPercentage=70,autoscaling.targetMemoryUtilizationPercentage=85",
		"--set-json", `autoscaling.behavior={"scaleUp":{"stabilizationWindowSeconds":30,"selectPolicy":"Max","tolerance":"50m",` +
			`"policies":[{"type":"Pods","value":2,"periodSeconds":60},{"type":"Percent","value":50,"periodSeconds":60}]},` +
			`"scaleDown":{"stabilizationWindowSeconds":600,"selectPolicy":"Min","policies":[{"type":"Pods","value":1,"periodSeconds":120}]}}`,
	}
	// tolerance is served from 1.35 only: older versions must refuse to render it
	tolerance := utilversion.MustParseGeneric(version).AtLeast(utilversion.MajorMinor(1, 35))
	for _, tc := range []struct {
		name string
		args []string
		want int // objects
	}{
		{"cert-manager mode, defaults", nil, 13},
		{"cert-manager mode, existing ClusterIssuer, every option", append([]string{
			"--set", "certManager.issuerRef.name=corp-ca,certManager.issuerRef.kind=ClusterIssuer"}, everything...), 11},
		// self-bootstrapped: +2, the caBundle fence (cabundle-policy.yaml) and its binding
		{"self-bootstrapped mode, defaults", []string{"--set", "certManager.enabled=false"}, 16},
		{"self-bootstrapped mode, the webhook creates its Secret, every option", append([]string{
			"--set", "certManager.enabled=false,selfBootstrapped.precreateSecret=false"}, everything...), 16},
		{"cert-manager mode, autoscaling defaults", []string{"--set", "autoscaling.enabled=true"}, 14},
		{"cert-manager mode, the UID left to the platform", []string{"--set", "platformAssignsUID=true"}, 13},
		{"self-bootstrapped mode, the UID left to the platform", []string{"--set", "certManager.enabled=false,platformAssignsUID=true"}, 16},
		{"self-bootstrapped mode, autoscaling on CPU and memory with behavior, every option", append(append([]string{
			"--set", "certManager.enabled=false,selfBootstrapped.precreateSecret=false"}, everything...), autoscaling...), 17},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"--kube-version", version}, tc.args...)
			if !tolerance && slices.Contains(tc.args, autoscaling[len(autoscaling)-1]) {
				_, err := renderErr(t, args...)
				assert.ErrorContains(t, err, "autoscaling.behavior.scaleUp.tolerance needs Kubernetes 1.35 or newer")
				return
			}
			objs := render(t, args...)
			assert.Len(t, objs, tc.want, "%v", objs.ids())
			for _, u := range objs {
				got := u.DeepCopy()
				err := cl.Create(ctx, got, client.DryRunAll, client.FieldValidation(metav1.FieldValidationStrict))
				assert.NoError(t, err, "%s/%s", u.GetKind(), u.GetName())
				if err == nil && u.GetKind() == "HorizontalPodAutoscaler" {
					// Nothing rendered is dropped (a field behind a disabled
					// feature gate, such as tolerance, would be, silently).
					assert.NoError(t, contains(got.Object["spec"], u.Object["spec"], "spec"), "the stored HPA")
				}
				if err == nil && u.GetKind() == "Deployment" {
					replicas, _, _ := unstructured.NestedInt64(got.Object, "spec", "replicas")
					_, rendered, _ := unstructured.NestedFieldNoCopy(u.Object, "spec", "replicas")
					assert.Equal(t, len(objs.ofKind("HorizontalPodAutoscaler")) == 0, rendered, "spec.replicas rendered exactly when there is no HPA")
					if !rendered {
						assert.Equal(t, int64(1), replicas, "kube-apiserver's default, until the HPA's first sync")
					}
				}
			}
			assert.Empty(t, warn.take(), "kube-apiserver warned")
		})
	}

	// Long names: the release name is cut to fit, every object is still valid.
	t.Run("long release and namespace names", func(t *testing.T) {
		longNS := "ns-" + strings.Repeat("n", 60)
		ensureNamespace(ctx, t, cl, longNS)
		for _, mode := range []string{"true", "false"} {
			out, err := runHelm(ctx, t, "", templateArgs("release-"+strings.Repeat("r", 45), longNS, []string{"--kube-version", version,
				"--set", "certManager.enabled=" + mode, "--set", "metrics.serviceMonitor.enabled=true",
				"--set", "networkPolicy.metricsFrom[0].podSelector.matchLabels.app=prometheus"})...)
			require.NoError(t, err)
			objs, err := decodeObjects(out)
			require.NoError(t, err)
			for _, u := range objs {
				err := cl.Create(ctx, u.DeepCopy(), client.DryRunAll, client.FieldValidation(metav1.FieldValidationStrict))
				assert.NoError(t, err, "%s/%s", u.GetKind(), u.GetName())
			}
		}
		assert.Empty(t, warn.take(), "kube-apiserver warned")
	})

	// The dry-run does catch mistakes: a misspelt field fails.
	objs := render(t)
	dep := objs.get(t, "Deployment", fullname).DeepCopy()
	dep.Object["spec"].(map[string]any)["replica"] = int64(2)
	err := cl.Create(ctx, dep, client.DryRunAll, client.FieldValidation(metav1.FieldValidationStrict))
	assert.ErrorContains(t, err, `unknown field "spec.replica"`)
	cert := objs.get(t, "Certificate", servingCert).DeepCopy()
	cert.Object["spec"].(map[string]any)["dnsName"] = []any{"x"}
	err = cl.Create(ctx, cert, client.DryRunAll, client.FieldValidation(metav1.FieldValidationStrict))
	assert.ErrorContains(t, err, `unknown field "spec.dnsName"`)
	hpa := render(t, "--set", "autoscaling.enabled=true").get(t, "HorizontalPodAutoscaler", fullname).DeepCopy()
	hpa.Object["spec"].(map[string]any)["minReplica"] = int64(2)
	err = cl.Create(ctx, hpa, client.DryRunAll, client.FieldValidation(metav1.FieldValidationStrict))
	assert.ErrorContains(t, err, `unknown field "spec.minReplica"`)
}

// contains says where want (rendered) has a value that got (returned by
// kube-apiserver) lacks or differs in; got may have more (defaults).
// Numbers compare by value, as YAML and JSON decode them differently.
func contains(got, want any, path string) error {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return fmt.Errorf("%s: got %v, want an object", path, got)
		}
		for k, wv := range w {
			gv, ok := g[k]
			if !ok {
				return fmt.Errorf("%s.%s: dropped", path, k)
			}
			if err := contains(gv, wv, path+"."+k); err != nil {
				return err
			}
		}
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return fmt.Errorf("%s: got %v, want %v", path, got, want)
		}
		for i := range w {
			if err := contains(g[i], w[i], fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
	default:
		if fmt.Sprint(got) != fmt.Sprint(want) {
			return fmt.Errorf("%s: got %v, want %v", path, got, want)
		}
	}
	return nil
}
