package e2e

import (
	"context"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/test/testproc"
)

// The why command's cluster: Airlock's GatewayClass with the status its
// controller would write (accepted, ListenerSet support listed: a stored
// class otherwise keeps the CRD's Pending), a Gateway admitting the
// namespaces labelled why-access=yes, team why-a's set first and team
// why-b's "shop" second, certificates in another namespace with and without
// a ReferenceGrant, two HTTPRoutes naming shop, and another implementation's
// class, Gateway and set.
const whyFixtures = `
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: why-airlock}
spec: {controllerName: microgateway.airlock.com/gatewayclass-controller}
---
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: why-other}
spec: {controllerName: example.com/other-controller}
---
apiVersion: v1
kind: Namespace
metadata: {name: why-infra}
---
apiVersion: v1
kind: Namespace
metadata: {name: why-a, labels: {why-access: "yes"}}
---
apiVersion: v1
kind: Namespace
metadata: {name: why-b, labels: {why-access: "yes"}}
---
apiVersion: v1
kind: Namespace
metadata: {name: why-certs}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: why-infra}
spec:
  gatewayClassName: why-airlock
  allowedListeners:
    namespaces:
      from: Selector
      selector: {matchLabels: {why-access: "yes"}}
  listeners:
  - {name: http, port: 80, protocol: HTTP}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: other-gw, namespace: why-infra}
spec:
  gatewayClassName: why-other
  allowedListeners: {namespaces: {from: All}}
  listeners:
  - {name: http, port: 80, protocol: HTTP}
---
apiVersion: gateway.networking.k8s.io/v1
kind: ListenerSet
metadata: {name: first, namespace: why-a}
spec:
  parentRef: {name: gw, namespace: why-infra}
  listeners:
  - {name: web, port: 8080, protocol: HTTP, hostname: shop.why.example.com}
---
apiVersion: gateway.networking.k8s.io/v1
kind: ListenerSet
metadata: {name: foreign, namespace: why-a}
spec:
  parentRef: {name: other-gw, namespace: why-infra}
  listeners:
  - {name: web, port: 8080, protocol: HTTP}
---
apiVersion: v1
kind: Secret
metadata: {name: wild, namespace: why-certs}
type: kubernetes.io/tls
data: {tls.crt: bm90IGEgY2VydA==, tls.key: bm90IGEga2V5}
---
apiVersion: v1
kind: Secret
metadata: {name: other, namespace: why-certs}
type: kubernetes.io/tls
data: {tls.crt: bm90IGEgY2VydA==, tls.key: bm90IGEga2V5}
---
apiVersion: gateway.networking.k8s.io/v1
kind: ReferenceGrant
metadata: {name: why-b-wild, namespace: why-certs}
spec:
  from: [{group: gateway.networking.k8s.io, kind: ListenerSet, namespace: why-b}]
  to: [{group: "", kind: Secret, name: wild}]
`

// whyShop comes second: created once why-a's first is a second older.
const whyShop = `
apiVersion: gateway.networking.k8s.io/v1
kind: ListenerSet
metadata: {name: shop, namespace: why-b}
spec:
  parentRef: {name: gw, namespace: why-infra}
  listeners:
  - {name: web, port: 8080, protocol: HTTP, hostname: shop.why.example.com}
  - {name: api, port: 8081, protocol: HTTP, hostname: api.why.example.com}
  - name: remote
    port: 9443
    protocol: HTTPS
    hostname: remote.why.example.com
    tls: {certificateRefs: [{name: wild, namespace: why-certs}]}
  - name: denied
    port: 9444
    protocol: HTTPS
    hostname: denied.why.example.com
    tls: {certificateRefs: [{name: other, namespace: why-certs}]}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: api, namespace: why-b}
spec:
  parentRefs: [{group: gateway.networking.k8s.io, kind: ListenerSet, name: shop, sectionName: api}]
  hostnames: [api.why.example.com]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: wrong, namespace: why-b}
spec:
  parentRefs: [{group: gateway.networking.k8s.io, kind: ListenerSet, name: shop, sectionName: nope}]
`

