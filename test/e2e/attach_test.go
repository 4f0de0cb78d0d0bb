package e2e

import (
	"strings"
	"testing"
	"time"

	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/offline/report"
	"github.com/airlock/listenerset-webhook/validation"
)

// The decoy: a Gateway of team-b's own, of another implementation's class.
var decoyFixtures = strings.NewReplacer("$B", tenancyB).Replace(`
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: e2e-attach-other}
spec: {controllerName: example.com/other-controller}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: decoy, namespace: $B}
spec:
  gatewayClassName: e2e-attach-other
  allowedListeners: {namespaces: {from: Same}}
  listeners:
  - {name: http, protocol: HTTP, port: 80}
`)

// TestAttachingIsClaiming: a hostile tenant's sequences of ordinary
// requests through kube-apiserver, with the webhook's scope on and
// --first-claim=deny. (a) team-b parks "squat" on a Gateway that does not
// exist with login.a.example.com, before team-a's portal takes
// *.a.example.com on infra/shared; the move of squat's parentRef to
// infra/shared is denied, naming portal, though squat is the older set.
// Under warn the same move (a `kubectl patch` of the parentRef) passes with
// the warning, and the audit names squat, the newcomer, and not portal.
// (b) With team-b declaring *.b.example.com, a set on a decoy Gateway of
// another implementation holds login.z2.example.com untouched; once the
// decoy is deleted, its move to infra/shared is denied for the
// declaration: it was never judged, and nothing of it is grandfathered.
func TestAttachingIsClaiming(t *testing.T) {
	requireCluster(t)
	applyTenancyFixtures(t)
	bin := startFirstClaimDeny(t)
	switchWebhook(t, webhookSettings{enabled: true, firstClaim: validation.ClaimDeny, scope: []gwv1.GatewayController{validation.AirlockControllerName}})
	denied := strings.Replace(claimed(0), ".hostname: ", ".hostname: Forbidden: ", 1)

	squat := func(gateway string) map[string]any {
		ls := tenancyLS(tenancyB, "squat", hostnamed(httpListener("http", 8080), "login.a.example.com"))
		spec(ls)["parentRef"] = map[string]any{"name": gateway, "namespace": tenancyInfra}
		return ls
	}

	t.Run("a parked, then moved", func(t *testing.T) {
		r := mustApply(t, squat("missing"))
		t.Logf("kubectl printed:\n%s", r.Output())
		// a second later, so that squat is the older by creation whatever
		// the clock's second: only its move makes it the newcomer
		time.Sleep(1100 * time.Millisecond)
		mustApply(t, portal())
		r = mustReject(t, squat("shared"), []string{`The ListenerSet "squat" is invalid: ` + denied})
		t.Logf("kubectl printed:\n%s", r.Output())

		switchWebhook(t, webhookSettings{enabled: true, scope: []gwv1.GatewayController{validation.AirlockControllerName}})
		// a second later, so that the move's time tells it from portal's
		// creation whatever the clock's second
		time.Sleep(1100 * time.Millisecond)
		r = kubectl(t, "", "patch", "listenersets.gateway.networking.k8s.io", "squat", "-n", tenancyB, "--type=merge", "-p", `{"spec":{"parentRef":{"name":"shared"}}}`)
		if r.Err != nil || !strings.Contains(r.Stderr, claimed(0)) {
			t.Fatalf("the move under warn: %v, want it patched with the warning %q\n%s", r.Err, claimed(0), r.Output())
		}
		t.Logf("kubectl printed:\n%s", r.Output())

		admin := []string{"--kubeconfig", cluster.KubeconfigPath}
		out, _ := runAudit(t, bin, report.ExitValid, append([]string{"audit", "-n", tenancyB, "-o", "json"}, admin...)...)
		if codes := auditCodes(t, out, tenancyB, "squat"); !strings.Contains(strings.Join(codes, ","), "LS316") {
			t.Errorf("audit: team-b/squat, the newcomer, has %v, want LS316\n%s", codes, out)
		}
		out, _ = runAudit(t, bin, report.ExitValid, append([]string{"audit", "-n", tenancyA, "-o", "json"}, admin...)...)
		if codes := auditCodes(t, out, tenancyA, "portal"); strings.Contains(strings.Join(codes, ","), "LS316") {
			t.Errorf("audit: team-a/portal, which came first, has %v\n%s", codes, out)
		}
		if r := kubectl(t, "", "delete", "listenersets.gateway.networking.k8s.io", "squat", "-n", tenancyB); r.Err != nil {
			t.Fatalf("%v\n%s", r.Err, r.Output())
		}
	})

	t.Run("b the decoy", func(t *testing.T) {
		annotateNamespace(t, tenancyB, validation.DefaultAllowedHostnamesAnnotation, "*.b.example.com")
		if r := kubectl(t, decoyFixtures, "apply", "-f", "-"); r.Err != nil {
			t.Fatalf("%v\n%s", r.Err, r.Output())
		}
		t.Cleanup(func() {
			kubectl(t, "", "delete", "gateway", "decoy", "-n", tenancyB, "--ignore-not-found")
			kubectl(t, "", "delete", "gatewayclass", "e2e-attach-other", "--ignore-not-found")
		})
		onDecoy := tenancyLS(tenancyB, "c", hostnamed(httpListener("http", 8080), "login.z2.example.com"))
		spec(onDecoy)["parentRef"] = map[string]any{"name": "decoy"}
		// another implementation's set: admitted untouched, once the
		// webhook's view has the decoy and its class
		deadline := time.Now().Add(15 * time.Second)
		for r := apply(t, onDecoy, "--dry-run=server"); r.Err != nil; r = apply(t, onDecoy, "--dry-run=server") {
			if time.Now().After(deadline) {
				t.Fatalf("the decoy's set is not admitted: %v\n%s", r.Err, r.Output())
			}
			time.Sleep(200 * time.Millisecond)
		}
		requireExactWarnings(t, mustApply(t, onDecoy))
		if r := kubectl(t, "", "delete", "gateway", "decoy", "-n", tenancyB); r.Err != nil {
			t.Fatalf("%v\n%s", r.Err, r.Output())
		}
		moved := tenancyLS(tenancyB, "c", hostnamed(httpListener("http", 8080), "login.z2.example.com"))
		r := mustReject(t, moved, []string{`The ListenerSet "c" is invalid: spec.listeners[0].hostname: Forbidden: hostname "login.z2.example.com" ` +
			`is not among the hostnames Namespace "team-b" declares`})
		if strings.Contains(r.Stderr, "already stored") {
			t.Errorf("the move was ratcheted:\n%s", r.Output())
		}
		t.Logf("kubectl printed:\n%s", r.Output())
	})
}
