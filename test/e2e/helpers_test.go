package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
	"sigs.k8s.io/yaml"

	"github.com/airlock/listenerset-webhook/test/localcluster"
)

// example is one file of examples/valid or examples/invalid with what its
// comment header promises.
type example struct {
	Path string
	Name string
	// YAML is the whole file.
	YAML string
	// Object is the ListenerSet as a generic map.
	Object map[string]any
	// RejectedBy is "webhook" or "crd" (invalid examples only).
	RejectedBy string
	// Expect are strings kubectl's error output must contain.
	Expect []string
	// ExpectWarnings are strings that must each be on a "Warning:" line.
	ExpectWarnings []string
}

var headerLine = regexp.MustCompile(`^#\s*(expect|expect-warning|rejected-by):\s*(.+?)\s*$`)

func loadExamples(t *testing.T, dir string) []example {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(root, "examples", dir, "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no examples in examples/%s: %v", dir, err)
	}
	var out []example
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		ex := example{Path: f, Name: strings.TrimSuffix(filepath.Base(f), ".yaml"), YAML: string(data)}
		s := bufio.NewScanner(strings.NewReader(ex.YAML))
		for s.Scan() {
			m := headerLine.FindStringSubmatch(s.Text())
			if m == nil {
				continue
			}
			switch m[1] {
			case "expect":
				ex.Expect = append(ex.Expect, m[2])
			case "expect-warning":
				ex.ExpectWarnings = append(ex.ExpectWarnings, m[2])
			case "rejected-by":
				ex.RejectedBy = m[2]
			}
		}
		if err := yaml.Unmarshal(data, &ex.Object); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if ex.Object["kind"] != "ListenerSet" {
			t.Fatalf("%s: kind %v, want one ListenerSet per example file", f, ex.Object["kind"])
		}
		out = append(out, ex)
	}
	return out
}

func (ex example) objectName() string {
	return ex.Object["metadata"].(map[string]any)["name"].(string)
}

// clone deep-copies a generic object.
func clone(obj map[string]any) map[string]any {
	data, err := json.Marshal(obj)
	if err != nil {
		panic(err)
	}
	var out map[string]any
	if err := json.Unmarshal(data, &out); err != nil {
		panic(err)
	}
	return out
}

func toYAML(t *testing.T, obj map[string]any) string {
	t.Helper()
	data, err := yaml.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func spec(obj map[string]any) map[string]any { return obj["spec"].(map[string]any) }

func listeners(obj map[string]any) []any { return spec(obj)["listeners"].([]any) }

func listener(obj map[string]any, i int) map[string]any {
	return listeners(obj)[i].(map[string]any)
}

// listenerSet is a ListenerSet in the example namespace attached to the
// example Gateway, with the given listeners.
func listenerSet(name string, ls ...map[string]any) map[string]any {
	items := make([]any, len(ls))
	for i := range ls {
		items[i] = ls[i]
	}
	return map[string]any{
		"apiVersion": "gateway.networking.k8s.io/v1",
		"kind":       "ListenerSet",
		"metadata":   map[string]any{"name": name, "namespace": namespace},
		"spec": map[string]any{
			"parentRef": map[string]any{"name": "demo-gateway"},
			"listeners": items,
		},
	}
}

func httpListener(name string, port int) map[string]any {
	return map[string]any{"name": name, "protocol": "HTTP", "port": port}
}

func httpsListener(name string, port int, certs ...string) map[string]any {
	refs := make([]any, len(certs))
	for i, c := range certs {
		refs[i] = map[string]any{"name": c}
	}
	return map[string]any{
		"name": name, "protocol": "HTTPS", "port": port,
		"tls": map[string]any{"certificateRefs": refs},
	}
}

// baseline is a valid object with ex's name, for update tests.
func baseline(name string) map[string]any {
	return listenerSet(name, httpListener("baseline", 80))
}

// kubectl runs the real kubectl with a minute's deadline.
func kubectl(t *testing.T, stdin string, args ...string) localcluster.KubectlResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	return cluster.Kubectl(ctx, stdin, args...)
}

// apply runs `kubectl apply -f -` with obj plus extra flags.
func apply(t *testing.T, obj map[string]any, flags ...string) localcluster.KubectlResult {
	t.Helper()
	return kubectl(t, toYAML(t, obj), append([]string{"apply", "-f", "-"}, flags...)...)
}

