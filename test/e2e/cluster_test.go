package e2e

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/test/localcluster"
	"github.com/airlock/listenerset-webhook/webhook/clusterview"
)

// The cluster-aware tests live in namespaces of their own, with Gateways of
// their own, so that nothing here meets the examples' objects.
const (
	gwNS    = "e2e-cl-gw"    // the Gateways
	teamA   = "e2e-cl-a"     // admitted by gw's selector
	teamB   = "e2e-cl-b"     // admitted by gw's selector; granted e2e-cl-certs' Secrets
	teamC   = "e2e-cl-c"     // not admitted by gw's selector
	certsNS = "e2e-cl-certs" // Secrets for cross-namespace references
)

// clusterFixtures: gw admits namespaces labelled gateway-access=yes and has
// an HTTPS listener on 443; same admits its own namespace only; closed says
// nothing (allowedListeners None); e2e-cl-a/present and
// e2e-cl-certs/shared exist (applied by kubectl, so their last-applied
// annotation holds their data); a ReferenceGrant in e2e-cl-certs lets
// ListenerSets of e2e-cl-b use its Secrets.
var clusterFixtures = strings.NewReplacer("$GW", gwNS, "$A", teamA, "$B", teamB, "$CERTS", certsNS, "$C", teamC).Replace(`
apiVersion: v1
kind: Namespace
metadata: {name: $GW}
---
apiVersion: v1
kind: Namespace
metadata: {name: $A, labels: {gateway-access: "yes"}}
---
apiVersion: v1
kind: Namespace
metadata: {name: $B, labels: {gateway-access: "yes"}}
---
apiVersion: v1
kind: Namespace
metadata: {name: $C}
---
apiVersion: v1
kind: Namespace
metadata: {name: $CERTS}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: $GW}
spec:
  gatewayClassName: airlock-microgateway
  allowedListeners:
    namespaces:
      from: Selector
      selector: {matchLabels: {gateway-access: "yes"}}
  listeners:
  - {name: https, protocol: HTTPS, port: 443, tls: {certificateRefs: [{name: gw-cert}]}}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: same, namespace: $GW}
spec:
  gatewayClassName: airlock-microgateway
  allowedListeners: {namespaces: {from: Same}}
  listeners:
  - {name: http, protocol: HTTP, port: 80}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: closed, namespace: $GW}
spec:
  gatewayClassName: airlock-microgateway
  listeners:
  - {name: http, protocol: HTTP, port: 80}
---
apiVersion: v1
kind: Secret
metadata: {name: present, namespace: $A}
stringData: {tls.key: not-really-a-key}
---
apiVersion: v1
kind: Secret
metadata: {name: shared, namespace: $CERTS}
stringData: {tls.key: not-really-a-key}
---
apiVersion: gateway.networking.k8s.io/v1
kind: ReferenceGrant
metadata: {name: from-team-b, namespace: $CERTS}
spec:
  from: [{group: gateway.networking.k8s.io, kind: ListenerSet, namespace: $B}]
  to: [{group: "", kind: Secret}]
`)

func applyClusterFixtures(t *testing.T) {
	t.Helper()
	if r := kubectl(t, clusterFixtures, "apply", "-f", "-"); r.Err != nil {
		t.Fatalf("%v\n%s", r.Err, r.Output())
	}
}

// restartWebhook restarts the webhook with the settings c (cluster-aware checks, enforcement, added names), waits
// until kube-apiserver calls it again and every kind of its view has synced
// (listenerset_webhook_cluster_view_synced), and restarts it as it was when
// the test ends.
func restartWebhook(t *testing.T, c webhookSettings) {
	t.Helper()
	t.Cleanup(func() {
		if err := restartWith(webhookSettings{}); err != nil {
			t.Fatalf("restarting the webhook without cluster checks: %v", err) // later tests need it
		}
	})
	switchWebhook(t, c)
}