// TestWhy: `kubectl listenerset why` on a real kube-apiserver: the whole
// chain for a set whose status a controller wrote (agreeing, differing,
// missing), a user who may read little of it, another implementation's set
// and a name that does not exist, each with its exit code.
func TestWhy(t *testing.T) {
	requireCluster(t)
	bin, err := testproc.PluginBinary()
	if err != nil {
		t.Fatalf("building cmd/kubectl-listenerset: %v", err)
	}
	t.Cleanup(func() {
		for _, ns := range []string{"why-a", "why-b"} {
			kubectl(t, "", "delete", "listenersets.gateway.networking.k8s.io,httproutes.gateway.networking.k8s.io", "--all", "-n", ns, "--ignore-not-found")
		}
		kubectl(t, "", "delete", "gateways.gateway.networking.k8s.io", "--all", "-n", "why-infra", "--ignore-not-found")
		kubectl(t, "", "delete", "gatewayclasses.gateway.networking.k8s.io", "why-airlock", "why-other", "--ignore-not-found")
		kubectl(t, "", "delete", "referencegrants.gateway.networking.k8s.io,secrets", "--all", "-n", "why-certs", "--ignore-not-found")
	})
	if r := kubectl(t, whyFixtures, "apply", "-f", "-"); r.Err != nil {
		t.Fatalf("%v\n%s", r.Err, r.Output())
	}
	waitPastCreation(t, "why-a")
	if r := kubectl(t, whyShop, "apply", "-f", "-"); r.Err != nil {
		t.Fatalf("%v\n%s", r.Err, r.Output())
	}
	writeStatus(t, "gatewayclasses.gateway.networking.k8s.io", "", "why-airlock", map[string]any{
		"conditions":        []any{condition("Accepted", "True", "Accepted", "")},
		"supportedFeatures": []any{map[string]any{"name": "Gateway"}, map[string]any{"name": "HTTPRoute"}, map[string]any{"name": "ListenerSet"}},
	})
	// web agrees (Conflicted), api agrees, remote differs (two routes
	// reported where none attaches), denied has nothing reported.
	writeStatus(t, "listenersets.gateway.networking.k8s.io", "why-b", "shop", map[string]any{
		"conditions": []any{condition("Accepted", "True", "Accepted", "")},
		"listeners": []any{
			map[string]any{"name": "web", "attachedRoutes": 0, "conditions": []any{condition("Accepted", "True", "Accepted", ""), condition("Conflicted", "True", "HostnameConflict", "")}},
			map[string]any{"name": "api", "attachedRoutes": 1, "conditions": []any{condition("Accepted", "True", "Accepted", "")}},
			map[string]any{"name": "remote", "attachedRoutes": 2, "conditions": []any{condition("Accepted", "True", "Accepted", "")}},
		},
	})

	admin := []string{"--kubeconfig", cluster.KubeconfigPath}
	t.Run("the whole chain", func(t *testing.T) {
		out, errOut, code := runWhy(t, bin, append([]string{"why", "why-b/shop"}, admin...)...)
		if code != 1 || errOut != "" {
			t.Errorf("exit %d, stderr %q; want 1 and nothing", code, errOut)
		}
		if out != whyShopWant {
			t.Errorf("why why-b/shop printed\n%s\nwant\n%s", out, whyShopWant)
		}
		// NAME with -n, and JSON: the same decisions.
		out, _, code = runWhy(t, bin, append([]string{"why", "shop", "-n", "why-b", "-o", "json"}, admin...)...)
		if code != 1 || !strings.Contains(out, `"difference": {`) || !strings.Contains(out, `"referenceGrant": "why-b-wild"`) {
			t.Errorf("-o json: exit %d\n%s", code, out)
		}
	})

	t.Run("a user who may read little", func(t *testing.T) {
		user := "e2e-why-reader"
		grant(t, user, []rbacv1.PolicyRule{
			{APIGroups: []string{gwv1.GroupName}, Resources: []string{"listenersets"}, Verbs: []string{"get", "list"}},
			{APIGroups: []string{gwv1.GroupName}, Resources: []string{"gateways", "gatewayclasses"}, Verbs: []string{"get"}},
		})
		kubeconfig := impersonating(t, user)
		waitCan(t, user, "get", "gatewayclasses.gateway.networking.k8s.io")
		// Nothing is known to be wrong: what could not be read is
		// named, and the decisions that need it are unknown.
		out, errOut, code := runWhy(t, bin, "why", "why-b/shop", "--kubeconfig", kubeconfig)
		if code != 0 || errOut != "" {
			t.Errorf("exit %d, stderr %q; want 0 and nothing", code, errOut)
		}
		if out != whyPartialWant {
			t.Errorf("why why-b/shop as %s printed\n%s\nwant\n%s", user, out, whyPartialWant)
		}
	})

	t.Run("another implementation's", func(t *testing.T) {
		out, errOut, code := runWhy(t, bin, append([]string{"why", "why-a/foreign"}, admin...)...)
		if code != 0 || errOut != "" {
			t.Errorf("exit %d, stderr %q; want 0 and nothing", code, errOut)
		}
		if out != whyForeignWant {
			t.Errorf("why why-a/foreign printed\n%s\nwant\n%s", out, whyForeignWant)
		}
	})

	t.Run("docs/listeners.md shows this output", func(t *testing.T) {
		page := listenersRead(t, filepath.Join(root, "docs", "listeners.md"))
		for _, want := range []string{whyShopWant, whyPartialWant, whyForeignWant} {
			if !strings.Contains(page, "```\n"+want+"```\n") {
				t.Errorf("docs/listeners.md does not show, in a block of its own:\n%s", want)
			}
		}
	})

	t.Run("NAME completes from the cluster", func(t *testing.T) {
		out, _, code := runWhy(t, bin, append([]string{"__complete", "why"}, append(admin, "")...)...)
		if lines := "\n" + out; code != 0 || !strings.Contains(lines, "\nwhy-b/shop\n") || !strings.Contains(lines, "\nwhy-a/foreign\n") {
			t.Errorf("exit %d, completions:\n%s", code, out)
		}
	})

	t.Run("no such ListenerSet", func(t *testing.T) {
		out, errOut, code := runWhy(t, bin, append([]string{"why", "why-a/nope"}, admin...)...)
		want := "error: ListenerSet why-a/nope not found (kubectl get listenersets -A lists them)\n"
		if code != 2 || out != "" || errOut != want {
			t.Errorf("exit %d, stdout %q, stderr %q; want 2, nothing and %q", code, out, errOut, want)
		}
	})
}

