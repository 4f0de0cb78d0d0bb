package e2e

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/airlock/listenerset-webhook/test/localcluster"
)

// TestWarnings: admission warnings reach kubectl as "Warning:" lines, and the
// object is stored all the same.
func TestWarnings(t *testing.T) {
	requireCluster(t)
	const name = "e2e-warnings"
	cleanupLS(t, name)
	l := httpsListener("shared", 8443, "wildcard-cert")
	tls := l["tls"].(map[string]any)
	tls["certificateRefs"].([]any)[0].(map[string]any)["namespace"] = "listenerset-certs"
	tls["options"] = map[string]any{
		"example.com/foo":                         "bar",
		"microgateway.airlock.com/minimumVersion": "TLSv1_2",
	}
	obj := listenerSet(name, l)

	for _, flags := range [][]string{{"--dry-run=server"}, nil} {
		r := mustApply(t, obj, flags...)
		requireWarnings(t, r,
			"spec.listeners[0].tls.certificateRefs[0].namespace",
			"listenerset-certs",
			"spec.listeners[0].tls.options[example.com/foo]",
		)
		if n := len(warnings(r)); n != 2 {
			t.Errorf("kubectl apply %v printed %d warnings, want 2:\n%s", flags, n, r.Stderr)
		}
	}
	if _, _, ok := get(t, name); !ok {
		t.Error("an object with warnings only was not stored")
	}
}

// TestRatcheting: an object stored while the webhook was not registered, with
// a value the webhook rejects, can still be edited where the edit leaves that
// value alone, also when listeners are inserted or reordered around it; a new
// invalid value is still rejected.
func TestRatcheting(t *testing.T) {
	requireCluster(t)
	const name = "e2e-ratchet"
	cleanupLS(t, name)
	ctx := context.Background()

	// Two certificateRefs pass the CRD but not the webhook.
	stored := listenerSet(name,
		httpsListener("tls", 8443, "cert-a", "cert-b"),
		httpListener("plain", 8080),
	)
	if err := cluster.UnregisterWebhooks(ctx, namespace); err != nil {
		t.Fatal(err)
	}
	r := apply(t, stored)
	if err := cluster.RegisterWebhooks(ctx, endpoint, namespace); err != nil {
		t.Fatalf("re-registering the webhook: %v", err) // later tests need it
	}
	if r.Err != nil {
		t.Fatalf("storing the object without the webhook: %v\n%s", r.Err, r.Output())
	}
	// The webhook is back: the same object is now rejected as new.
	cleanupLS(t, "e2e-ratchet-new")
	mustReject(t, listenerSet("e2e-ratchet-new", listener(stored, 0), listener(stored, 1)),
		[]string{"spec.listeners[0].tls.certificateRefs", "Too many: 2"})

	t.Run("label edit is allowed", func(t *testing.T) {
		r := kubectl(t, "", "label", "listenerset", name, "-n", namespace, "team=blue")
		if r.Err != nil {
			t.Fatalf("%v\n%s", r.Err, r.Output())
		}
		// The kept error is reported as a warning.
		requireWarnings(t, r, "spec.listeners[0].tls.certificateRefs")
	})
	t.Run("edit of another listener is allowed", func(t *testing.T) {
		edited := clone(stored)
		listener(edited, 1)["port"] = 8081
		mustApply(t, edited)
		ls, _, _ := get(t, name)
		if ls.Spec.Listeners[1].Port != 8081 || len(ls.Spec.Listeners[0].TLS.CertificateRefs) != 2 {
			t.Errorf("stored after the edit: %+v", ls.Spec.Listeners)
		}
	})
	// Errors ratchet by the value at their path: the
	// invalid listener's other fields may change around its stored
	// certificateRefs.
	t.Run("edit of another field of the invalid listener is allowed", func(t *testing.T) {
		edited := clone(stored)
		listener(edited, 0)["tls"].(map[string]any)["options"] = map[string]any{"microgateway.airlock.com/minimumVersion": "TLSv1_3"}
		r := mustApply(t, edited)
		requireWarnings(t, r, "spec.listeners[0].tls.certificateRefs: Too many: 2")
		// Back to the stored object, which the subtests below edit.
		mustApply(t, clone(stored))
	})
	// spec.listeners is a map list keyed by name: the stored listener is
	// found by its name wherever it stands now.
	t.Run("a listener inserted before the invalid one is allowed", func(t *testing.T) {
		edited := clone(stored)
		listener(edited, 1)["port"] = 8081
		spec := edited["spec"].(map[string]any)
		spec["listeners"] = append([]any{httpListener("extra", 9090)}, listeners(edited)...)
		r := mustApply(t, edited)
		requireWarnings(t, r, "spec.listeners[1].tls.certificateRefs: Too many: 2")
	})
	t.Run("reordering the listeners is allowed", func(t *testing.T) {
		edited := clone(stored)
		listener(edited, 1)["port"] = 8081
		spec := edited["spec"].(map[string]any)
		spec["listeners"] = []any{listener(edited, 1), listener(edited, 0)}
		r := mustApply(t, edited)
		requireWarnings(t, r, "spec.listeners[1].tls.certificateRefs: Too many: 2")
		ls, _, _ := get(t, name)
		if ls.Spec.Listeners[0].Name != "plain" || len(ls.Spec.Listeners[1].TLS.CertificateRefs) != 2 {
			t.Errorf("stored after the reorder: %+v", ls.Spec.Listeners)
		}
		// Back to the stored order, which the subtests below edit.
		restored := clone(stored)
		listener(restored, 1)["port"] = 8081
		mustApply(t, restored)
	})
	t.Run("new invalid value is rejected", func(t *testing.T) {
		edited := clone(stored)
		listener(edited, 1)["port"] = 8081
		listener(edited, 1)["hostname"] = "203.0.113.5"
		mustReject(t, edited, []string{"spec.listeners[1].hostname", "203.0.113.5"})
	})
	t.Run("changed invalid value is rejected", func(t *testing.T) {
		edited := clone(stored)
		listener(edited, 1)["port"] = 8081
		listener(edited, 0)["tls"] = httpsListener("", 0, "cert-a", "cert-b", "cert-c")["tls"]
		mustReject(t, edited, []string{"spec.listeners[0].tls.certificateRefs", "Too many: 3"})
		ls, _, _ := get(t, name)
		if n := len(ls.Spec.Listeners[0].TLS.CertificateRefs); n != 2 {
			t.Errorf("stored certificateRefs: %d, want the 2 stored before", n)
		}
	})
}

