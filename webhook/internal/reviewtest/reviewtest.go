// Package reviewtest holds what the webhook's tests send: ListenerSet
// manifests and AdmissionReviews as kube-apiserver builds them, and a client
// that posts one and reads the answer. It is imported by tests only.
package reviewtest

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/airlock/listenerset-webhook/validation"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
	"sigs.k8s.io/yaml"

	"github.com/airlock/listenerset-webhook/test/load/fixtures"
	"github.com/airlock/listenerset-webhook/validation/validationtest"
)

// Minimal is valid and leaves every defaulted field unset.
const Minimal = `
apiVersion: gateway.networking.k8s.io/v1
kind: ListenerSet
metadata:
  name: minimal
  namespace: team-a
spec:
  parentRef:
    name: gw
  listeners:
  - name: web
    protocol: HTTP
    port: 8080
  - name: web-tls
    protocol: HTTPS
    port: 8443
    tls:
      certificateRefs:
      - name: web-tls-cert
`

// Defaulted is Minimal as kube-apiserver stores it with the v1.6 CRD.
const Defaulted = `
apiVersion: gateway.networking.k8s.io/v1
kind: ListenerSet
metadata:
  name: minimal
  namespace: team-a
spec:
  parentRef:
    group: gateway.networking.k8s.io
    kind: Gateway
    name: gw
  listeners:
  - name: web
    protocol: HTTP
    port: 8080
    allowedRoutes:
      namespaces:
        from: Same
  - name: web-tls
    protocol: HTTPS
    port: 8443
    allowedRoutes:
      namespaces:
        from: Same
    tls:
      mode: Terminate
      certificateRefs:
      - group: ""
        kind: Secret
        name: web-tls-cert
`

// Invalid has a duplicate listener name and an unsupported protocol.
const Invalid = `
apiVersion: gateway.networking.k8s.io/v1
kind: ListenerSet
metadata:
  name: invalid
  namespace: team-a
spec:
  parentRef:
    name: gw
  listeners:
  - name: web
    protocol: HTTP
    port: 8080
  - name: web
    protocol: HTTP
    port: 8081
  - name: raw
    protocol: TCP
    port: 5432
`

// WithForeignOption is valid but uses another implementation's TLS option.
const WithForeignOption = `
apiVersion: gateway.networking.k8s.io/v1
kind: ListenerSet
metadata:
  name: foreign
  namespace: team-a
spec:
  parentRef:
    name: gw
  listeners:
  - name: web-tls
    protocol: HTTPS
    port: 8443
    tls:
      certificateRefs:
      - name: web-tls-cert
      options:
        example.com/x: "on"
`

// ToJSON converts a YAML manifest to JSON; "" gives nil (no object).
func ToJSON(t testing.TB, y string) []byte {
	t.Helper()
	if y == "" {
		return nil
	}
	j, err := yaml.YAMLToJSON([]byte(y))
	require.NoError(t, err)
	return j
}

// Request builds an admission.k8s.io/v1 AdmissionReview as kube-apiserver
// sends it.
func Request(t testing.TB, op admissionv1.Operation, obj, old []byte) []byte {
	t.Helper()
	review := admissionv1.AdmissionReview{
		TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"},
		Request: &admissionv1.AdmissionRequest{
			UID:       types.UID("uid-" + strings.ToLower(string(op))),
			Kind:      metav1.GroupVersionKind{Group: gwv1.GroupName, Version: "v1", Kind: "ListenerSet"},
			Resource:  metav1.GroupVersionResource{Group: gwv1.GroupName, Version: "v1", Resource: "listenersets"},
			Namespace: "team-a",
			Operation: op,
			Object:    runtime.RawExtension{Raw: obj},
			OldObject: runtime.RawExtension{Raw: old},
		},
	}
	b, err := json.Marshal(review)
	require.NoError(t, err)
	return b
}

// Post sends an AdmissionReview to path and returns the response part.
func Post(t testing.TB, client *http.Client, url string, body []byte) *admissionv1.AdmissionResponse {
	t.Helper()
	resp, err := client.Post(url, "application/json", bytes.NewReader(body))
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode, "admission answers always travel in a 200")
	var review admissionv1.AdmissionReview
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&review))
	require.NotNil(t, review.Response)
	if review.Response.UID != "" { // answers to decoded requests echo the envelope
		assert.Equal(t, "admission.k8s.io/v1", review.APIVersion)
		assert.Equal(t, "AdmissionReview", review.Kind)
	}
	return review.Response
}

// denialsMetric is admission.DenialsMetric; importing it would make a cycle
// for admission's own tests.
const denialsMetric = "listenerset_webhook_denials_total"

// Denials reads the listenerset_webhook_denials_total series of a
// /metrics page, keyed "field reason".
func Denials(t testing.TB, r io.Reader) map[string]float64 {
	t.Helper()
	return ByRule(t, r, denialsMetric)
}

// ByRule reads the series of metric, a counter labelled by field and
// reason (admission.DenialsMetric) and maybe further labels
// (admission.WouldDenyMetric's source), of a /metrics page, keyed by the
// label values in the page's order (client_golang sorts them by name):
// "field reason", "field reason source".
func ByRule(t testing.TB, r io.Reader, metric string) map[string]float64 {
	t.Helper()
	body, err := io.ReadAll(r)
	require.NoError(t, err)
	out := map[string]float64{}
	for _, l := range strings.Split(string(body), "\n") {
		if !strings.HasPrefix(l, metric+"{") {
			continue
		}
		labels, value, _ := strings.Cut(strings.TrimPrefix(l, metric+"{"), "} ")
		var key []string
		for _, kv := range strings.Split(labels, `",`) {
			_, v, _ := strings.Cut(kv, `="`)
			key = append(key, strings.TrimSuffix(v, `"`))
		}
		var f float64
		require.NoError(t, json.Unmarshal([]byte(value), &f))
		out[strings.Join(key, " ")] = f
	}
	return out
}

// Worst is the AdmissionReview kube-apiserver sends for the worst shape s
// at validation.MaxListeners, its objects defaulted by the CRD: a create,
// or an update of its stored object.
func Worst(s validationtest.Shape) []byte {
	ls := fixtures.Defaulted(s.Build(validation.MaxListeners))
	if s.Update == nil {
		return fixtures.Review("1", admissionv1.Create, ls, nil)
	}
	return fixtures.Review("1", admissionv1.Update, ls, fixtures.Defaulted(s.Update(validation.MaxListeners)))
}
