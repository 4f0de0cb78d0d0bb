package e2e

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/airlock/listenerset-webhook/validation"

	admissionv1 "k8s.io/api/admission/v1"
	admissionregv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/airlock/listenerset-webhook/offline/judge"
	"github.com/airlock/listenerset-webhook/offline/report"
	"github.com/airlock/listenerset-webhook/registration"
	"github.com/airlock/listenerset-webhook/test/localcluster"
	"github.com/airlock/listenerset-webhook/test/testproc"
	"github.com/airlock/listenerset-webhook/webhook/certs"
)

// Two tenants on one shared Gateway, as docs/tenancy.md tells it: the
// platform's infra/shared admits the namespaces labelled shared-gateway=yes,
// team-a and team-b.
const (
	tenancyInfra = "infra"
	tenancyA     = "team-a"
	tenancyB     = "team-b"
	// capsuleTenant is Capsule's tenant label on namespaces.
	capsuleTenant = "capsule.clastix.io/tenant"
)

var tenancyFixtures = strings.NewReplacer("$INFRA", tenancyInfra, "$A", tenancyA, "$B", tenancyB).Replace(`
apiVersion: v1
kind: Namespace
metadata: {name: $INFRA}
---
apiVersion: v1
kind: Namespace
metadata: {name: $A, labels: {shared-gateway: "yes"}}
---
apiVersion: v1
kind: Namespace
metadata: {name: $B, labels: {shared-gateway: "yes"}}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: shared, namespace: $INFRA}
spec:
  gatewayClassName: airlock-microgateway
  allowedListeners:
    namespaces:
      from: Selector
      selector: {matchLabels: {shared-gateway: "yes"}}
  listeners:
  - {name: http, protocol: HTTP, port: 80}
`)

// applyTenancyFixtures applies the namespaces and the Gateway, and deletes
// the ListenerSets of team-a and team-b when the test ends (the namespaces
// stay: without kube-controller-manager a deleted namespace never goes away).
func applyTenancyFixtures(t *testing.T) {
	t.Helper()
	if r := kubectl(t, tenancyFixtures, "apply", "-f", "-"); r.Err != nil {
		t.Fatalf("%v\n%s", r.Err, r.Output())
	}
	t.Cleanup(func() {
		for _, ns := range []string{tenancyA, tenancyB} {
			if r := kubectl(t, "", "delete", "listenersets.gateway.networking.k8s.io", "--all", "-n", ns, "--ignore-not-found"); r.Err != nil {
				t.Errorf("%v\n%s", r.Err, r.Output())
			}
		}
	})
}

// tenancyLS is a ListenerSet in ns attached to infra/shared.
func tenancyLS(ns, name string, listeners ...map[string]any) map[string]any {
	obj := listenerSet(name, listeners...)
	obj["metadata"].(map[string]any)["namespace"] = ns
	spec(obj)["parentRef"] = map[string]any{"name": "shared", "namespace": tenancyInfra}
	return obj
}

// portal is team-a's set: *.a.example.com on 443 (HTTPS) and on 8080 (HTTP).
func portal() map[string]any {
	return tenancyLS(tenancyA, "portal",
		hostnamed(httpsListener("https", 443, "a-wildcard"), "*.a.example.com"),
		hostnamed(httpListener("http", 8080), "*.a.example.com"))
}

// login is team-b's set claiming login.a.example.com, under team-a's
// wildcard, on both of portal's ports, with its own certificate.
func login() map[string]any {
	return tenancyLS(tenancyB, "login",
		hostnamed(httpsListener("https", 443, "login-cert"), "login.a.example.com"),
		hostnamed(httpListener("http", 8080), "login.a.example.com"))
}

// annotateNamespace sets (value non-empty) or removes an annotation of
// namespace ns, and removes it when the test ends.
func annotateNamespace(t *testing.T, ns, key, value string) {
	t.Helper()
	arg := key + "-"
	if value != "" {
		arg = key + "=" + value
	}
	if r := kubectl(t, "", "annotate", "namespace", ns, "--overwrite", arg); r.Err != nil {
		t.Fatalf("%v\n%s", r.Err, r.Output())
	}
	t.Cleanup(func() { kubectl(t, "", "annotate", "namespace", ns, key+"-") })
}