// TestWebhookDown: with failurePolicy Fail, creates and updates of
// ListenerSets fail with a clear message while the webhook is down, deletes
// and status writes (not matched by the rules) go through, and service
// resumes when the webhook is back.
func TestWebhookDown(t *testing.T) {
	requireCluster(t)
	const existing, fresh = "e2e-down-existing", "e2e-down-new"
	cleanupLS(t, existing)
	cleanupLS(t, fresh)
	cleanupLS(t, "e2e-down-deleted")
	mustApply(t, listenerSet(existing, httpListener("web", 8080)))
	mustApply(t, listenerSet("e2e-down-deleted", httpListener("web", 8080)))

	if err := hook.Stop(); err != nil {
		t.Fatalf("stopping the webhook: %v", err)
	}
	restarted := false
	restart := func() {
		if restarted {
			return
		}
		restarted = true
		ctx := context.Background()
		if err := hook.Start(ctx); err != nil {
			t.Fatalf("restarting the webhook: %v", err)
		}
		if err := cluster.WaitForWebhook(ctx, namespace, 30*time.Second); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(restart) // later tests need it, whatever happens here

	// The mutating webhook's matchConditions skip it (the CRD's schema has
	// set every default), so the validating webhook is the one that fails.
	r := mustReject(t, listenerSet(fresh, httpListener("web", 8080)), []string{
		`failed calling webhook "` + localcluster.ValidatingWebhookName + `"`,
		"connection refused",
	})
	t.Logf("create while down, kubectl printed:\n%s", r.Stderr)
	mustNotExist(t, fresh)

	r = kubectl(t, "", "label", "listenerset", existing, "-n", namespace, "team=red")
	if r.Err == nil || !strings.Contains(r.Stderr, "failed calling webhook") {
		t.Errorf("label (UPDATE) while the webhook is down: want failure, got err=%v\n%s", r.Err, r.Output())
	}

	status := `{"status":{"conditions":[{"type":"Accepted","status":"True","reason":"Accepted","message":"e2e",` +
		`"lastTransitionTime":"2026-01-01T00:00:00Z","observedGeneration":1}]}}`
	r = kubectl(t, "", "patch", "listenerset", existing, "-n", namespace, "--subresource=status", "--type=merge", "-p", status)
	if r.Err != nil {
		t.Errorf("status write while the webhook is down: the rules must not match listenersets/status: %v\n%s", r.Err, r.Output())
	}
	if r = kubectl(t, "", "delete", "listenerset", "e2e-down-deleted", "-n", namespace); r.Err != nil {
		t.Errorf("delete while the webhook is down: DELETE is not matched: %v\n%s", r.Err, r.Output())
	}

	restart()
	mustApply(t, listenerSet(fresh, httpListener("web", 8080)))
	if r = kubectl(t, "", "label", "listenerset", existing, "-n", namespace, "team=red"); r.Err != nil {
		t.Errorf("label after the webhook is back: %v\n%s", r.Err, r.Output())
	}
}

// TestMutationMatchesCRD: the webhook's patch never produces what the CRD
// rejects, and gives exactly what the CRD's own defaulting gives: every valid
// example (and an object that leans on defaults) is stored once through the
// webhook and once with the webhook unregistered; the specs must be equal,
// and the stored spec must pass the CRD's schema and CEL rules on its own.
func TestMutationMatchesCRD(t *testing.T) {
	requireCluster(t)
	ctx := context.Background()
	objects := map[string]map[string]any{}
	for _, ex := range loadExamples(t, "valid") {
		objects[ex.Name] = ex.Object
	}
	lean := listenerSet("e2e-lean",
		map[string]any{"name": "h3", "protocol": "microgateway.airlock.com/http3", "port": 443,
			"tls": map[string]any{"certificateRefs": []any{map[string]any{"name": "c"}}}},
		map[string]any{"name": "web", "protocol": "HTTP", "port": 80,
			"allowedRoutes": map[string]any{"kinds": []any{map[string]any{"kind": "HTTPRoute"}}, "namespaces": map[string]any{}}},
	)
	objects["lean"] = lean

	withWebhook := map[string]map[string]any{}
	for key, obj := range objects {
		obj = clone(obj)
		name := "mut-" + key
		obj["metadata"].(map[string]any)["name"] = name
		cleanupLS(t, name)
		mustApply(t, obj)
		_, raw, _ := get(t, name)
		withWebhook[key] = raw["spec"].(map[string]any)
	}

	if err := cluster.UnregisterWebhooks(ctx, namespace); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := cluster.RegisterWebhooks(ctx, endpoint, namespace); err != nil {
			t.Fatalf("re-registering the webhook: %v", err)
		}
	})
	for key, obj := range objects {
		obj = clone(obj)
		name := "crd-" + key
		obj["metadata"].(map[string]any)["name"] = name
		cleanupLS(t, name)
		mustApply(t, obj)
		_, raw, _ := get(t, name)
		if got, want := raw["spec"], withWebhook[key]; !reflect.DeepEqual(got, want) {
			t.Errorf("%s: spec stored through the webhook differs from the CRD's own defaulting\nwebhook: %s\nCRD:     %s",
				key, mustJSON(want), mustJSON(got))
		}
		// The spec the webhook produced, judged by the CRD alone.
		again := listenerSet("recheck-" + key)
		again["spec"] = withWebhook[key]
		if r := apply(t, again, "--dry-run=server"); r.Err != nil {
			t.Errorf("%s: the CRD rejects the spec the webhook produced: %v\n%s", key, r.Err, r.Output())
		}
	}
}

func mustJSON(v any) string {
	data, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(data)
}
