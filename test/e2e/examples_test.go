package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"

	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// TestValidExamples: every examples/valid file is created and updated through
// the webhook, and the stored object carries the defaults.
func TestValidExamples(t *testing.T) {
	requireCluster(t)
	for _, ex := range loadExamples(t, "valid") {
		t.Run(ex.Name, func(t *testing.T) {
			name := ex.objectName()
			cleanupLS(t, name)

			r := mustApply(t, ex.Object)
			if !strings.Contains(r.Stdout, "listenerset.gateway.networking.k8s.io/"+name+" created") {
				t.Errorf("kubectl apply did not report a create:\n%s", r.Output())
			}
			requireWarnings(t, r, ex.ExpectWarnings...)
			if len(ex.ExpectWarnings) == 0 {
				if w := warnings(r); len(w) > 0 {
					t.Errorf("unexpected warnings for a clean object: %q", w)
				}
			}
			stored, _, ok := get(t, name)
			if !ok {
				t.Fatal("not stored after a successful apply")
			}
			checkDefaults(t, ex.Object, stored)

			// Update: a label and another port for the first listener.
			updated := clone(ex.Object)
			updated["metadata"].(map[string]any)["labels"] = map[string]any{"e2e": "updated"}
			first := listener(updated, 0)
			newPort := int(first["port"].(float64)) + 1000
			first["port"] = newPort
			r = mustApply(t, updated)
			if !strings.Contains(r.Stdout, "configured") {
				t.Errorf("kubectl apply did not report an update:\n%s", r.Output())
			}
			stored, _, _ = get(t, name)
			if got := stored.Spec.Listeners[0].Port; int(got) != newPort {
				t.Errorf("stored port %d after update, want %d", got, newPort)
			}
			if stored.Labels["e2e"] != "updated" || stored.Generation != 2 {
				t.Errorf("after update: labels %v generation %d, want e2e=updated and generation 2", stored.Labels, stored.Generation)
			}
			checkDefaults(t, updated, stored)
		})
	}
}

// checkDefaults: what the CRD schema defaults, and the webhook's mutation
// mirrors, is set on the stored object; what the manifest set is kept.
func checkDefaults(t *testing.T, manifest map[string]any, ls *gwv1.ListenerSet) {
	t.Helper()
	pr := ls.Spec.ParentRef
	if pr.Group == nil || *pr.Group != "gateway.networking.k8s.io" || pr.Kind == nil || *pr.Kind != "Gateway" {
		t.Errorf("parentRef group/kind not defaulted: %+v", pr)
	}
	for i, l := range ls.Spec.Listeners {
		path := fmt.Sprintf("spec.listeners[%d]", i)
		ml := listener(manifest, i)
		if l.AllowedRoutes == nil || l.AllowedRoutes.Namespaces == nil || l.AllowedRoutes.Namespaces.From == nil {
			t.Errorf("%s.allowedRoutes.namespaces.from not defaulted", path)
		} else if _, set := ml["allowedRoutes"]; !set && *l.AllowedRoutes.Namespaces.From != gwv1.NamespacesFromSame {
			t.Errorf("%s.allowedRoutes.namespaces.from = %s, want the default Same", path, *l.AllowedRoutes.Namespaces.From)
		}
		if l.AllowedRoutes != nil {
			for j, k := range l.AllowedRoutes.Kinds {
				if k.Group == nil || *k.Group != gwv1.GroupName {
					t.Errorf("%s.allowedRoutes.kinds[%d].group not defaulted to %s", path, j, gwv1.GroupName)
				}
			}
		}
		if l.TLS == nil {
			continue
		}
		if l.TLS.Mode == nil || *l.TLS.Mode != gwv1.TLSModeTerminate {
			t.Errorf("%s.tls.mode = %v, want Terminate", path, l.TLS.Mode)
		}
		for j, ref := range l.TLS.CertificateRefs {
			if ref.Group == nil || *ref.Group != "" || ref.Kind == nil || *ref.Kind != "Secret" {
				t.Errorf("%s.tls.certificateRefs[%d] group/kind not defaulted to \"\"/Secret: %+v", path, j, ref)
			}
		}
	}
}