// switchWebhook restarts the webhook with the settings c as restartWebhook
// does, without restoring it at the end: for a test (or its subtest) that
// has called restartWebhook, whose cleanup restores it once.
func switchWebhook(t *testing.T, c webhookSettings) {
	t.Helper()
	start := time.Now()
	if err := restartWith(c); err != nil {
		t.Fatalf("restarting the webhook with %+v: %v", c, err)
	}
	var kinds []string
	if c.enabled || len(c.scope) > 0 {
		kinds = append(kinds, clusterview.KindGateway)
	}
	if len(c.scope) > 0 {
		kinds = append(kinds, clusterview.KindGatewayClass)
	}
	if c.enabled {
		kinds = append(kinds, clusterview.KindListenerSet, clusterview.KindReferenceGrant, clusterview.KindNamespace, clusterview.KindHTTPRoute)
	}
	if len(kinds) == 0 {
		return
	}
	if c.secrets {
		kinds = append(kinds, clusterview.KindSecret)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		synced, metrics := syncedKinds(t)
		if !slices.ContainsFunc(kinds, func(k string) bool { return !slices.Contains(synced, k) }) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("cluster view not synced 30s after the restart: synced %v of %v\n%s", synced, kinds, metrics)
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Logf("webhook restarted with %+v and its view synced in %s", c, time.Since(start).Round(time.Millisecond))
}

// restartWith stops the webhook, starts it with the settings c and waits
// until kube-apiserver calls it again.
func restartWith(c webhookSettings) error {
	ctx := context.Background()
	if err := hook.Stop(); err != nil {
		return err
	}
	hook.UseSettings(c)
	if err := hook.Start(ctx); err != nil {
		return err
	}
	return cluster.WaitForWebhook(ctx, namespace, 30*time.Second)
}

// syncedKinds reads the kinds whose ClusterSyncedMetric is 1 from the
// webhook's /metrics.
func syncedKinds(t *testing.T) (kinds []string, metrics string) {
	t.Helper()
	resp, err := http.Get(hook.MetricsURL())
	if err != nil {
		return nil, err.Error()
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	for _, line := range strings.Split(string(body), "\n") {
		var kind string
		if _, err := fmt.Sscanf(line, clusterview.SyncedMetric+`{kind=%q} 1`, &kind); err == nil {
			kinds = append(kinds, kind)
		}
	}
	return kinds, string(body)
}

// clusterLS is a ListenerSet in ns attached to the Gateway gwNS/parent.
func clusterLS(ns, name, parent string, listeners ...map[string]any) map[string]any {
	obj := listenerSet(name, listeners...)
	obj["metadata"].(map[string]any)["namespace"] = ns
	spec(obj)["parentRef"] = map[string]any{"name": parent, "namespace": gwNS}
	return obj
}

func hostnamed(l map[string]any, hostname string) map[string]any {
	l["hostname"] = hostname
	return l
}

// certIn points l's certificateRef into namespace ns.
func certIn(l map[string]any, ns string) map[string]any {
	ref := l["tls"].(map[string]any)["certificateRefs"].([]any)[0].(map[string]any)
	ref["namespace"] = ns
	return l
}

// requireExactWarnings checks kubectl's Warning lines, all of them, in order.
func requireExactWarnings(t *testing.T, r localcluster.KubectlResult, want ...string) {
	t.Helper()
	if got := warnings(r); !slices.Equal(got, want) {
		t.Errorf("kubectl's Warning lines:\n  %s\nwant:\n  %s\n--- kubectl printed:\n%s",
			strings.Join(got, "\n  "), strings.Join(want, "\n  "), r.Output())
	}
}

// eventuallyWarns applies obj with --dry-run=server until kubectl's Warning
// lines are want: the view follows the cluster through a watch, a moment
// behind the write the test just made.
func eventuallyWarns(t *testing.T, obj map[string]any, want ...string) localcluster.KubectlResult {
	t.Helper()
	start := time.Now()
	deadline := start.Add(15 * time.Second)
	for attempt := 1; ; attempt++ {
		r := mustApply(t, obj, "--dry-run=server")
		if slices.Equal(warnings(r), want) || time.Now().After(deadline) {
			requireExactWarnings(t, r, want...)
			if attempt > 1 {
				t.Logf("the view caught up after %d dry runs, %s", attempt, time.Since(start).Round(time.Millisecond))
			}
			return r
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func deleteIn(t *testing.T, ns, name string) {
	t.Helper()
	t.Cleanup(func() {
		if r := kubectl(t, "", "delete", "listenerset", name, "-n", ns, "--ignore-not-found"); r.Err != nil {
			t.Errorf("%v\n%s", r.Err, r.Output())
		}
	})
}

// TestClusterAwareWarnings: with --cluster-checks (and --watch-secrets), each
// cluster-aware finding reaches kubectl as a Warning line and the object is
// admitted all the same: (1) the parent Gateway does not exist; (2) its
// allowedListeners does not admit the namespace, naming the setting (None,
// Same, Selector), and stops saying so once the namespace gets the label;
// (3) a listener conflicts with the merged listener list, naming the
// winning listener (a Gateway listener, or an older ListenerSet, which is
// itself not warned about the newer one); (4) a certificateRef into
// another namespace that no ReferenceGrant permits (RefNotPermitted);
// (5) a referenced Secret does not exist.
func TestClusterAwareWarnings(t *testing.T) {
	requireCluster(t)
	applyClusterFixtures(t)
	restartWebhook(t, webhookSettings{enabled: true, secrets: true})

	t.Run("1 parent Gateway does not exist", func(t *testing.T) {
		r := mustApply(t, clusterLS(teamA, "orphan", "nowhere", httpListener("web", 8080)), "--dry-run=server")
		requireExactWarnings(t, r,
			"spec.parentRef.name: Gateway e2e-cl-gw/nowhere not found; the ListenerSet stays unattached until it exists")
	})

	t.Run("2 allowedListeners does not admit the namespace", func(t *testing.T) {
		for _, tc := range []struct{ ns, parent, why string }{
			{teamA, "closed", "allowedListeners.namespaces.from is None (the default)"},
			{teamA, "same", "allowedListeners.namespaces.from is Same"},
			{teamC, "gw", "namespace labels do not match allowedListeners.namespaces.selector"},
		} {
			r := mustApply(t, clusterLS(tc.ns, "refused", tc.parent, httpListener("web", 8080)), "--dry-run=server")
			requireExactWarnings(t, r, fmt.Sprintf(
				"spec.parentRef: Gateway e2e-cl-gw/%s does not admit this ListenerSet (NotAllowed): %s", tc.parent, tc.why))
		}
		// The view follows the namespace's labels.
		if r := kubectl(t, "", "label", "namespace", teamC, "gateway-access=yes"); r.Err != nil {
			t.Fatalf("%v\n%s", r.Err, r.Output())
		}
		t.Cleanup(func() { kubectl(t, "", "label", "namespace", teamC, "gateway-access-") })
		eventuallyWarns(t, clusterLS(teamC, "refused", "gw", httpListener("web", 8080)))
	})

	t.Run("3 conflicts with the merged listener list", func(t *testing.T) {
		r := mustApply(t, clusterLS(teamA, "clash", "gw", httpListener("web", 443)), "--dry-run=server")
		requireExactWarnings(t, r, `spec.listeners[0].protocol: port 443 already uses protocol HTTPS in e2e-cl-gw/gw listener https; `+
			`this listener would be Conflicted (ProtocolConflict)`)

		deleteIn(t, teamB, "ls-b")
		deleteIn(t, teamA, "ls-a")
		older := clusterLS(teamB, "ls-b", "gw", hostnamed(httpListener("web", 8080), "app.example.com"))
		requireExactWarnings(t, mustApply(t, older))
		// ls-a's second listener, which conflicts with nothing, lets the test
		// see when the view holds ls-a (below).
		newer := clusterLS(teamA, "ls-a", "gw", hostnamed(httpListener("site", 8080), "app.example.com"),
			hostnamed(httpListener("extra", 8383), "seen.example.com"))
		want := []string{
			// Another namespace's hostname: the first claim across owners.
			`spec.listeners[0].hostname: hostname "app.example.com" is held by namespace "e2e-cl-b" ` +
				`(e2e-cl-b/ls-b listener web, port 8080): the first claim keeps it`,
			`spec.listeners[0].hostname: same port, protocol and hostname as e2e-cl-b/ls-b listener web; ` +
				`this listener would be Conflicted (HostnameConflict)`,
		}
		eventuallyWarns(t, newer, want...)
		r = mustApply(t, newer) // stored, conflict and all
		requireExactWarnings(t, r, want...)
		if !strings.Contains(r.Stdout, "listenerset.gateway.networking.k8s.io/ls-a created") {
			t.Errorf("ls-a not created:\n%s", r.Output())
		}
		// The older set wins: updating it says nothing about the newer one.
		// That silence means something only once the view holds ls-a, which a
		// dry run conflicting with ls-a's second listener alone shows.
		eventuallyWarns(t, clusterLS(teamA, "ls-a-probe", "gw", hostnamed(httpListener("web", 8383), "seen.example.com")),
			`spec.listeners[0].hostname: same port, protocol and hostname as e2e-cl-a/ls-a listener extra; `+
				`this listener would be Conflicted (HostnameConflict)`)
		older["metadata"].(map[string]any)["labels"] = map[string]any{"e2e": "updated"}
		requireExactWarnings(t, mustApply(t, older))
	})

	t.Run("4 cross-namespace certificateRef without a ReferenceGrant", func(t *testing.T) {
		// The object-only reminder that a grant is needed gives way to what
		// the cluster says: RefNotPermitted, or nothing when a grant permits it.
		r := mustApply(t, clusterLS(teamA, "cross", "gw", certIn(httpsListener("tls", 8443, "shared"), certsNS)), "--dry-run=server")
		requireExactWarnings(t, r,
			`spec.listeners[0].tls.certificateRefs[0].namespace: no ReferenceGrant in namespace "e2e-cl-certs" allows ListenerSets `+
				`from "e2e-cl-a" to use this Secret (RefNotPermitted)`)
		r = mustApply(t, clusterLS(teamB, "cross", "gw", certIn(httpsListener("tls", 8443, "shared"), certsNS)), "--dry-run=server")
		requireExactWarnings(t, r)
	})

	t.Run("5 referenced Secret does not exist", func(t *testing.T) {
		r := mustApply(t, clusterLS(teamA, "nocert", "gw", httpsListener("tls", 8443, "absent")), "--dry-run=server")
		requireExactWarnings(t, r,
			"spec.listeners[0].tls.certificateRefs[0].name: Secret e2e-cl-a/absent not found (InvalidCertificateRef until it exists)")
		r = mustApply(t, clusterLS(teamA, "nocert", "gw", httpsListener("tls", 8443, "present")), "--dry-run=server")
		requireExactWarnings(t, r)
	})
}

// TestClusterAwareStrict: with --strict, listener conflicts and references no
// ReferenceGrant permits are denied like any invalid object, each with its
// field path, and nothing is stored; the other findings still only warn; an
// update that leaves a stored conflict alone (one that arose when the
// Gateway gained a listener later) is let through with a warning, and one
// that adds a conflict is denied.
func TestClusterAwareStrict(t *testing.T) {
	requireCluster(t)
	applyClusterFixtures(t)
	const strictGateway = `
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: strict, namespace: e2e-cl-gw}
spec:
  gatewayClassName: airlock-microgateway
  allowedListeners: {namespaces: {from: All}}
  listeners:
  - {name: https, protocol: HTTPS, port: 443, tls: {certificateRefs: [{name: gw-cert}]}}
`
	if r := kubectl(t, strictGateway, "apply", "-f", "-"); r.Err != nil {
		t.Fatalf("%v\n%s", r.Err, r.Output())
	}
	restartWebhook(t, webhookSettings{enabled: true, strict: true})

	t.Run("conflict and RefNotPermitted are denied with their paths", func(t *testing.T) {
		deleteIn(t, teamA, "strict-clash")
		obj := clusterLS(teamA, "strict-clash", "strict",
			httpListener("web", 443),
			certIn(httpsListener("tls", 8443, "shared"), certsNS))
		r := mustReject(t, obj, []string{
			`The ListenerSet "strict-clash" is invalid:`,
			`* spec.listeners[0].protocol: Invalid value: "HTTP": port 443 already uses protocol HTTPS in e2e-cl-gw/strict listener https; ` +
				`this listener would be Conflicted (ProtocolConflict)`,
			`* spec.listeners[1].tls.certificateRefs[0].namespace: Forbidden: no ReferenceGrant in namespace "e2e-cl-certs" allows ` +
				`ListenerSets from "e2e-cl-a" to use this Secret (RefNotPermitted)`,
		})
		t.Logf("kubectl printed:\n%s", r.Stderr)
		if r := kubectl(t, "", "get", "listenerset", "strict-clash", "-n", teamA, "--ignore-not-found", "-o", "name"); strings.TrimSpace(r.Stdout) != "" {
			t.Errorf("a denied ListenerSet was stored: %s", r.Stdout)
		}
	})

	t.Run("a missing Gateway still only warns", func(t *testing.T) {
		r := mustApply(t, clusterLS(teamA, "orphan", "nowhere", httpListener("web", 8080)), "--dry-run=server")
		requireExactWarnings(t, r,
			"spec.parentRef.name: Gateway e2e-cl-gw/nowhere not found; the ListenerSet stays unattached until it exists")
	})

	t.Run("updates ratchet a conflict that arose later", func(t *testing.T) {
		deleteIn(t, teamA, "late")
		stored := clusterLS(teamA, "late", "strict", httpListener("web", 9090))
		requireExactWarnings(t, mustApply(t, stored))
		// The Gateway gains a listener on the same port: its own listeners win.
		t.Cleanup(func() { kubectl(t, strictGateway, "apply", "-f", "-") })
		grown := strictGateway + "  - {name: late, protocol: HTTPS, port: 9090, tls: {certificateRefs: [{name: gw-cert}]}}\n"
		if r := kubectl(t, grown, "apply", "-f", "-"); r.Err != nil {
			t.Fatalf("%v\n%s", r.Err, r.Output())
		}
		conflict := `spec.listeners[0].protocol: Invalid value: "HTTP": port 9090 already uses protocol HTTPS in e2e-cl-gw/strict listener late; ` +
			`this listener would be Conflicted (ProtocolConflict)`
		labelled := clone(stored)
		labelled["metadata"].(map[string]any)["labels"] = map[string]any{"team": "blue"}
		eventuallyWarns(t, labelled, conflict+" (already stored; allowed because unchanged)")
		r := mustApply(t, labelled)
		requireExactWarnings(t, r, conflict+" (already stored; allowed because unchanged)")

		more := clone(labelled)
		spec(more)["listeners"] = append(listeners(more), httpListener("web2", 443))
		mustReject(t, more, []string{`The ListenerSet "late" is invalid: spec.listeners[1].protocol: Invalid value: "HTTP": ` +
			`port 443 already uses protocol HTTPS in e2e-cl-gw/strict listener https`})
	})
}

// TestClusterView: the cache-backed view against the real API server: each
// kind answers once synced, and follows changes through its watch.
func TestClusterView(t *testing.T) {
	requireCluster(t)
	applyClusterFixtures(t)
	view := startView(t, cluster.Config, clusterview.Watch{Scope: true, Cluster: true, Secrets: true}, logr.Discard())
	waitFor(t, "the view to sync", view.Synced)

	if gw, known := view.Gateway(gwNS, "gw"); !known || gw == nil || gw.Spec.Listeners[0].Name != "https" {
		t.Errorf("Gateway(gw) = %v, %v", gw, known)
	}
	if gw, known := view.Gateway(gwNS, "nowhere"); !known || gw != nil {
		t.Errorf("Gateway(nowhere) = %v, %v; want nil, known", gw, known)
	}
	if labels, known := view.NamespaceLabels(teamA); !known || labels["gateway-access"] != "yes" {
		t.Errorf("NamespaceLabels(%s) = %v, %v", teamA, labels, known)
	}
	if labels, known := view.NamespaceLabels("no-such-namespace"); !known || labels != nil {
		t.Errorf("NamespaceLabels(no-such-namespace) = %v, %v; want nil, known", labels, known)
	}
	if grants, known := view.ReferenceGrants(certsNS); !known || len(grants) != 1 || grants[0].Name != "from-team-b" {
		t.Errorf("ReferenceGrants(%s) = %v, %v", certsNS, grants, known)
	}
	if grants, known := view.ReferenceGrants(teamA); !known || len(grants) != 0 {
		t.Errorf("ReferenceGrants(%s) = %v, %v; want none, known", teamA, grants, known)
	}
	if exists, known := view.SecretExists(teamA, "present"); !exists || !known {
		t.Errorf("SecretExists(present) = %v, %v", exists, known)
	}
	if exists, known := view.SecretExists(teamA, "absent"); exists || !known {
		t.Errorf("SecretExists(absent) = %v, %v; want false, known", exists, known)
	}

	// Changes arrive through the watches.
	deleteIn(t, teamB, "view-probe")
	mustApply(t, clusterLS(teamB, "view-probe", "gw", httpListener("web", 8181)))
	isProbe := func(s *gwv1.ListenerSet) bool { return s.Namespace == teamB && s.Name == "view-probe" }
	waitFor(t, "the new ListenerSet among gw's in the view", func() bool {
		sets, _ := view.ListenerSetsOf(gwNS, "gw")
		return slices.ContainsFunc(sets, isProbe)
	})
	// The parent index is by the parentRef's namespace, not the ListenerSet's.
	if sets, known := view.ListenerSetsOf(teamB, "gw"); !known || slices.ContainsFunc(sets, isProbe) {
		t.Errorf("ListenerSetsOf(%s, gw) = %v, %v; want known, without %s/view-probe (its parent is %s/gw)", teamB, len(sets), known, teamB, gwNS)
	}
	if r := kubectl(t, "", "create", "secret", "generic", "late-secret", "-n", teamA, "--from-literal=k=v"); r.Err != nil {
		t.Fatalf("%v\n%s", r.Err, r.Output())
	}
	waitFor(t, "the new Secret in the view", func() bool { exists, _ := view.SecretExists(teamA, "late-secret"); return exists })
}

// TestClusterViewRBAC: the view needs no more than clusterview.RBACRules:
// for the scope, get, list and watch on gateways and gatewayclasses; for
// the cluster checks, on listenersets, referencegrants and namespaces too,
// plus list and watch on secrets for --watch-secrets; without the latter,
// every other kind still syncs and Secrets stay unknown (their check is
// skipped, nothing fails).
func TestClusterViewRBAC(t *testing.T) {
	requireCluster(t)
	applyClusterFixtures(t)
	// The chart's ClusterRole has these very rules (test/chart).
	scopeOnly := clusterview.Watch{Scope: true}
	base, withSecrets := clusterview.RBACRules(clusterview.Watch{Scope: true, Cluster: true}), clusterview.RBACRules(clusterview.Watch{Scope: true, Cluster: true, Secrets: true})
	as := func(user string, rules []rbacv1.PolicyRule) *rest.Config {
		grant(t, user, rules)
		cfg := rest.CopyConfig(cluster.Config)
		cfg.Impersonate = rest.ImpersonationConfig{UserName: user}
		return cfg
	}

	scoped := as("e2e-view-scope", clusterview.RBACRules(scopeOnly))
	view := startView(t, scoped, scopeOnly, logr.Discard())
	waitFor(t, "the scope's view to sync on get/list/watch of gateways and gatewayclasses", view.Synced)
	if _, known := view.GatewayClass("no-such-class"); !known {
		t.Error("GatewayClasses unknown to a synced scope view")
	}
	refusals := &errorLog{}
	view = startView(t, scoped, clusterview.Watch{Scope: true, Cluster: true}, logr.New(refusals))
	waitFor(t, "the view to log that listing listenersets is forbidden to the scope's rules", func() bool { return refusals.forbidden("listenersets") })
	if _, known := view.ListenerSetsOf(gwNS, "gw"); known || view.Synced() {
		t.Error("ListenerSets known with the scope's rules only")
	}

	withoutSecrets := as("e2e-view-base", base)
	view = startView(t, withoutSecrets, clusterview.Watch{Scope: true, Cluster: true}, logr.Discard())
	waitFor(t, "the view without Secrets to sync on get/list/watch of its kinds", view.Synced)

	refusals = &errorLog{}
	view = startView(t, withoutSecrets, clusterview.Watch{Scope: true, Cluster: true, Secrets: true}, logr.New(refusals))
	waitFor(t, "every kind but Secrets to sync", func() bool {
		_, gw := view.Gateway(gwNS, "gw")
		_, sets := view.ListenerSetsOf(gwNS, "gw")
		_, ns := view.NamespaceLabels(teamA)
		_, grants := view.ReferenceGrants(certsNS)
		return gw && sets && ns && grants
	})
	// Secrets being unknown proves something only once the view has tried to
	// list them and been refused; before that they are merely not listed yet.
	waitFor(t, "the view to log that listing secrets is forbidden", func() bool { return refusals.forbidden("secrets") })
	if _, known := view.SecretExists(teamA, "present"); known || view.Synced() {
		t.Error("Secrets known without list/watch on secrets")
	}

	view = startView(t, as("e2e-view-secrets", withSecrets), clusterview.Watch{Scope: true, Cluster: true, Secrets: true}, logr.Discard())
	waitFor(t, "the view with Secrets to sync on list/watch of secrets", view.Synced)
	if exists, known := view.SecretExists(teamA, "present"); !exists || !known {
		t.Errorf("SecretExists(present) = %v, %v", exists, known)
	}
}

func startView(t *testing.T, cfg *rest.Config, w clusterview.Watch, log logr.Logger) *clusterview.View {
	t.Helper()
	view, err := clusterview.New(cfg, w, log)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = view.Start(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	return view
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// errorLog is a logr sink that keeps the errors logged through it (and
// drops everything else), so that a test can wait for the view to report a
// failed list or watch.
type errorLog struct {
	mu   sync.Mutex
	errs []error
}

func (l *errorLog) Init(logr.RuntimeInfo)          {}
func (l *errorLog) Enabled(int) bool               { return false }
func (l *errorLog) Info(int, string, ...any)       {}
func (l *errorLog) WithValues(...any) logr.LogSink { return l }
func (l *errorLog) WithName(string) logr.LogSink   { return l }
func (l *errorLog) Error(err error, _ string, _ ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.errs = append(l.errs, err)
}

// forbidden tells whether an error logged so far is the API server's
// Forbidden for resource (e.g. "secrets").
func (l *errorLog) forbidden(resource string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, err := range l.errs {
		var status apierrors.APIStatus
		if errors.As(err, &status) && status.Status().Reason == metav1.StatusReasonForbidden &&
			status.Status().Details != nil && status.Status().Details.Kind == resource {
			return true
		}
	}
	return false
}
