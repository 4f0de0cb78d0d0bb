package e2e

import (
	"strings"
	"testing"

	"github.com/airlock/listenerset-webhook/offline/report"
	"github.com/airlock/listenerset-webhook/test/testproc"
	"github.com/airlock/listenerset-webhook/validation"
)

// claimingRoute is an HTTPRoute of team-b attached to its ListenerSet
// "side" (a listener without a hostname on 9090) with hostnames.
func claimingRoute(name string, hostnames ...string) map[string]any {
	hs := make([]any, len(hostnames))
	for i, h := range hostnames {
		hs[i] = h
	}
	return map[string]any{
		"apiVersion": "gateway.networking.k8s.io/v1",
		"kind":       "HTTPRoute",
		"metadata":   map[string]any{"name": name, "namespace": tenancyB},
		"spec": map[string]any{
			"parentRefs": []any{map[string]any{"group": "gateway.networking.k8s.io", "kind": "ListenerSet", "name": "side"}},
			"hostnames":  hs,
		},
	}
}

// routeHeld is the first claim's finding (LS320) of the route's
// login.a.example.com, under team-a's *.a.example.com.
const routeHeld = `spec.hostnames[0]: hostname "login.a.example.com" overlaps "*.a.example.com", which namespace "team-a" holds ` +
	`(team-a/portal listener https, port 443): the first claim keeps it`

// TestRouteClaims: routes are claims, judged by the webhook's HTTPRoute
// handler through kube-apiserver. team-b's ListenerSet "side" has a
// listener without a hostname on 9090 (allowedRoutes Same: no route
// capture), and team-b's HTTPRoute attached to it names
// login.a.example.com, a name under team-a's older *.a.example.com on
// another port: warned with the default --first-claim=warn, and stored;
// denied with --first-claim=deny; with team-b declaring *.b.example.com,
// denied in every mode, naming the field, the hostname and the
// declaration, while a route with a declared name passes; `kubectl
// listenerset audit -n team-b` reports the stored route's claim (LS320).
// A ListenerSet created under a stored route that names it is judged for
// the claims it gives the route: denied under deny, naming the route.
func TestRouteClaims(t *testing.T) {
	requireCluster(t)
	applyTenancyFixtures(t)
	t.Cleanup(func() {
		kubectl(t, "", "delete", "httproutes.gateway.networking.k8s.io", "--all", "-n", tenancyB, "--ignore-not-found")
	})
	restartWebhook(t, webhookSettings{enabled: true})
	mustApply(t, portal())
	mustApply(t, tenancyLS(tenancyB, "side", httpListener("open", 9090)))

	t.Run("a warned", func(t *testing.T) {
		eventuallyWarns(t, claimingRoute("steal", "login.a.example.com"), routeHeld)
		r := mustApply(t, claimingRoute("steal", "login.a.example.com"))
		requireExactWarnings(t, r, routeHeld)
		if !strings.Contains(r.Stdout, "httproute.gateway.networking.k8s.io/steal created") {
			t.Errorf("steal not created:\n%s", r.Output())
		}
		t.Logf("kubectl printed:\n%s", r.Output())
		// A name of its own: nothing said.
		requireExactWarnings(t, mustApply(t, claimingRoute("own", "shop.b.example.com"), "--dry-run=server"))
	})

	t.Run("b denied under deny", func(t *testing.T) {
		switchWebhook(t, webhookSettings{enabled: true, firstClaim: validation.ClaimDeny})
		denied := strings.Replace(routeHeld, "[0]: ", "[0]: Forbidden: ", 1)
		eventuallyRejects(t, claimingRoute("steal2", "login.a.example.com"), denied)
		r := mustReject(t, claimingRoute("steal2", "login.a.example.com"), []string{`The HTTPRoute "steal2" is invalid: ` + denied})
		t.Logf("kubectl printed:\n%s", r.Output())
		// The stored steal keeps its name on an update that leaves it.
		labelled := claimingRoute("steal", "login.a.example.com")
		labelled["metadata"].(map[string]any)["labels"] = map[string]any{"team": "b"}
		r = mustApply(t, labelled)
		requireExactWarnings(t, r, denied+" (already stored; allowed because unchanged)")
		t.Logf("kubectl printed:\n%s", r.Output())
		switchWebhook(t, webhookSettings{enabled: true})
	})

	t.Run("b2 a set's write judges the claims it gives its routes", func(t *testing.T) {
		switchWebhook(t, webhookSettings{enabled: true, firstClaim: validation.ClaimDeny})
		defer switchWebhook(t, webhookSettings{enabled: true})
		// The route comes first, naming a set that does not exist yet:
		// it claims nothing then.
		early := claimingRoute("early", "login.a.example.com")
		early["spec"].(map[string]any)["parentRefs"].([]any)[0].(map[string]any)["name"] = "later"
		r := mustApply(t, early)
		t.Logf("kubectl printed:\n%s", r.Output())
		given := `The ListenerSet "later" is invalid: spec.listeners[0]: Forbidden: HTTPRoute team-b/early, attached here, would claim a name: ` +
			strings.TrimPrefix(routeHeld, "spec.hostnames[0]: ")
		later := tenancyLS(tenancyB, "later", httpListener("open", 9091))
		eventuallyRejects(t, later, given)
		r = mustReject(t, later, []string{given})
		t.Logf("kubectl printed:\n%s", r.Output())
	})

	t.Run("c not declared", func(t *testing.T) {
		annotateNamespace(t, tenancyB, validation.DefaultAllowedHostnamesAnnotation, "*.b.example.com")
		notDeclared := `spec.hostnames[0]: Forbidden: hostname "login.a.example.com" is not among the hostnames Namespace "team-b" declares ` +
			`(listenerset-webhook.airlock.com/allowed-hostnames: "*.b.example.com")`
		eventuallyRejects(t, claimingRoute("steal3", "login.a.example.com"), notDeclared)
		r := mustReject(t, claimingRoute("steal3", "login.a.example.com"), []string{`The HTTPRoute "steal3" is invalid: ` + notDeclared})
		requireExactWarnings(t, r, routeHeld)
		t.Logf("kubectl printed:\n%s", r.Output())
		requireExactWarnings(t, mustApply(t, claimingRoute("own", "shop.b.example.com"), "--dry-run=server"))
	})

	t.Run("d audit", func(t *testing.T) {
		bin, err := testproc.PluginBinary()
		if err != nil {
			t.Fatalf("building cmd/kubectl-listenerset: %v", err)
		}
		out, errOut := runAudit(t, bin, report.ExitValid, "audit", "-n", tenancyB, "--kubeconfig", cluster.KubeconfigPath)
		t.Logf("audit -n team-b printed:\n%s%s", out, errOut)
		if want := "httproute.gateway.networking.k8s.io/team-b/steal valid\n"; !strings.Contains(out, want) {
			t.Errorf("audit -n team-b printed\n%s\nwithout %q", out, want)
		}
		if want := "Warning: " + routeHeld + "\n"; !strings.Contains(errOut, want) {
			t.Errorf("audit -n team-b's warnings:\n%s\nwithout %q", errOut, want)
		}
	})
}