// TestInvalidExamples: every examples/invalid file is rejected at create (and
// at server-side dry run, which stores nothing) and when it replaces a valid
// object, by PATCH (kubectl apply) and by PUT (kubectl replace); kubectl
// prints every error its header lists, with its field path.
func TestInvalidExamples(t *testing.T) {
	requireCluster(t)
	for _, ex := range loadExamples(t, "invalid") {
		t.Run(ex.Name, func(t *testing.T) {
			if len(ex.Expect) == 0 || (ex.RejectedBy != "webhook" && ex.RejectedBy != "crd") {
				t.Fatalf("%s: header needs '# rejected-by: webhook|crd' and at least one '# expect:' line", ex.Path)
			}
			name := ex.objectName()
			cleanupLS(t, name)
			// kubectl prints a 422 Invalid status, the webhook's or the
			// CRD's, as `The ListenerSet "<name>" is invalid: ...` followed by
			// every cause with its field path. Which of the two rejected it is
			// checked by TestInvalidExamplesRejectedBy.
			invalid := fmt.Sprintf("The ListenerSet %q is invalid", name)
			checkRejecter := func(t *testing.T, output string) {
				t.Helper()
				if !strings.Contains(output, invalid) {
					t.Errorf("want kubectl's %q, kubectl printed:\n%s", invalid, output)
				}
			}

			t.Run("create", func(t *testing.T) {
				r := mustReject(t, ex.Object, ex.Expect)
				checkRejecter(t, r.Output())
				mustNotExist(t, name)
				t.Logf("kubectl printed:\n%s", r.Stderr)
			})
			t.Run("dry-run=server", func(t *testing.T) {
				r := mustReject(t, ex.Object, ex.Expect, "--dry-run=server")
				checkRejecter(t, r.Output())
				mustNotExist(t, name)
			})
			for _, verb := range []string{"apply", "replace"} {
				t.Run("update by "+verb, func(t *testing.T) {
					mustApply(t, baseline(name))
					defer deleteLS(t, name)
					res := kubectl(t, toYAML(t, ex.Object), verb, "-f", "-")
					if res.Err == nil {
						t.Fatalf("kubectl %s succeeded, want rejection\n%s", verb, res.Output())
					}
					for _, w := range ex.Expect {
						if !strings.Contains(res.Stderr, w) {
							t.Errorf("kubectl %s output lacks %q\n--- kubectl printed:\n%s", verb, w, res.Output())
						}
					}
					checkRejecter(t, res.Output())
					stored, _, ok := get(t, name)
					if !ok {
						t.Fatal("baseline object vanished")
					}
					if len(stored.Spec.Listeners) != 1 || stored.Spec.Listeners[0].Name != "baseline" || stored.Generation != 1 {
						t.Errorf("rejected update changed the stored object: generation %d, listeners %+v", stored.Generation, stored.Spec.Listeners)
					}
				})
			}
		})
	}
}

// TestInvalidExamplesRejectedBy: each invalid example is rejected by whom its
// header says. With the webhook unregistered, a "rejected-by: webhook"
// example passes the CRD's own schema and CEL rules (so its rejection is the
// webhook's), and a "rejected-by: crd" example is still rejected, with the
// same messages.
func TestInvalidExamplesRejectedBy(t *testing.T) {
	requireCluster(t)
	ctx := context.Background()
	examples := loadExamples(t, "invalid")
	if err := cluster.UnregisterWebhooks(ctx, namespace); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := cluster.RegisterWebhooks(ctx, endpoint, namespace); err != nil {
			t.Fatalf("re-registering the webhook: %v", err)
		}
	})
	for _, ex := range examples {
		t.Run(ex.Name, func(t *testing.T) {
			switch ex.RejectedBy {
			case "webhook":
				if r := apply(t, ex.Object, "--dry-run=server"); r.Err != nil {
					t.Errorf("the CRD alone rejects this example, so it does not show the webhook's message; "+
						"mark it 'rejected-by: crd' or pick a violation the CRD allows:\n%s", r.Output())
				}
			case "crd":
				mustReject(t, ex.Object, ex.Expect, "--dry-run=server")
			default:
				t.Fatalf("%s: rejected-by %q, want webhook or crd", ex.Path, ex.RejectedBy)
			}
		})
	}
}
