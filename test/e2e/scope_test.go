package e2e

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/airlock/listenerset-webhook/validation"

	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/webhook/admission"
)

// The scope tests' objects: two GatewayClasses on one kube-apiserver, one
// Airlock's, one another implementation's, a Gateway of each that admits
// ListenerSets from every namespace.
const (
	scopeGwNS = "e2e-scope-gw"
	scopeNS   = "e2e-scope"
)

var scopeFixtures = strings.NewReplacer("$GW", scopeGwNS, "$NS", scopeNS, "$AIRLOCK", string(validation.AirlockControllerName)).Replace(`
apiVersion: v1
kind: Namespace
metadata: {name: $GW}
---
apiVersion: v1
kind: Namespace
metadata: {name: $NS}
---
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: e2e-airlock}
spec: {controllerName: $AIRLOCK}
---
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: e2e-envoy}
spec: {controllerName: gateway.envoyproxy.io/gatewayclass-controller}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: airlock, namespace: $GW}
spec:
  gatewayClassName: e2e-airlock
  allowedListeners: {namespaces: {from: All}}
  listeners:
  - {name: http, protocol: HTTP, port: 80}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: envoy, namespace: $GW}
spec:
  gatewayClassName: e2e-envoy
  allowedListeners: {namespaces: {from: All}}
  listeners:
  - {name: http, protocol: HTTP, port: 80}
`)

// foreignListenerSet is what another implementation serves and Airlock
// Microgateway cannot: TCP, UDP and TLS passthrough listeners and an HTTPS
// listener with two certificateRefs, attached to scopeGwNS/parent.
func foreignListenerSet(name, parent string) map[string]any {
	ls := listenerSet(name,
		map[string]any{"name": "tcp", "port": 9000, "protocol": "TCP"},
		map[string]any{"name": "udp", "port": 9001, "protocol": "UDP"},
		map[string]any{"name": "passthrough", "port": 8443, "protocol": "TLS", "hostname": "db.example.com", "tls": map[string]any{"mode": "Passthrough"}},
		map[string]any{"name": "https", "port": 443, "protocol": "HTTPS", "tls": map[string]any{
			"certificateRefs": []any{map[string]any{"name": "a"}, map[string]any{"name": "b"}}}},
	)
	ls["metadata"].(map[string]any)["namespace"] = scopeNS
	spec(ls)["parentRef"] = map[string]any{"name": parent, "namespace": scopeGwNS}
	return ls
}

// airlockErrors are the errors Airlock's rules give foreignListenerSet.
var airlockErrors = []string{
	`spec.listeners[0].protocol: Unsupported value: "TCP"`,
	`spec.listeners[1].protocol: Unsupported value: "UDP"`,
	`spec.listeners[2].protocol: Unsupported value: "TLS"`,
	`spec.listeners[3].tls.certificateRefs: Too many: 2: must have at most 1 item`,
}

