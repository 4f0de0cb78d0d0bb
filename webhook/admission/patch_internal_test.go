package admission

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/airlock/listenerset-webhook/validation"

	"github.com/go-logr/logr"
	admissionv1 "k8s.io/api/admission/v1"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	cradmission "sigs.k8s.io/controller-runtime/pkg/webhook/admission"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/defaults"
	"github.com/airlock/listenerset-webhook/test/load/fixtures"
	"github.com/airlock/listenerset-webhook/validation/validationtest"
	"github.com/airlock/listenerset-webhook/webhook/internal/reviewtest"
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
		reviewGuard{next: NewMutatingWebhook()}.ServeHTTP(rec, req)
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

// listenerSetDefaulter, in controller-runtime's WithDefaulter with every
// removal dropped from its patch (withoutRemovals), is the mutating webhook
// as it was before the defaulting handler: the reference the handler must
// answer as.
type listenerSetDefaulter struct{}

func (listenerSetDefaulter) Default(_ context.Context, ls *gwv1.ListenerSet) error {
	defaults.ListenerSet(ls)
	return nil
}

// TestDefaultingAnswersAsWithDefaulter: the mutating webhook answers every
// review as controller-runtime's WithDefaulter around defaults.ListenerSet
// did, with its removals dropped (up to the order of a patch's operations):
// a DELETE, an object that does not decode, one with nothing to default,
// one with everything to default, unknown fields, and each worst shape.
func TestDefaultingAnswersAsWithDefaulter(t *testing.T) {
	logf.SetLogger(logr.Discard())
	reference := cradmission.WithDefaulter[*gwv1.ListenerSet](admissionScheme, listenerSetDefaulter{})
	reference.Handler = withoutRemovals(reference.Handler)
	defaulted := `{"apiVersion":"gateway.networking.k8s.io/v1","kind":"ListenerSet","metadata":{"name":"a","namespace":"n"},` +
		`"spec":{"parentRef":{"group":"gateway.networking.k8s.io","kind":"Gateway","name":"gw"},` +
		`"listeners":[{"name":"web","protocol":"HTTP","port":80,"allowedRoutes":{"namespaces":{"from":"Same"}}}]}}`
	undefaulted := `{"apiVersion":"gateway.networking.k8s.io/v1","kind":"ListenerSet","metadata":{"name":"a","namespace":"n"},` +
		`"spec":{"parentRef":{"name":"gw"},"listeners":[{"name":"web","protocol":"HTTPS","port":443,"x":1,` +
		`"tls":{"certificateRefs":[{"name":"c"},{"name":"d","kind":"Secret"}]},"allowedRoutes":{"kinds":[{"kind":"HTTPRoute"}]}}]}}`
	bodies := map[string]string{
		"nothing to default":  guardReview("admission.k8s.io/v1", "u-1", "CREATE", defaulted, ""),
		"everything unset":    guardReview("admission.k8s.io/v1", "u-1", "CREATE", guardObj, ""),
		"refs and kinds":      guardReview("admission.k8s.io/v1", "u-1", "UPDATE", undefaulted, defaulted),
		"unknown fields":      guardReview("admission.k8s.io/v1", "u-1", "CREATE", `{"spec":{"x":{"y":[1]}}}`, ""),
		"delete":              guardReview("admission.k8s.io/v1", "u-1", "DELETE", "", guardObj),
		"object not decoded":  guardReview("admission.k8s.io/v1", "u-1", "CREATE", `{"spec":{"listeners":"x"}}`, ""),
		"no object":           guardReview("admission.k8s.io/v1", "u-1", "CREATE", "", ""),
		"v1beta1, everything": guardReview("admission.k8s.io/v1beta1", "u-1", "CREATE", guardObj, ""),
	}
	for _, s := range validationtest.WorstShapes {
		bodies["worst "+s.Name] = string(reviewtest.Worst(s))
		// Undefaulted, as kube-apiserver never sends it: the largest patches.
		bodies["worst undefaulted "+s.Name] = string(fixtures.Review("1", admissionv1.Create, s.Build(validation.MaxListeners), nil))
	}
	for name, body := range bodies {
		answer := func(h http.Handler) (int, string) {
			req := httptest.NewRequest(http.MethodPost, MutatePath, strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			return rec.Code, rec.Body.String()
		}
		wantCode, want := answer(reference)
		gotCode, got := answer(NewMutatingWebhook())
		if gotCode != wantCode || normalized(t, got) != normalized(t, want) {
			t.Errorf("%s: got %d %.2000s\nwant %d %.2000s", name, gotCode, got, wantCode, want)
		}
	}
}

func withoutRemovals(next cradmission.Handler) cradmission.Handler {
	return cradmission.HandlerFunc(func(ctx context.Context, req cradmission.Request) cradmission.Response {
		r := next.Handle(ctx, req)
		if !r.Allowed || r.PatchType == nil {
			return r
		}
		r.Patches = defaults.WithoutRemovals(r.Patches)
		if len(r.Patches) == 0 {
			r.PatchType = nil
		}
		return r
	})
}
