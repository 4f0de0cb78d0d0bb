package localcluster

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"
)

// TestGatewayAPICRDs: each set of the end-to-end matrix resolves to its
// module's CRD directory, whose ListenerSet CRD carries the set's version
// and channel; the empty set is the product's standard channel; a version
// no module provides, or another channel, is an error. The v1.7.0 set comes
// from hack/tools/gatewayapi-crds, whose module asks for Go 1.27 and is
// fetched with this (older) Go all the same.
func TestGatewayAPICRDs(t *testing.T) {
	if testing.Short() {
		t.Skip("may download sigs.k8s.io/gateway-api through the Go module proxy; skipped with -short")
	}
	ctx := context.Background()
	root, err := RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	crds := map[CRDSet]*apiextensionsv1.CustomResourceDefinition{}
	for _, set := range []CRDSet{"", CRDsV151Standard, CRDsV163Standard, "v1.6.3-experimental", CRDsV170Standard, CRDsV170Experimental} {
		dir, resolved, err := GatewayAPICRDs(ctx, root, set)
		if err != nil {
			t.Fatalf("%q: %v", set, err)
		}
		if set == "" {
			if resolved != CRDsV163Standard {
				t.Errorf("the empty set resolved to %s, want %s (the product's go.mod moved? then move CRDsV163Standard too)", resolved, CRDsV163Standard)
			}
			continue
		}
		if resolved != set || !strings.HasSuffix(dir, filepath.Join("config", "crd", set.Channel())) {
			t.Errorf("%s: resolved %s in %s", set, resolved, dir)
		}
		crd := readListenerSetCRD(t, dir)
		if got := crd.Annotations["gateway.networking.k8s.io/bundle-version"]; got != set.Version() {
			t.Errorf("%s: bundle-version %q", set, got)
		}
		if got := crd.Annotations["gateway.networking.k8s.io/channel"]; got != set.Channel() {
			t.Errorf("%s: channel %q", set, got)
		}
		crds[set] = crd
	}

	// What the issue says of v1.7.0, checked on the files: its standard
	// ListenerSet CRD is v1.6.3's but for annotations, and its experimental
	// one adds spec.listeners[].filters and nothing else.
	if !reflect.DeepEqual(crds[CRDsV163Standard].Spec, crds[CRDsV170Standard].Spec) {
		t.Errorf("the ListenerSet CRD's spec differs between %s and %s", CRDsV163Standard, CRDsV170Standard)
	}
	experimental := crds[CRDsV170Experimental].Spec.DeepCopy()
	if len(experimental.Versions) != 1 || experimental.Versions[0].Name != "v1" {
		t.Fatalf("%s serves %d versions, want v1 only", CRDsV170Experimental, len(experimental.Versions))
	}
	items := experimental.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"].Properties["listeners"].Items.Schema
	if _, ok := items.Properties["filters"]; !ok {
		t.Errorf("%s: spec.listeners[] has no filters", CRDsV170Experimental)
	}
	delete(items.Properties, "filters")
	if !reflect.DeepEqual(*experimental, crds[CRDsV170Standard].Spec) {
		t.Errorf("%s's ListenerSet CRD differs from %s's in more than spec.listeners[].filters", CRDsV170Experimental, CRDsV170Standard)
	}

	// v1.5.1 serves ListenerSet v1 in its standard channel, the first release to.
	if v := crds[CRDsV151Standard].Spec.Versions; len(v) != 1 || v[0].Name != "v1" || !v[0].Served {
		t.Errorf("%s's ListenerSet CRD serves %v, want v1 only", CRDsV151Standard, v)
	}

	for _, bad := range []CRDSet{"v9.9.9-standard", "v1.7.0-beta", "standard", "v1.7.0"} {
		if dir, _, err := GatewayAPICRDs(ctx, root, bad); err == nil {
			t.Errorf("%q resolved to %s, want an error", bad, dir)
		}
	}
}

