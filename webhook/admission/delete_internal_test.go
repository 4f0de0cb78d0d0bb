package admission

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/airlock/listenerset-webhook/validation"

	"github.com/go-logr/logr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// TestDeletionWebhookAlwaysAllows: the deletion webhook, behind the guard
// as RegisterWith serves it, answers every review allowed: with the
// warning of the routes guardObj's listener web has, and without warnings
// when there is nothing to judge (no oldObject, one that does not decode,
// not a DELETE, no view of routes). The guard hands the DELETE on only to
// it: the validating webhook still allows a DELETE without looking.
func TestDeletionWebhookAlwaysAllows(t *testing.T) {
	logf.SetLogger(logr.Discard())
	route := &gwv1.HTTPRoute{ObjectMeta: metav1.ObjectMeta{Namespace: "n", Name: "shop"}}
	route.Spec.ParentRefs = []gwv1.ParentReference{{Kind: ptr.To[gwv1.Kind]("ListenerSet"), Name: "a", SectionName: ptr.To[gwv1.SectionName]("web")}}
	view := &validation.Objects{Routes: []*gwv1.HTTPRoute{route}}
	v := Validator{Cluster: view, Routes: view}
	const warning = `spec.listeners[0]: 1 HTTPRoute attaches to listener "web" (n/shop); it would no longer attach`
	for _, tc := range []struct {
		name, path, body string
		validator        Validator
		warnings         []string
	}{
		{"routes detached", DeletePath, guardReview("admission.k8s.io/v1", "u", "DELETE", "", guardObj), v, []string{warning}},
		{"no view", DeletePath, guardReview("admission.k8s.io/v1", "u", "DELETE", "", guardObj), Validator{}, nil},
		{"no oldObject", DeletePath, guardReview("admission.k8s.io/v1", "u", "DELETE", "", ""), v, nil},
		{"oldObject does not decode", DeletePath, guardReview("admission.k8s.io/v1", "u", "DELETE", "", `{"spec":{"listeners":"x"}}`), v, nil},
		{"oldObject not a ListenerSet", DeletePath, guardReview("admission.k8s.io/v1", "u", "DELETE", "", `{"apiVersion":"v1","kind":"Pod"}`), v, nil},
		{"judging panics", DeletePath, guardReview("admission.k8s.io/v1", "u", "DELETE", "", guardObj), Validator{Cluster: view, Routes: panicking{view}}, nil},
		{"not a DELETE", DeletePath, guardReview("admission.k8s.io/v1", "u", "UPDATE", guardObj, guardObj), v, nil},
		{"DELETE at the validating webhook", ValidatePath, guardReview("admission.k8s.io/v1", "u", "DELETE", "", guardObj), v, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			handlers := map[string]http.Handler{
				DeletePath:   reviewGuard{next: NewDeletionWebhook(tc.validator), deletions: true},
				ValidatePath: reviewGuard{next: NewValidatingWebhookFor(tc.validator)},
			}
			req := httptest.NewRequest(http.MethodPost, tc.path, strings.NewReader(tc.body))
			req.Header.Set("Content-Type", "application/json")
			rec := httptest.NewRecorder()
			handlers[tc.path].ServeHTTP(rec, req)
			require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
			var review admissionv1.AdmissionReview
			require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &review))
			require.NotNil(t, review.Response)
			assert.True(t, review.Response.Allowed, rec.Body.String())
			assert.Equal(t, tc.warnings, review.Response.Warnings)
		})
	}
}

// panicking is a view whose routes read panics.
type panicking struct{ *validation.Objects }

func (panicking) RoutesOf(string, string) ([]*gwv1.HTTPRoute, bool) { panic("a bug") }
