package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/airlock/listenerset-webhook/test/testproc"
)

// routeFixtures: HTTPRoutes in e2e-cl-a naming the ListenerSet shop
// (listeners web: HTTP 8080, shop.example.com; api: HTTP 8081): r-section
// by sectionName web (with web's hostname), r-port by port 8081, r-whole to
// the whole set with web's hostname (api, without one, takes it too), and
// r-keeps to the whole set without hostnames, which attaches to both.
var routeFixtures = strings.NewReplacer("$A", teamA).Replace(`
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r-section, namespace: $A}
spec:
  parentRefs: [{group: gateway.networking.k8s.io, kind: ListenerSet, name: shop, sectionName: web}]
  hostnames: [shop.example.com]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r-port, namespace: $A}
spec:
  parentRefs: [{group: gateway.networking.k8s.io, kind: ListenerSet, name: shop, port: 8081}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r-whole, namespace: $A}
spec:
  parentRefs: [{group: gateway.networking.k8s.io, kind: ListenerSet, name: shop}]
  hostnames: [shop.example.com]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r-keeps, namespace: $A}
spec:
  parentRefs: [{group: gateway.networking.k8s.io, kind: ListenerSet, name: shop}]
`)

// shopSet is the ListenerSet the routes name, as stored.
func shopSet(change func(web, api map[string]any) []any) map[string]any {
	web, api := hostnamed(httpListener("web", 8080), "shop.example.com"), httpListener("api", 8081)
	obj := clusterLS(teamA, "shop", "gw", web, api)
	if change != nil {
		spec(obj)["listeners"] = change(web, api)
	}
	return obj
}