// TestScopeByGatewayClass: with the scope on (the installed default), the
// webhooks judge a ListenerSet only when its parent Gateway's GatewayClass
// names Airlock's controller. Another implementation's ListenerSet is
// stored untouched, without a warning; the same object under Airlock's
// Gateway is denied with every error; an update follows the class of the
// current parent. An unknown parent is judged, the answer saying why, and
// the same apply succeeds once the Gateway exists (a GitOps retry); with
// --unknown-parent=admit it is admitted with that warning. Every request is
// counted by outcome. With the scope off, every ListenerSet is judged.
func TestScopeByGatewayClass(t *testing.T) {
	requireCluster(t)
	if r := kubectl(t, scopeFixtures, "apply", "-f", "-"); r.Err != nil {
		t.Fatalf("%v\n%s", r.Err, r.Output())
	}
	t.Cleanup(func() {
		kubectl(t, "", "delete", "listenersets", "--all", "-n", scopeNS, "--ignore-not-found")
		kubectl(t, "", "delete", "gateway", "late", "-n", scopeGwNS, "--ignore-not-found")
	})
	airlock := []gwv1.GatewayController{validation.AirlockControllerName}
	restartWebhook(t, webhookSettings{scope: airlock})

	// Another implementation's: stored as sent, no warning.
	other := foreignListenerSet("envoy-tcp", "envoy")
	r := mustApply(t, other)
	requireExactWarnings(t, r)
	stored := kubectl(t, "", "get", "listenerset", "envoy-tcp", "-n", scopeNS, "-o", "jsonpath={.spec.listeners[*].protocol}")
	if stored.Err != nil || strings.TrimSpace(stored.Stdout) != "TCP UDP TLS HTTPS" {
		t.Errorf("stored listeners' protocols %q (%v), want TCP UDP TLS HTTPS", stored.Stdout, stored.Err)
	}

	// The same object under Airlock's class: denied, every error at once.
	r = mustReject(t, foreignListenerSet("airlock-tcp", "airlock"), append([]string{`The ListenerSet "airlock-tcp" is invalid`}, airlockErrors...))
	requireExactWarnings(t, r)

	// An update follows the current parent: moving the stored set to
	// Airlock's Gateway is judged.
	moved := foreignListenerSet("envoy-tcp", "airlock")
	mustReject(t, moved, airlockErrors)

	// Unknown parent: judged, and the answer says why; the retry once the
	// Gateway (of the other class) exists is stored.
	late := foreignListenerSet("late", "late")
	note := fmt.Sprintf("spec.parentRef: Gateway %s/late is unknown (not found), so Airlock Microgateway's rules apply "+
		"(Airlock's GatewayClasses name %s)", scopeGwNS, validation.AirlockControllerName)
	r = mustReject(t, late, airlockErrors)
	requireExactWarnings(t, r, note)
	if r := kubectl(t, fmt.Sprintf(`{"apiVersion":"gateway.networking.k8s.io/v1","kind":"Gateway","metadata":{"name":"late","namespace":%q},
"spec":{"gatewayClassName":"e2e-envoy","allowedListeners":{"namespaces":{"from":"All"}},"listeners":[{"name":"http","protocol":"HTTP","port":80}]}}`, scopeGwNS),
		"apply", "-f", "-"); r.Err != nil {
		t.Fatalf("%v\n%s", r.Err, r.Output())
	}
	retried := false
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		if r = apply(t, late); r.Err == nil {
			retried = true
			break
		}
	}
	if !retried {
		t.Errorf("the retry after the Gateway exists was not admitted within 15s:\n%s", r.Output())
	}
	requireExactWarnings(t, r)

	outcomes := scopeCounts(t)
	for _, o := range []validation.Outcome{validation.OutcomeAirlock, validation.OutcomeOther, validation.OutcomeUnknownJudged} {
		if outcomes[string(o)] == 0 {
			t.Errorf("%s{webhook=validating,outcome=%s} is 0; counts: %v", admission.ScopeMetric, o, outcomes)
		}
	}

	// --unknown-parent=admit: admitted untouched, with the note.
	restartWebhook(t, webhookSettings{scope: airlock, unknownAdmit: true})
	r = mustApply(t, foreignListenerSet("unknown-admitted", "nowhere"), "--dry-run=server")
	requireExactWarnings(t, r, fmt.Sprintf("spec.parentRef: Gateway %s/nowhere is unknown (not found), admitted without Airlock Microgateway's rules "+
		"(Airlock's GatewayClasses name %s)", scopeGwNS, validation.AirlockControllerName))
	mustReject(t, foreignListenerSet("airlock-tcp", "airlock"), airlockErrors, "--dry-run=server")

	// Scope off: every ListenerSet is judged, another implementation's too.
	restartWebhook(t, webhookSettings{})
	mustReject(t, foreignListenerSet("envoy-2", "envoy"), airlockErrors, "--dry-run=server")
}

// scopeCounts reads listenerset_webhook_scope_total of the validating
// webhook by outcome from its /metrics.
func scopeCounts(t *testing.T) map[string]float64 {
	t.Helper()
	resp, err := http.Get(hook.MetricsURL())
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	out := map[string]float64{}
	for _, line := range strings.Split(string(body), "\n") {
		var outcome string
		var n float64
		if _, err := fmt.Sscanf(line, admission.ScopeMetric+`{outcome=%q,webhook="validating"} %g`, &outcome, &n); err == nil {
			out[outcome] = n
		}
	}
	return out
}
