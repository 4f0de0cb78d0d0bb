package admission

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/go-logr/logr"
	admissionv1 "k8s.io/api/admission/v1"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
)

// Regression: an unknown field inside an object the Go types omit whole
// survives the mutating webhook. With "spec": {"x": 1} and no parentRef, the
// undefaulted object marshals without spec, so controller-runtime's own
// filter (dropSchemeRemovals) knows the removal of /spec, not that of
// /spec/x, and lets the patch remove x (a Pod's spec.containers went the
// same way). Defaults only add, so keepUnknownFields drops every removal.
func TestMutateNeverRemovesAFieldInAnOmittedObject(t *testing.T) {
	logf.SetLogger(logr.Discard())
	for _, spec := range []string{
		`{"x":1}`,
		`{"x":{"y":[1]},"listeners":[{"name":"web","protocol":"HTTP","port":80,"hostname":"","z":1}]}`,
	} {
		obj := `{"apiVersion":"gateway.networking.k8s.io/v1","kind":"ListenerSet","metadata":{"name":"a","namespace":"n"},"spec":` + spec + `}`
		body := `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u-1",` +
			`"kind":{"group":"gateway.networking.k8s.io","version":"v1","kind":"ListenerSet"},` +
			`"resource":{"group":"gateway.networking.k8s.io","version":"v1","resource":"listenersets"},` +
			`"namespace":"n","name":"a","operation":"CREATE","userInfo":{"username":"me"},"object":` + obj + `}}`
		req := httptest.NewRequest(http.MethodPost, MutatePath, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		reviewGuard{NewMutatingWebhook()}.ServeHTTP(rec, req)
		var review admissionv1.AdmissionReview
		if err := json.Unmarshal(rec.Body.Bytes(), &review); err != nil || review.Response == nil || !review.Response.Allowed {
			t.Fatalf("spec %s: %s", spec, rec.Body.String())
		}
		var ops []struct{ Op, Path string }
		if err := json.Unmarshal(review.Response.Patch, &ops); err != nil {
			t.Fatal(err)
		}
		if len(ops) == 0 {
			t.Errorf("spec %s: no patch, want the parentRef defaults", spec)
		}
		for _, o := range ops {
			if o.Op == "remove" {
				t.Errorf("spec %s: the patch removes %s", spec, o.Path)
			}
		}
	}
}