// TestRoutesDetached: with --cluster-checks, an update of a ListenerSet
// that would leave HTTPRoutes attached by sectionName, by port or to the
// whole set attached to none of its listeners gets one warning per
// listener, naming them; a route that still attaches elsewhere is not
// named, an update that changes nothing routes read says nothing, and
// `kubectl delete` prints the same warnings and deletes.
func TestRoutesDetached(t *testing.T) {
	requireCluster(t)
	applyClusterFixtures(t)
	restartWebhook(t, webhookSettings{enabled: true})
	deleteIn(t, teamA, "shop")
	mustApply(t, shopSet(nil))
	if r := kubectl(t, routeFixtures, "apply", "-f", "-"); r.Err != nil {
		t.Fatalf("%v\n%s", r.Err, r.Output())
	}
	t.Cleanup(func() {
		kubectl(t, "", "delete", "httproute", "r-section", "r-port", "r-whole", "r-keeps", "-n", teamA, "--ignore-not-found")
	})
	const a = "e2e-cl-a/"
	removedWeb := `spec.listeners: 1 HTTPRoute attaches to listener "web", which the update removes (` + a + `r-section); it would no longer attach`
	// The view holds the routes once the rename warns.
	eventuallyWarns(t, shopSet(func(web, api map[string]any) []any { web["name"] = "www"; return []any{web, api} }), removedWeb)

	for _, tc := range []struct {
		name   string
		change func(web, api map[string]any) []any
		want   []string
	}{
		{"listener renamed: by sectionName detaches, the whole set's move", func(web, api map[string]any) []any {
			web["name"] = "www"
			return []any{web, api}
		}, []string{removedWeb}},
		{"listener removed: by port detaches, r-whole and r-keeps stay on web", func(web, _ map[string]any) []any {
			return []any{web}
		}, []string{`spec.listeners: 1 HTTPRoute attaches to listener "api", which the update removes (` + a + `r-port); it would no longer attach`}},
		{"hostname changed", func(web, api map[string]any) []any {
			web["hostname"] = "cart.example.com"
			return []any{web, api}
		}, []string{`spec.listeners[0]: 1 HTTPRoute attaches to listener "web" (` + a + `r-section); it would no longer attach`}},
		{"port changed", func(web, api map[string]any) []any {
			api["port"] = 8082
			return []any{web, api}
		}, []string{`spec.listeners[1]: 1 HTTPRoute attaches to listener "api" (` + a + `r-port); it would no longer attach`}},
		{"allowedRoutes narrowed", func(web, api map[string]any) []any {
			for _, l := range []map[string]any{web, api} {
				l["allowedRoutes"] = map[string]any{"namespaces": map[string]any{"from": "Selector",
					"selector": map[string]any{"matchLabels": map[string]any{"edge": "yes"}}}}
			}
			return []any{web, api}
		}, []string{
			// api has no hostname: the Selector lets other namespaces' routes claim any.
			`spec.listeners[1].allowedRoutes.namespaces.from: no hostname, and from Selector admits HTTPRoutes of other namespaces: ` +
				`each can claim any hostname on this listener; set a hostname, or from: Same`,
			`spec.listeners[0]: 3 HTTPRoutes attach to listener "web" (` + a + `r-keeps, ` + a + `r-section, ` + a + `r-whole); they would no longer attach`,
			`spec.listeners[1]: 3 HTTPRoutes attach to listener "api" (` + a + `r-keeps, ` + a + `r-port, ` + a + `r-whole); they would no longer attach`,
		}},
		{"a listener added: nothing detaches", func(web, api map[string]any) []any {
			return []any{web, api, httpListener("more", 8083)}
		}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := mustApply(t, shopSet(tc.change), "--dry-run=server")
			requireExactWarnings(t, r, tc.want...)
		})
	}

	// The audit, on the same cluster: a route whose sectionName names no
	// listener is reported on the route, the attached ones are not.
	bin, err := testproc.PluginBinary()
	require.NoError(t, err, "building cmd/kubectl-listenerset")
	auditArgs := []string{"audit", "--kubeconfig", cluster.KubeconfigPath, "-n", teamA, "--scope=all"}
	lost := strings.Replace(strings.SplitN(routeFixtures, "---", 2)[0], "r-section", "r-lost", 1)
	lost = strings.Replace(lost, "sectionName: web", "sectionName: www", 1)
	if r := kubectl(t, lost, "apply", "-f", "-"); r.Err != nil {
		t.Fatalf("%v\n%s", r.Err, r.Output())
	}
	t.Cleanup(func() { kubectl(t, "", "delete", "httproute", "r-lost", "-n", teamA, "--ignore-not-found") })
	stdout, stderr := runAudit(t, bin, 0, auditArgs...)
	assert.Contains(t, stdout, "httproute.gateway.networking.k8s.io/e2e-cl-a/r-lost attaches to nothing through 1 parentRef\n")
	assert.Contains(t, stderr, `Warning: spec.parentRefs[0]: attaches to no listener of ListenerSet e2e-cl-a/shop: no listener named "www" (NoMatchingParent)`)
	assert.NotContains(t, stdout, "r-section")

	t.Run("validate --kubeconfig", func(t *testing.T) {
		// The file renames web to www: against the cluster, r-section's
		// finding is introduced, r-lost's (it names www) fixed.
		file := filepath.Join(t.TempDir(), "shop.yaml")
		renamed := shopSet(func(web, api map[string]any) []any { web["name"] = "www"; return []any{web, api} })
		require.NoError(t, os.WriteFile(file, []byte(toYAML(t, renamed)), 0o600))
		stdout, _ := runAudit(t, bin, 0, "validate", "-f", file, "--kubeconfig", cluster.KubeconfigPath, "--scope=all", "-o", "jsonl")
		assert.Contains(t, stdout, `"namespace":"e2e-cl-a","name":"r-section","kind":"HTTPRoute","code":"LS311"`)
		assert.Contains(t, stdout, `no listener named \"web\" (NoMatchingParent)","baseline":"introduced"`)
		assert.Contains(t, stdout, `no listener named \"www\" (NoMatchingParent)","baseline":"fixed"`)
	})

	t.Run("delete", func(t *testing.T) {
		r := kubectl(t, "", "delete", "listenerset", "shop", "-n", teamA)
		if r.Err != nil {
			t.Fatalf("%v\n%s", r.Err, r.Output())
		}
		t.Logf("kubectl delete printed:\n%s", r.Output())
		requireExactWarnings(t, r,
			`spec.listeners[0]: 3 HTTPRoutes attach to listener "web" (`+a+`r-keeps, `+a+`r-section, `+a+`r-whole); they would no longer attach`,
			`spec.listeners[1]: 3 HTTPRoutes attach to listener "api" (`+a+`r-keeps, `+a+`r-port, `+a+`r-whole); they would no longer attach`)
		if !strings.Contains(r.Stdout, `listenerset.gateway.networking.k8s.io "shop" deleted`) {
			t.Errorf("not deleted:\n%s", r.Output())
		}
		// Now every route names a ListenerSet that does not exist.
		stdout, _ := runAudit(t, bin, 0, append(auditArgs, "-o", "jsonl")...)
		for _, name := range []string{"r-section", "r-port", "r-whole", "r-keeps", "r-lost"} {
			assert.Contains(t, stdout, `"namespace":"e2e-cl-a","name":"`+name+`","kind":"HTTPRoute","code":"LS311"`)
		}
		assert.Contains(t, stdout, `ListenerSet e2e-cl-a/shop not found (NoMatchingParent)`)
	})
}
