// Package chart tests charts/listenerset-webhook: helm lint and the schema,
// the rendered objects of each certificate mode and of the key values (Go
// tests over `helm template` output), a server-side dry-run of every rendered
// object against a real kube-apiserver with the cert-manager and Gateway API
// CRDs installed, and both modes end to end: the chart installed with the
// real helm into a local control plane, the webhook run as a process with the
// Deployment's own arguments, the Service's identity and RBAC, and
// kube-apiserver calling it over verified TLS, through certificate renewals
// (cert-manager mode) and a CA rotation (self-bootstrapped mode).
//
// With NODE_TESTS=1 (make test-node) TestNode (node_test.go) also installs
// the chart onto a real node (hack/node: kubelet, containerd, kube-proxy), so
// that what the tests above simulate (pods, probes, Service routing, Secret
// volumes, rollouts, evictions) is checked for real; without it TestNode is
// skipped.
//
// helm comes from hack/k8s-binaries.sh (built from its Go module, once per
// machine, linked into bin/helm/); the control plane from test/localcluster. -short runs the
// rendering tests only.
package chart

// The files test/chart generates: docs/chart.md's value table from
// values.yaml's comments, and values.schema.json's Kubernetes definitions.
//go:generate go test . -run ^(TestValuesTableIsGenerated|TestSchemaKubernetesDefinitionsAreGenerated)$ -count=1 -update

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	"github.com/airlock/listenerset-webhook/test/localcluster"
	"github.com/airlock/listenerset-webhook/test/testproc"
)

// The chart under test and the release the tests render or install.
const (
	chartPath = "charts/listenerset-webhook"
	release   = "listenerset-webhook"
	namespace = "airlock-lsw"
)

var (
	root string

	helmOnce sync.Once
	helmBin  string
	helmErr  error
)

func TestMain(m *testing.M) {
	flag.Parse()
	var err error
	if root, err = localcluster.RepoRoot(); err != nil {
		fmt.Fprintln(os.Stderr, "chart tests:", err)
		os.Exit(1)
	}
	code := m.Run()
	stopCluster()
	testproc.RemoveBinaries()
	os.Exit(code)
}

// logWriter receives the webhook processes' logs: CHART_TEST_LOGS=1 shows them.
func logWriter() io.Writer {
	if os.Getenv("CHART_TEST_LOGS") != "" {
		return os.Stderr
	}
	return io.Discard
}

// helm returns the path of helm, building it the first time (minutes on a
// fresh machine; the stamp makes later calls instant).
func helm(t testing.TB) string {
	t.Helper()
	helmOnce.Do(func() {
		script := filepath.Join(root, localcluster.BinariesScript)
		var out bytes.Buffer
		cmd := exec.Command("bash", script, "helm")
		cmd.Dir = root
		cmd.Stdout, cmd.Stderr = &out, io.MultiWriter(&out, os.Stderr)
		if err := cmd.Run(); err != nil {
			helmErr = fmt.Errorf("%s helm: %v\n%s", script, err, out.String())
			return
		}
		dir, err := exec.Command("bash", script, "helm-dir").Output()
		if err != nil {
			helmErr = fmt.Errorf("%s helm-dir: %v", script, err)
			return
		}
		helmBin = filepath.Join(strings.TrimSpace(string(dir)), "helm")
	})
	if helmErr != nil {
		t.Fatal(helmErr)
	}
	return helmBin
}

// runHelm runs helm with args in the repository root; HELM_* settings of the
// environment are replaced by a private cache and config.
func runHelm(ctx context.Context, t testing.TB, kubeconfig string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.CommandContext(ctx, helm(t), args...)
	cmd.Dir = root
	home := t.TempDir()
	cmd.Env = append(os.Environ(),
		"HELM_CACHE_HOME="+filepath.Join(home, "cache"),
		"HELM_CONFIG_HOME="+filepath.Join(home, "config"),
		"HELM_DATA_HOME="+filepath.Join(home, "data"),
	)
	if kubeconfig != "" {
		cmd.Env = append(cmd.Env, "KUBECONFIG="+kubeconfig)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if err != nil {
		return stdout.String() + stderr.String(), fmt.Errorf("helm %s: %w\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return stdout.String(), nil
}

// render runs `helm template` of the chart as release in namespace with the
// given helm arguments (e.g. "--set", "x=y"; --kube-version renderKubeVersion
// unless they name one) and returns its objects.
func render(t testing.TB, args ...string) objects {
	t.Helper()
	out, err := runHelm(context.Background(), t, "", templateArgs(release, namespace, args)...)
	if err != nil {
		t.Fatal(err)
	}
	objs, err := decodeObjects(out)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	return objs
}

// renderErr runs `helm template` and returns its error output; nil error means it rendered.
func renderErr(t testing.TB, args ...string) (string, error) {
	t.Helper()
	return runHelm(context.Background(), t, "", templateArgs(release, namespace, args)...)
}

// preloaded are the helm arguments every test install and render starts
// with: the chart's default image (localhost/, never pulled) is accepted, as
// on the node, which imports it (later --set arguments override it).
var preloaded = []string{"--set", "image.preloaded=true"}

// templateArgs are helm's arguments to render the chart as rel in ns with
// args, for Kubernetes renderKubeVersion unless args name another version:
// the chart's kubeVersion refuses helm template's own default (v1.20.0).
// Without the helm test's hooks (--skip-tests): what helm install creates
// (renderWithTests renders them too).
func templateArgs(rel, ns string, args []string) []string {
	a := append([]string{"template", rel, chartPath, "--namespace", ns, "--skip-tests"}, preloaded...)
	if !slices.Contains(args, "--kube-version") {
		a = append(a, "--kube-version", renderKubeVersion)
	}
	return append(a, args...)
}

func decodeObjects(manifests string) (objects, error) {
	dec := utilyaml.NewYAMLOrJSONDecoder(strings.NewReader(manifests), 4096)
	var objs objects
	for {
		u := &unstructured.Unstructured{}
		err := dec.Decode(&u.Object)
		if errors.Is(err, io.EOF) {
			return objs, nil
		}
		if err != nil {
			return nil, err
		}
		if len(u.Object) == 0 {
			continue
		}
		objs = append(objs, u)
	}
}

// objects are rendered manifests.
type objects []*unstructured.Unstructured

// get returns the object of kind and name, or fails.
func (o objects) get(t testing.TB, kind, name string) *unstructured.Unstructured {
	t.Helper()
	for _, u := range o {
		if u.GetKind() == kind && u.GetName() == name {
			return u
		}
	}
	t.Fatalf("no %s %q among %v", kind, name, o.ids())
	return nil
}

// ofKind returns the objects of kind.
func (o objects) ofKind(kind string) objects {
	var r objects
	for _, u := range o {
		if u.GetKind() == kind {
			r = append(r, u)
		}
	}
	return r
}

// ids lists "Kind/name" of every object, sorted as rendered.
func (o objects) ids() []string {
	var ids []string
	for _, u := range o {
		ids = append(ids, u.GetKind()+"/"+u.GetName())
	}
	return ids
}