func readListenerSetCRD(t *testing.T, dir string) *apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, listenerSetCRDFile))
	if err != nil {
		t.Fatal(err)
	}
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := yaml.Unmarshal(data, crd); err != nil {
		t.Fatal(err)
	}
	if crd.Name != "listenersets.gateway.networking.k8s.io" || !slices.ContainsFunc(crd.Spec.Versions, func(v apiextensionsv1.CustomResourceDefinitionVersion) bool { return v.Served }) {
		t.Fatalf("%s: not the ListenerSet CRD: %s", dir, crd.Name)
	}
	return crd
}

// TestDownloadToolsGatewayAPI: the tools module's version is fetched into a
// module cache of its own, exactly as on a machine that never had it (the
// go command unpacks it, then reports that it needs a newer Go); a go.sum
// that does not match what the proxy serves is refused before anything is
// unpacked.
func TestDownloadToolsGatewayAPI(t *testing.T) {
	if testing.Short() {
		t.Skip("downloads sigs.k8s.io/gateway-api through the Go module proxy; skipped with -short")
	}
	ctx := context.Background()
	root, err := RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	version, err := toolsGatewayAPIVersion(root, GatewayAPIToolsModule)
	if err != nil {
		t.Fatal(err)
	}
	// A fresh module cache, writable so that t.TempDir can remove it.
	t.Setenv("GOMODCACHE", t.TempDir())
	t.Setenv("GOFLAGS", "-modcacherw")
	tools := filepath.Join(root, GatewayAPIToolsModule)
	dir, err := downloadToolsGatewayAPI(ctx, tools, version)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(dir, os.Getenv("GOMODCACHE")) {
		t.Errorf("unpacked into %s, not the fresh module cache", dir)
	}
	if _, err := os.Stat(filepath.Join(dir, "config", "crd", "experimental", listenerSetCRDFile)); err != nil {
		t.Error(err)
	}

	// The same module with a go.sum that does not match.
	bad := t.TempDir()
	goMod, err := os.ReadFile(filepath.Join(tools, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	sum, err := goSumLine(tools, version)
	if err != nil {
		t.Fatal(err)
	}
	wrong := "h1:" + strings.Repeat("A", len(sum)-4) + "="
	if err := os.WriteFile(filepath.Join(bad, "go.mod"), goMod, 0o644); err != nil {
		t.Fatal(err)
	}
	goSum, err := os.ReadFile(filepath.Join(tools, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bad, "go.sum"), []byte(strings.Replace(string(goSum), sum, wrong, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GOMODCACHE", t.TempDir())
	if dir, err := downloadToolsGatewayAPI(ctx, bad, version); err == nil || !strings.Contains(err.Error(), "checksum mismatch") {
		t.Errorf("with a wrong go.sum: %s, %v; want a checksum mismatch", dir, err)
	}
}

// TestCRDPathsForOldServers: a kube-apiserver older than a CRD file needs
// gets every other file of the set; from that minor on, every file.
func TestCRDPathsForOldServers(t *testing.T) {
	if testing.Short() {
		t.Skip("may download sigs.k8s.io/gateway-api through the Go module proxy; skipped with -short")
	}
	root, err := RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	dir, _, err := GatewayAPICRDs(context.Background(), root, CRDsV163Standard)
	if err != nil {
		t.Fatal(err)
	}
	all, err := crdPaths(dir, "v1.37.2", new([]string))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		version string
		want    []string
	}{
		{"v1.30.14", []string{"gateway.networking.k8s.io_tlsroutes.yaml"}},
		{"v1.31.0", nil},
		{"v1.37.2", nil},
	} {
		var left []string
		paths, err := crdPaths(dir, tc.version, &left)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(left, tc.want) || len(paths)+len(left) != len(all) {
			t.Errorf("%s: left out %v (want %v), %d of %d files", tc.version, left, tc.want, len(paths), len(all))
		}
		if slices.Contains(left, listenerSetCRDFile) {
			t.Errorf("%s: the ListenerSet CRD left out", tc.version)
		}
	}
	if _, err := crdPaths(dir, "1.30", new([]string)); err == nil {
		t.Error("a version without its v: no error")
	}
}