// waitCan waits until user may verb resource (the role is in effect).
func waitCan(t *testing.T, user, verb, resource string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		r := kubectl(t, "", "--as", user, "auth", "can-i", verb, resource)
		if r.Err == nil && strings.TrimSpace(r.Stdout) == "yes" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the role of %s not in effect after 30s: %s", user, r.Output())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// runWhy runs the built plugin and returns its stdout, stderr and exit code.
func runWhy(t *testing.T, bin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		var exit *exec.ExitError
		if !errors.As(err, &exit) {
			t.Fatal(err)
		}
		code = exit.ExitCode()
	}
	return out.String(), errOut.String(), code
}

const whyShopWant = `ListenerSet why-b/shop

Whose it is
  Gateway:              why-infra/gw
  GatewayClass:         why-airlock
  Controller:           microgateway.airlock.com/gatewayclass-controller
  Scope:                Airlock Microgateway's: its class names an Airlock controller
  Class accepted:       Accepted=True (Accepted)
  ListenerSet support:  listed in status.supportedFeatures

Admitted by Gateway why-infra/gw
  allowedListeners:  namespaces.from: Selector
  Selector:          why-access=yes
  Namespace labels:  kubernetes.io/metadata.name=why-b, why-access=yes
  Admitted:          yes
  Reported:          Accepted=True (Accepted)

Listener web (HTTP 8080, hostname shop.why.example.com)
  Precedence:  3 of 6 in the Gateway's merged list
  Predicted:   Conflicted (HostnameConflict)
  Loses to:    ListenerSet/why-a/first listener web
  Because:     spec.listeners[0].hostname: Invalid value: "shop.why.example.com": same port, protocol and hostname as why-a/first listener web; this listener would be Conflicted (HostnameConflict)
  Owner:       namespace/why-b
  Claim:       held by namespace/why-a (ListenerSet/why-a/first listener web, shop.why.example.com): the first claim keeps the name
  Reported:    Conflicted (HostnameConflict), attachedRoutes 0, Conflicted=True/HostnameConflict
  Compared:    agrees
  Routes:      0 attached: <none>

Listener api (HTTP 8081, hostname api.why.example.com)
  Precedence:  4 of 6 in the Gateway's merged list
  Predicted:   Accepted
  Owner:       namespace/why-b
  Reported:    Accepted (Accepted), attachedRoutes 1
  Compared:    agrees
  Routes:      1 attached: why-b/api

Listener remote (HTTPS 9443, hostname remote.why.example.com)
  Precedence:   5 of 6 in the Gateway's merged list
  Predicted:    Accepted
  Owner:        namespace/why-b
  Reported:     Accepted (Accepted), attachedRoutes 2
  Compared:     DIFFERS: predicted 0 attached routes, reported 2
  Routes:       0 attached: <none>
  Certificate:  why-certs/wild: Secret exists, type kubernetes.io/tls; another namespace, permitted by ReferenceGrant why-certs/why-b-wild

Listener denied (HTTPS 9444, hostname denied.why.example.com)
  Precedence:   6 of 6 in the Gateway's merged list
  Predicted:    Accepted
  Owner:        namespace/why-b
  Reported:     nothing reported
  Compared:     NOT REPORTED: nothing reported
  Routes:       0 attached: <none>
  Certificate:  why-certs/other: Secret exists, type kubernetes.io/tls; another namespace, and NO ReferenceGrant there permits it (RefNotPermitted)

HTTPRoutes that name the set and attach to none of its listeners
  why-b/wrong (sectionName nope): NoMatchingParent: no listener named "nope"

Wrong
  - listener denied: no ReferenceGrant in namespace why-certs permits ListenerSets of why-b to reference Secret other (RefNotPermitted)
  - HTTPRoute why-b/wrong names the set but attaches to none of its listeners: NoMatchingParent (no listener named "nope")
  - listener web is predicted Conflicted (HostnameConflict)
  - listener remote: predicted 0 attached routes, reported 2
  - listener denied: nothing reported
`