// mustApply applies obj and fails the test with kubectl's output if that fails.
func mustApply(t *testing.T, obj map[string]any, flags ...string) localcluster.KubectlResult {
	t.Helper()
	r := apply(t, obj, flags...)
	if r.Err != nil {
		t.Fatalf("%v\n--- kubectl printed:\n%s", r.Err, r.Output())
	}
	return r
}

// mustReject applies obj, expects kubectl to fail, and checks that its output
// contains every string of want.
func mustReject(t *testing.T, obj map[string]any, want []string, flags ...string) localcluster.KubectlResult {
	t.Helper()
	r := apply(t, obj, flags...)
	if r.Err == nil {
		t.Fatalf("kubectl apply %v succeeded, want rejection\n--- kubectl printed:\n%s", flags, r.Output())
	}
	for _, w := range want {
		if !strings.Contains(r.Stderr, w) {
			t.Errorf("kubectl's error output lacks %q\n--- kubectl printed:\n%s", w, r.Output())
		}
	}
	return r
}

// warnings returns kubectl's "Warning: " lines, without the prefix.
func warnings(r localcluster.KubectlResult) []string {
	var out []string
	for _, line := range strings.Split(r.Stderr, "\n") {
		if rest, ok := strings.CutPrefix(line, "Warning: "); ok {
			out = append(out, rest)
		}
	}
	return out
}

// requireWarnings checks that each of want is contained in some Warning line.
func requireWarnings(t *testing.T, r localcluster.KubectlResult, want ...string) {
	t.Helper()
	got := warnings(r)
	for _, w := range want {
		if !slices.ContainsFunc(got, func(line string) bool { return strings.Contains(line, w) }) {
			t.Errorf("no kubectl Warning line contains %q\n--- kubectl printed:\n%s", w, r.Output())
		}
	}
}

// get reads the stored ListenerSet through kubectl; ok is false when it does
// not exist.
func get(t *testing.T, name string) (ls *gwv1.ListenerSet, raw map[string]any, ok bool) {
	t.Helper()
	r := kubectl(t, "", "get", "listenerset", name, "-n", namespace, "-o", "json", "--ignore-not-found")
	if r.Err != nil {
		t.Fatalf("%v\n%s", r.Err, r.Output())
	}
	if strings.TrimSpace(r.Stdout) == "" {
		return nil, nil, false
	}
	ls = &gwv1.ListenerSet{}
	if err := json.Unmarshal([]byte(r.Stdout), ls); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(r.Stdout), &raw); err != nil {
		t.Fatal(err)
	}
	return ls, raw, true
}

func mustNotExist(t *testing.T, name string) {
	t.Helper()
	if _, _, ok := get(t, name); ok {
		t.Errorf("ListenerSet %s/%s is stored, want nothing stored", namespace, name)
	}
}

func deleteLS(t *testing.T, name string) {
	t.Helper()
	r := kubectl(t, "", "delete", "listenerset", name, "-n", namespace, "--ignore-not-found", "--wait=true")
	if r.Err != nil {
		t.Fatalf("%v\n%s", r.Err, r.Output())
	}
}

// cleanupLS deletes the ListenerSet when the test ends, whatever happened.
func cleanupLS(t *testing.T, name string) {
	t.Helper()
	t.Cleanup(func() { deleteLS(t, name) })
}

// grant gives user exactly rules, cluster-wide, for the test's duration (a
// ClusterRole and its binding, both named user).
func grant(t *testing.T, user string, rules []rbacv1.PolicyRule) {
	t.Helper()
	ctx := context.Background()
	role := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: user}, Rules: rules}
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: user},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: user},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: user}},
	}
	for _, obj := range []client.Object{role, binding} {
		if err := cluster.Client.Create(ctx, obj); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { _ = cluster.Client.Delete(ctx, binding); _ = cluster.Client.Delete(ctx, role) })
}

// writeStatus writes status (a gwv1 status struct, or a map) to the
// object resource namespace/name ("" for a cluster-scoped one) through the
// status subresource, as a controller does: a merge patch of
// {"status": status}, so every list in status replaces the stored one.
func writeStatus(t *testing.T, resource, namespace, name string, status any) {
	t.Helper()
	body, err := json.Marshal(map[string]any{"status": status})
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"patch", resource, name, "--subresource=status", "--type=merge", "-p", string(body)}
	if namespace != "" {
		args = append(args, "-n", namespace)
	}
	if r := kubectl(t, "", args...); r.Err != nil {
		t.Fatalf("writing the status of %s %s/%s: %v\n%s", resource, namespace, name, r.Err, r.Output())
	}
}