// eventuallyRejects applies obj with --dry-run=server until kubectl fails
// with every string of want in its error output: the view follows a
// Namespace's annotations through a watch, a moment behind the write the
// test just made.
func eventuallyRejects(t *testing.T, obj map[string]any, want ...string) {
	t.Helper()
	start := time.Now()
	deadline := start.Add(15 * time.Second)
	for attempt := 1; ; attempt++ {
		r := apply(t, obj, "--dry-run=server")
		rejected := r.Err != nil
		for _, w := range want {
			rejected = rejected && strings.Contains(r.Stderr, w)
		}
		if rejected {
			if attempt > 1 {
				t.Logf("the view caught up after %d dry runs, %s", attempt, time.Since(start).Round(time.Millisecond))
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("kubectl apply --dry-run=server not rejected with %q after 15s\n--- kubectl printed:\n%s", want, r.Output())
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// The first-claim finding (LS316) of login's listener i, and the
// OverlappingTLSConfig warning (LS307) of its HTTPS listener, which no
// first-claim mode changes. Both of login's listeners are told of
// portal's first listener that overlaps them, whatever its port.
func claimed(i int) string {
	return fmt.Sprintf(`spec.listeners[%d].hostname: hostname "login.a.example.com" overlaps "*.a.example.com", which namespace "team-a" holds `+
		`(team-a/portal listener https, port 443): the first claim keeps it`, i)
}

// notDeclared is the error (LS314) of login's listener i when team-b
// declares *.b.example.com.
func notDeclared(i int) string {
	return fmt.Sprintf(`spec.listeners[%d].hostname: Forbidden: hostname "login.a.example.com" is not among the hostnames `+
		`Namespace "team-b" declares (listenerset-webhook.airlock.com/allowed-hostnames: "*.b.example.com")`, i)
}

const (
	overlap443 = `spec.listeners[0].hostname: hostname "login.a.example.com" overlaps hostname "*.a.example.com" of team-a/portal listener https ` +
		`on port 443: both get OverlappingTLSConfig (OverlappingHostnames); HTTP/2 connection coalescing may reach the other's routes`
	// portal's, once login is stored.
	overlap443Portal = `spec.listeners[0].hostname: hostname "*.a.example.com" overlaps hostname "login.a.example.com" of team-b/login listener https ` +
		`on port 443: both get OverlappingTLSConfig (OverlappingHostnames); HTTP/2 connection coalescing may reach the other's routes`
)

// TestTenancy: two tenants on one Gateway through kubectl, with
// --cluster-checks and the default --first-claim=warn: (a) team-b's
// Namespace declares *.b.example.com, and its ListenerSet claiming
// login.a.example.com is denied, naming the field, the hostname and the
// declaration, while a name the declaration covers passes; a malformed
// declaration denies the set, naming the Namespace, the annotation and
// each bad entry; (b) without a declaration, the same set is created, and
// kubectl prints the first-claim warning of each listener claiming a name
// under team-a's older *.a.example.com, on 443 and on 8080, and nothing
// about team-b on an update of team-a's set; (c) a listener without a
// hostname open to HTTPRoutes of every namespace gets the route capture
// warning.
func TestTenancy(t *testing.T) {
	requireCluster(t)
	applyTenancyFixtures(t)
	restartWebhook(t, webhookSettings{enabled: true})
	mustApply(t, portal())

	t.Run("a declared hostnames", func(t *testing.T) {
		annotateNamespace(t, tenancyB, validation.DefaultAllowedHostnamesAnnotation, "*.b.example.com")
		eventuallyRejects(t, login(), notDeclared(0))
		r := mustReject(t, login(), []string{`The ListenerSet "login" is invalid:`, notDeclared(0), notDeclared(1)})
		t.Logf("kubectl printed:\n%s", r.Stderr)
		if r := kubectl(t, "", "get", "listenerset", "login", "-n", tenancyB, "--ignore-not-found", "-o", "name"); strings.TrimSpace(r.Stdout) != "" {
			t.Errorf("a denied ListenerSet was stored: %s", r.Stdout)
		}
		shop := tenancyLS(tenancyB, "shop", hostnamed(httpListener("http", 8080), "shop.b.example.com"))
		requireExactWarnings(t, mustApply(t, shop, "--dry-run=server"))

		annotateNamespace(t, tenancyB, validation.DefaultAllowedHostnamesAnnotation, "*.b.example.com, shop.b.example.com,Login.b.example.com")
		malformed := []string{
			`The ListenerSet "shop" is invalid:`,
			`metadata.namespace: Invalid value: "team-b": annotation listenerset-webhook.airlock.com/allowed-hostnames of Namespace "team-b": ` +
				`entry 2 " shop.b.example.com": blanks around the entry; separate entries with commas only`,
			`metadata.namespace: Invalid value: "team-b": annotation listenerset-webhook.airlock.com/allowed-hostnames of Namespace "team-b": ` +
				`entry 3 "Login.b.example.com": `,
		}
		eventuallyRejects(t, shop, malformed...)
		r = mustReject(t, shop, malformed)
		t.Logf("kubectl printed:\n%s", r.Stderr)
	})

	t.Run("b first claim warns", func(t *testing.T) {
		// The subtest above removed the declaration as it ended: the dry
		// runs give the warnings once the view has seen that.
		eventuallyWarns(t, login(), overlap443, claimed(0), claimed(1))
		r := mustApply(t, login())
		requireExactWarnings(t, r, overlap443, claimed(0), claimed(1))
		if !strings.Contains(r.Stdout, "listenerset.gateway.networking.k8s.io/login created") {
			t.Errorf("login not created:\n%s", r.Output())
		}
		t.Logf("kubectl printed:\n%s", r.Output())
		// team-a's older set keeps the name: its update says nothing of
		// team-b's claim.
		labelled := portal()
		labelled["metadata"].(map[string]any)["labels"] = map[string]any{"tier": "front"}
		requireExactWarnings(t, mustApply(t, labelled), overlap443Portal)
	})

	t.Run("c route capture warns", func(t *testing.T) {
		open := httpListener("open", 9090)
		open["allowedRoutes"] = map[string]any{"namespaces": map[string]any{"from": "All"}}
		r := mustApply(t, tenancyLS(tenancyB, "open", open), "--dry-run=server")
		requireExactWarnings(t, r, `spec.listeners[0].allowedRoutes.namespaces.from: no hostname, and from All admits HTTPRoutes of other namespaces: `+
			`each can claim any hostname on this listener; set a hostname, or from: Same`)
		t.Logf("kubectl printed:\n%s", r.Output())
		open["allowedRoutes"] = map[string]any{"namespaces": map[string]any{"from": "Same"}}
		requireExactWarnings(t, mustApply(t, tenancyLS(tenancyB, "open", open), "--dry-run=server"))
	})
}

// TestFirstClaimDeny: with --first-claim=deny the create that TestTenancy's
// warn mode lets through is denied, and nothing is stored; a squatter
// stored while the rule was off keeps its name on an unchanged update (a
// label change passes, each finding shown as ratcheted) but cannot claim a
// name it did not hold; `kubectl listenerset audit` reports the squatter's
// claims (LS316), warnings by default and errors with --first-claim=deny,
// and no claim on team-a's set; `listeners --kubeconfig` shows both owners
// and who holds the name; with Capsule's tenant label naming one tenant
// for both namespaces, they are one owner and nothing is claimed, in the
// plugin's audit and listeners and in the webhook.
func TestFirstClaimDeny(t *testing.T) {
	bin := startFirstClaimDeny(t)
	mustApply(t, portal())
	const ratcheted = " (already stored; allowed because unchanged)"
	denied := func(i int) string {
		return strings.Replace(claimed(i), ".hostname: ", ".hostname: Forbidden: ", 1)
	}

	t.Run("the create is denied", func(t *testing.T) {
		eventuallyRejects(t, login(), denied(0))
		r := mustReject(t, login(), []string{`The ListenerSet "login" is invalid:`, "* " + denied(0), "* " + denied(1)})
		t.Logf("kubectl printed:\n%s", r.Output())
		if r := kubectl(t, "", "get", "listenerset", "login", "-n", tenancyB, "--ignore-not-found", "-o", "name"); strings.TrimSpace(r.Stdout) != "" {
			t.Errorf("a denied ListenerSet was stored: %s", r.Stdout)
		}
	})

	t.Run("a squatter stored while off keeps its names", func(t *testing.T) {
		switchWebhook(t, webhookSettings{enabled: true, firstClaim: validation.ClaimOff})
		requireExactWarnings(t, mustApply(t, login()), overlap443)
		switchWebhook(t, webhookSettings{enabled: true, firstClaim: validation.ClaimDeny})

		labelled := login()
		labelled["metadata"].(map[string]any)["labels"] = map[string]any{"team": "b"}
		r := mustApply(t, labelled)
		requireExactWarnings(t, r, overlap443, denied(0)+ratcheted, denied(1)+ratcheted)
		if !strings.Contains(r.Stdout, "listenerset.gateway.networking.k8s.io/login configured") {
			t.Errorf("login not updated:\n%s", r.Output())
		}
		t.Logf("kubectl printed:\n%s", r.Output())

		// A name it did not hold is claimed anew, and denied.
		renamed := clone(labelled)
		listener(renamed, 1)["hostname"] = "pay.a.example.com"
		r = mustReject(t, renamed, []string{`The ListenerSet "login" is invalid: spec.listeners[1].hostname: Forbidden: hostname "pay.a.example.com" overlaps "*.a.example.com"`})
		t.Logf("kubectl printed:\n%s", r.Output())
	})

	admin := []string{"--kubeconfig", cluster.KubeconfigPath}
	plugin := func(args ...string) []string { return append(args, admin...) }

	t.Run("audit finds the squatter", func(t *testing.T) {
		out, errOut := runAudit(t, bin, report.ExitValid, plugin("audit", "-n", tenancyB)...)
		if want := "listenerset.gateway.networking.k8s.io/team-b/login valid\n"; out != want {
			t.Errorf("audit -n team-b printed\n%s\nwant\n%s", out, want)
		}
		if want := "Warning: " + overlap443 + "\nWarning: " + claimed(0) + "\nWarning: " + claimed(1) + "\n"; withoutUnreported(errOut) != want {
			t.Errorf("audit -n team-b's warnings:\n%s\nwant\n%s", errOut, want)
		}
		t.Logf("audit -n team-b printed:\n%s%s", out, errOut)
		out, _ = runAudit(t, bin, report.ExitInvalid, plugin("audit", "-n", tenancyB, "--first-claim=deny")...)
		for _, want := range []string{`The ListenerSet "team-b/login" is invalid:`, "* " + denied(0), "* " + denied(1)} {
			if !strings.Contains(out, want) {
				t.Errorf("audit -n team-b --first-claim=deny lacks %q:\n%s", want, out)
			}
		}
		out, _ = runAudit(t, bin, report.ExitValid, plugin("audit", "-n", tenancyB, "-o", "json")...)
		if codes := auditCodes(t, out, tenancyB, "login"); !slices.Equal(codes, []string{"LS307", "LS316", "LS316"}) {
			t.Errorf("audit -o json: team-b/login's codes %v, want LS307, LS316, LS316\n%s", codes, out)
		}
		out, _ = runAudit(t, bin, report.ExitValid, plugin("audit", "-n", tenancyA, "-o", "json")...)
		if codes := auditCodes(t, out, tenancyA, "portal"); slices.Contains(codes, "LS316") {
			t.Errorf("audit -o json: team-a/portal, which holds the name, has %v\n%s", codes, out)
		}
	})

	t.Run("a declaration made later", func(t *testing.T) {
		annotateNamespace(t, tenancyB, validation.DefaultAllowedHostnamesAnnotation, "*.b.example.com")
		// The webhook: an update that leaves the hostnames as stored passes.
		labelled := login()
		labelled["metadata"].(map[string]any)["labels"] = map[string]any{"team": "b", "declared": "later"}
		eventuallyWarns(t, labelled, overlap443, denied(0)+ratcheted, denied(1)+ratcheted, notDeclared(0)+ratcheted, notDeclared(1)+ratcheted)
		// The audit: each stored listener outside the declaration.
		out, errOut := runAudit(t, bin, report.ExitInvalid, plugin("audit", "-n", tenancyB)...)
		t.Logf("audit -n team-b printed:\n%s%s", out, errOut)
		for _, want := range []string{`The ListenerSet "team-b/login" is invalid:`, "* " + notDeclared(0), "* " + notDeclared(1)} {
			if !strings.Contains(out, want) {
				t.Errorf("audit -n team-b lacks %q:\n%s", want, out)
			}
		}
	})

	t.Run("listeners shows owners and the claim", func(t *testing.T) {
		args := plugin("listeners", "--gateway", tenancyInfra+"/shared")
		table := runListeners(t, bin, args...)
		t.Logf("listeners printed:\n%s", table)
		rows := listenerRows(t, runListeners(t, bin, append(args, "-o", "json")...))
		got := map[string]string{}
		for _, r := range rows {
			key := r.Source.String() + " " + r.Name
			owner := "<none>"
			if r.Owner != nil {
				owner = r.Owner.String()
			}
			got[key] = owner
			if r.HeldBy != nil {
				got[key] += " held by " + r.HeldBy.Owner.String() + " " + r.HeldBy.Listener.String()
			}
			if r.OverlappedBy != nil {
				got[key] += " overlapped by " + r.OverlappedBy.Owner.String() + " " + r.OverlappedBy.Listener.String()
			}
		}
		want := map[string]string{
			"Gateway/infra/shared http":       "<none>",
			"ListenerSet/team-a/portal https": "namespace/team-a overlapped by namespace/team-b ListenerSet/team-b/login listener https",
			"ListenerSet/team-a/portal http":  "namespace/team-a",
			"ListenerSet/team-b/login https":  "namespace/team-b held by namespace/team-a ListenerSet/team-a/portal listener https",
			"ListenerSet/team-b/login http":   "namespace/team-b held by namespace/team-a ListenerSet/team-a/portal listener https",
		}
		if !maps.Equal(got, want) {
			t.Errorf("listeners -o json: owners and claims\n%v\nwant\n%v", got, want)
		}
	})

	t.Run("one tenant of two namespaces claims nothing", func(t *testing.T) {
		for _, ns := range []string{tenancyA, tenancyB} {
			if r := kubectl(t, "", "label", "namespace", ns, capsuleTenant+"=alpha"); r.Err != nil {
				t.Fatalf("%v\n%s", r.Err, r.Output())
			}
			t.Cleanup(func() { kubectl(t, "", "label", "namespace", ns, capsuleTenant+"-") })
		}
		out, errOut := runAudit(t, bin, report.ExitValid, plugin("audit", "-n", tenancyB, "--tenant-label", capsuleTenant)...)
		if want := "Warning: " + overlap443 + "\n"; withoutUnreported(errOut) != want {
			t.Errorf("audit --tenant-label %s: warnings\n%s\nwant\n%s", capsuleTenant, errOut, want)
		}
		t.Logf("audit -n team-b --tenant-label printed:\n%s%s", out, errOut)
		table := runListeners(t, bin, plugin("listeners", "--gateway", tenancyInfra+"/shared", "--tenant-label", capsuleTenant)...)
		t.Logf("listeners --tenant-label printed:\n%s", table)
		if !strings.Contains(table, "tenant/alpha") || strings.Contains(table, "held by") {
			t.Errorf("listeners --tenant-label %s: want owner tenant/alpha and no claim:\n%s", capsuleTenant, table)
		}

		// The webhook: without --tenant-label the namespaces are two
		// owners, with it one.
		signup := tenancyLS(tenancyB, "signup", hostnamed(httpListener("http", 8080), "signup.a.example.com"))
		mustReject(t, signup, []string{`The ListenerSet "signup" is invalid: spec.listeners[0].hostname: Forbidden: hostname "signup.a.example.com" ` +
			`overlaps "*.a.example.com", which namespace "team-a" holds`}, "--dry-run=server")
		switchWebhook(t, webhookSettings{enabled: true, firstClaim: validation.ClaimDeny, tenantLabel: capsuleTenant})
		requireExactWarnings(t, mustApply(t, signup, "--dry-run=server"))
	})
}

// startFirstClaimDeny prepares a test of the first claim in deny mode:
// the fixtures, the webhook with --first-claim=deny, and the plugin, whose
// path it returns.
func startFirstClaimDeny(t *testing.T) (plugin string) {
	t.Helper()
	requireCluster(t)
	applyTenancyFixtures(t)
	bin, err := testproc.PluginBinary()
	if err != nil {
		t.Fatalf("building cmd/kubectl-listenerset: %v", err)
	}
	restartWebhook(t, webhookSettings{enabled: true, firstClaim: validation.ClaimDeny})
	return bin
}

// auditCodes are the codes of the errors and warnings, in that order, that
// audit -o json reports for ns/name, LS018 left out.
func auditCodes(t *testing.T, out, ns, name string) []string {
	t.Helper()
	type finding struct{ Code string }
	var doc struct {
		Results []struct {
			Namespace, Name  string
			Errors, Warnings []finding
		}
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, r := range doc.Results {
		if r.Namespace == ns && r.Name == name {
			var codes []string
			for _, f := range append(r.Errors, r.Warnings...) {
				if f.Code != string(judge.CodeStatusNotReported) { // see withoutUnreported
					codes = append(codes, f.Code)
				}
			}
			return codes
		}
	}
	t.Fatalf("no result for %s/%s:\n%s", ns, name, out)
	return nil
}

// holdGate is a validating webhook of the test's own for ListenerSets
// labelled e2e-gate=hold. kube-apiserver calls the validating webhooks of a
// request in parallel and stores the object only once each has allowed
// it: while the gate holds a create, the product's webhook has judged it,
// and no view can see it, since it is not stored.
type holdGate struct {
	srv *httptest.Server
	// hold makes the gate hold each request until Release, sending its
	// object's name on arrived first; without it, the gate allows at once.
	hold     atomic.Bool
	calls    atomic.Int32
	arrived  chan string
	release  chan struct{}
	released sync.Once
}

// Release lets the held requests through, and any later one at once.
func (g *holdGate) Release() { g.released.Do(func() { close(g.release) }) }

func (g *holdGate) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var review admissionv1.AdmissionReview
	if err := json.NewDecoder(r.Body).Decode(&review); err != nil || review.Request == nil {
		http.Error(w, "not an AdmissionReview", http.StatusBadRequest)
		return
	}
	g.calls.Add(1)
	if g.hold.Load() {
		g.arrived <- review.Request.Name
		select {
		case <-g.release:
		case <-r.Context().Done():
		}
	}
	review.Response = &admissionv1.AdmissionResponse{UID: review.Request.UID, Allowed: true}
	review.Request = nil
	_ = json.NewEncoder(w).Encode(review)
}

// startHoldGate serves a holdGate over TLS and registers it; both end with
// the test.
func startHoldGate(t *testing.T) *holdGate {
	t.Helper()
	cert, err := localcluster.NewServingCert(t.TempDir(), "127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	pair, err := tls.LoadX509KeyPair(filepath.Join(cert.Dir, certs.CertFile), filepath.Join(cert.Dir, certs.KeyFile))
	if err != nil {
		t.Fatal(err)
	}
	g := &holdGate{arrived: make(chan string, 1), release: make(chan struct{})}
	g.srv = httptest.NewUnstartedServer(g)
	g.srv.TLS = &tls.Config{Certificates: []tls.Certificate{pair}}
	g.srv.StartTLS()
	t.Cleanup(func() { g.Release(); g.srv.Close() })
	ctx := context.Background()
	config := &admissionregv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "e2e-hold-gate"},
		Webhooks: []admissionregv1.ValidatingWebhook{{
			Name:                    "hold-gate.e2e.listenerset-webhook.airlock.com",
			ClientConfig:            admissionregv1.WebhookClientConfig{URL: ptr.To(g.srv.URL), CABundle: cert.CAPEM},
			Rules:                   []admissionregv1.RuleWithOperations{registration.Rule()},
			ObjectSelector:          &metav1.LabelSelector{MatchLabels: map[string]string{"e2e-gate": "hold"}},
			FailurePolicy:           ptr.To(admissionregv1.Fail),
			SideEffects:             ptr.To(admissionregv1.SideEffectClassNone),
			TimeoutSeconds:          ptr.To(int32(30)),
			AdmissionReviewVersions: []string{"v1"},
		}},
	}
	if err := cluster.Client.Create(ctx, config); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cluster.Client.Delete(ctx, config) })
	return g
}

// TestFirstClaimRace: two creates racing through the webhook's cache both
// pass, even with --first-claim=deny: neither is stored when the other is
// judged. The race is made certain: a gate of the test's own (holdGate)
// holds the first create, team-a's, after the webhook has judged it and
// before it is stored, while team-b's, overlapping it, is created; then
// the gate lets team-a's through. A third create, once the view has both,
// is denied; `kubectl listenerset audit` finds the pair, the claim on the
// newer of the two.
func TestFirstClaimRace(t *testing.T) {
	bin := startFirstClaimDeny(t)
	gate := startHoldGate(t)

	first := tenancyLS(tenancyA, "race-a", hostnamed(httpListener("http", 8081), "shop.r.example.com"))
	first["metadata"].(map[string]any)["labels"] = map[string]any{"e2e-gate": "hold"}
	second := tenancyLS(tenancyB, "race-b", hostnamed(httpListener("http", 8081), "*.r.example.com"))

	// kube-apiserver calls the gate once its configuration is in effect.
	waitFor(t, "kube-apiserver to call the gate", func() bool {
		mustApply(t, first, "--dry-run=server")
		return gate.calls.Load() > 0
	})
	gate.hold.Store(true)
	firstYAML := toYAML(t, first)
	done := make(chan localcluster.KubectlResult, 1)
	go func() { done <- kubectl(t, firstYAML, "apply", "-f", "-") }()
	select {
	case name := <-gate.arrived:
		t.Logf("the gate holds the create of %s/%s", tenancyA, name)
	case <-time.After(30 * time.Second):
		t.Fatal("the create of team-a/race-a did not reach the gate in 30s")
	}
	requireExactWarnings(t, mustApply(t, second))
	gate.Release()
	if r := <-done; r.Err != nil || !strings.Contains(r.Stdout, "race-a created") {
		t.Fatalf("the held create: %v\n%s", r.Err, r.Output())
	}

	// Sequential, the view holds both: a third claim is denied.
	third := tenancyLS(tenancyB, "race-c", hostnamed(httpListener("http", 8082), "*.r.example.com"))
	eventuallyRejects(t, third, `spec.listeners[0].hostname: Forbidden: hostname "*.r.example.com" overlaps "shop.r.example.com", `+
		`which namespace "team-a" holds (team-a/race-a listener http, port 8081): the first claim keeps it`)

	out, errOut := runAudit(t, bin, report.ExitValid, "audit", "--kubeconfig", cluster.KubeconfigPath, "-n", tenancyB)
	t.Logf("audit -n team-b printed:\n%s%s", out, errOut)
	if want := "Warning: " + `spec.listeners[0].hostname: hostname "*.r.example.com" overlaps "shop.r.example.com", which namespace "team-a" holds ` +
		`(team-a/race-a listener http, port 8081): the first claim keeps it` + "\n"; withoutUnreported(errOut) != want {
		t.Errorf("audit -n team-b's warnings:\n%s\nwant\n%s", errOut, want)
	}
}