const whyPartialWant = `ListenerSet why-b/shop

Whose it is
  Gateway:              why-infra/gw
  GatewayClass:         why-airlock
  Controller:           microgateway.airlock.com/gatewayclass-controller
  Scope:                Airlock Microgateway's: its class names an Airlock controller
  Class accepted:       Accepted=True (Accepted)
  ListenerSet support:  listed in status.supportedFeatures

Admitted by Gateway why-infra/gw
  allowedListeners:  namespaces.from: Selector
  Selector:          why-access=yes
  Namespace labels:  unknown (Namespace why-b not read)
  Admitted:          unknown (labels of namespace "why-b" unknown (allowedListeners.namespaces.selector: why-access=yes))
  Reported:          Accepted=True (Accepted)

Listener web (HTTP 8080, hostname shop.why.example.com)
  Precedence:  3 of 6 in the Gateway's merged list
  Predicted:   Unknown (labels of namespace "why-b" unknown (allowedListeners.namespaces.selector: why-access=yes))
  Owner:       namespace/why-b
  Reported:    Conflicted (HostnameConflict), attachedRoutes 0, Conflicted=True/HostnameConflict
  Compared:    nothing to compare: the prediction is unknown

Listener api (HTTP 8081, hostname api.why.example.com)
  Precedence:  4 of 6 in the Gateway's merged list
  Predicted:   Unknown (labels of namespace "why-b" unknown (allowedListeners.namespaces.selector: why-access=yes))
  Owner:       namespace/why-b
  Reported:    Accepted (Accepted), attachedRoutes 1
  Compared:    nothing to compare: the prediction is unknown

Listener remote (HTTPS 9443, hostname remote.why.example.com)
  Precedence:   5 of 6 in the Gateway's merged list
  Predicted:    Unknown (labels of namespace "why-b" unknown (allowedListeners.namespaces.selector: why-access=yes))
  Owner:        namespace/why-b
  Reported:     Accepted (Accepted), attachedRoutes 2
  Compared:     nothing to compare: the prediction is unknown
  Certificate:  why-certs/wild: Secret unknown (forbidden); another namespace, ReferenceGrants unknown (could not be read)

Listener denied (HTTPS 9444, hostname denied.why.example.com)
  Precedence:   6 of 6 in the Gateway's merged list
  Predicted:    Unknown (labels of namespace "why-b" unknown (allowedListeners.namespaces.selector: why-access=yes))
  Owner:        namespace/why-b
  Reported:     nothing reported
  Compared:     nothing to compare: the prediction is unknown
  Certificate:  why-certs/other: Secret unknown (forbidden); another namespace, ReferenceGrants unknown (could not be read)

Not read (the decisions that need it say unknown)
  could not read HTTPRoutes of all namespaces: forbidden
  could not read HTTPRoutes of namespace why-b: forbidden
  could not read Namespace why-b: forbidden
  could not read Namespace why-a: forbidden
  could not read Secret why-certs/wild: forbidden
  could not read ReferenceGrants of namespace why-certs: forbidden
  could not read Secret why-certs/other: forbidden

Nothing wrong in what could be read; what could not be read is above.
`

const whyForeignWant = `ListenerSet why-a/foreign

Whose it is
  Gateway:              why-infra/other-gw
  GatewayClass:         why-other
  Controller:           example.com/other-controller
  Scope:                another implementation's: its class names another controller, so it is not Airlock Microgateway's to judge
  Class accepted:       Accepted=Unknown (Pending): Waiting for controller
  ListenerSet support:  status.supportedFeatures lists nothing

Reported by its controller
  Conditions:  Accepted=Unknown (Pending): Waiting for controller; Programmed=Unknown (Pending): Waiting for controller

Listener web (HTTP 8080, hostname <none>)
  Reported:  Pending (Pending)

Not Airlock Microgateway's to judge: nothing is predicted.
`
