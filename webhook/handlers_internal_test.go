package webhook

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/go-logr/logr"
	admissionv1 "k8s.io/api/admission/v1"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
)

// TestOneParseAnswersAsControllerRuntime: oneParse's answers are byte for
// byte those of controller-runtime's own ServeHTTP, for well-formed reviews
// and for everything it hands over.
func TestOneParseAnswersAsControllerRuntime(t *testing.T) {
	logf.SetLogger(logr.Discard())
	obj := `{"apiVersion":"gateway.networking.k8s.io/v1","kind":"ListenerSet","metadata":{"name":"a","namespace":"n"},` +
		`"spec":{"parentRef":{"name":"gw"},"listeners":[{"name":"web","protocol":"HTTP","port":80}]}}`
	bad := strings.Replace(obj, `"HTTP"`, `"TCP"`, 1)
	review := func(version, op, object, old string) string {
		r := `{"apiVersion":"admission.k8s.io/` + version + `","kind":"AdmissionReview","request":{"uid":"u-1",` +
			`"kind":{"group":"gateway.networking.k8s.io","version":"v1","kind":"ListenerSet"},` +
			`"resource":{"group":"gateway.networking.k8s.io","version":"v1","resource":"listenersets"},` +
			`"namespace":"n","name":"a","operation":"` + op + `","userInfo":{"username":"me"}`
		if object != "" {
			r += `,"object":` + object
		}
		if old != "" {
			r += `,"oldObject":` + old
		}
		return r + `}}`
	}
	bodies := map[string]string{
		"valid create":       review("v1", "CREATE", obj, ""),
		"invalid create":     review("v1", "CREATE", bad, ""),
		"update":             review("v1", "UPDATE", bad, bad),
		"delete":             review("v1", "DELETE", "", obj),
		"v1beta1":            review("v1beta1", "CREATE", obj, ""),
		"no request":         `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview"}`,
		"not JSON":           `{"apiVersion":`,
		"object not decoded": review("v1", "CREATE", `{"spec":{"listeners":"x"}}`, ""),
		"empty":              "",
	}
	for _, path := range []string{MutatePath, ValidatePath} {
		plain := map[string]*admission.Webhook{MutatePath: NewMutatingWebhook(), ValidatePath: NewValidatingWebhook()}[path]
		for name, body := range bodies {
			for _, contentType := range []string{"application/json", "text/plain"} {
				answer := func(h http.Handler) (int, string) {
					req := httptest.NewRequest(http.MethodPost, path, bytes.NewReader([]byte(body)))
					if body == "" {
						req.Body = http.NoBody
					}
					req.Header.Set("Content-Type", contentType)
					rec := httptest.NewRecorder()
					h.ServeHTTP(rec, req)
					return rec.Code, rec.Body.String()
				}
				wantCode, want := answer(plain)
				for _, typed := range []bool{false, path == ValidatePath} { // the mutating handler needs the raw object
					gotCode, got := answer(oneParse{plain, typed})
					if gotCode != wantCode || normalized(t, got) != normalized(t, want) {
						t.Errorf("%s %s (%s, typed objects %v): got %d %s\nwant %d %s", path, name, contentType, typed, gotCode, got, wantCode, want)
					}
				}
			}
		}
	}
}

// normalized sorts the operations of a JSON patch in an answer: the
// patch's order follows map iteration and changes from call to call.
func normalized(t *testing.T, answer string) string {
	var review admissionv1.AdmissionReview
	if err := json.Unmarshal([]byte(answer), &review); err != nil || review.Response == nil || review.Response.Patch == nil {
		return answer
	}
	var ops []map[string]any
	if err := json.Unmarshal(review.Response.Patch, &ops); err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(ops, func(a, b map[string]any) int { return strings.Compare(fmt.Sprint(a), fmt.Sprint(b)) })
	review.Response.Patch, _ = json.Marshal(ops)
	b, _ := json.Marshal(review)
	return string(b)
}
