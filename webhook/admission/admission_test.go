package admission_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/airlock/listenerset-webhook/validation"

	jsonpatch "github.com/evanphx/json-patch/v5"
	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	ctrlwebhook "sigs.k8s.io/controller-runtime/pkg/webhook"
	cradmission "sigs.k8s.io/controller-runtime/pkg/webhook/admission"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
	"sigs.k8s.io/yaml"

	"github.com/airlock/listenerset-webhook/findings"
	"github.com/airlock/listenerset-webhook/test/load/fixtures"
	"github.com/airlock/listenerset-webhook/validation/validationtest"
	"github.com/airlock/listenerset-webhook/webhook/admission"
	"github.com/airlock/listenerset-webhook/webhook/internal/reviewtest"
	"github.com/airlock/listenerset-webhook/webhook/serving"
)

func TestMain(m *testing.M) {
	// controller-runtime's internals log through its global logger; tests
	// that care about logs use their own logger (TestDenialIsLogged).
	logf.SetLogger(logr.Discard())
	os.Exit(m.Run())
}

// handlers serves the webhooks exactly as Run registers them (including
// controller-runtime's metrics instrumentation), without TLS.
func handlers(t *testing.T) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	admission.Register(ctrlwebhook.NewServer(ctrlwebhook.Options{WebhookMux: mux}))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func mutate(t *testing.T, srv *httptest.Server, obj []byte) *admissionv1.AdmissionResponse {
	t.Helper()
	resp := reviewtest.Post(t, srv.Client(), srv.URL+admission.MutatePath, reviewtest.Request(t, admissionv1.Create, obj, nil))
	require.True(t, resp.Allowed, "defaulting never denies: %+v", resp.Result)
	return resp
}

// applyPatch applies a response's JSON patch to obj (no patch: obj unchanged).
func applyPatch(t *testing.T, obj []byte, resp *admissionv1.AdmissionResponse) []byte {
	t.Helper()
	if len(resp.Patch) == 0 {
		assert.Nil(t, resp.PatchType)
		return obj
	}
	require.Equal(t, admissionv1.PatchTypeJSONPatch, *resp.PatchType)
	patch, err := jsonpatch.DecodePatch(resp.Patch)
	require.NoError(t, err)
	out, err := patch.Apply(obj)
	require.NoError(t, err)
	return out
}

type op struct {
	Op    string `json:"op"`
	Path  string `json:"path"`
	Value any    `json:"value"`
}

func patchOps(t *testing.T, resp *admissionv1.AdmissionResponse) []op {
	t.Helper()
	var ops []op
	if len(resp.Patch) > 0 {
		require.NoError(t, json.Unmarshal(resp.Patch, &ops))
	}
	slices.SortFunc(ops, func(a, b op) int { return strings.Compare(a.Path, b.Path) })
	return ops
}

func TestMutateCreateAddsDefaults(t *testing.T) {
	srv := handlers(t)
	obj := reviewtest.ToJSON(t, reviewtest.Minimal)

	resp := mutate(t, srv, obj)

	assert.Equal(t, types.UID("uid-create"), resp.UID, "the response answers the request")
	assert.Equal(t, []op{
		{"add", "/spec/listeners/0/allowedRoutes", map[string]any{"namespaces": map[string]any{"from": "Same"}}},
		{"add", "/spec/listeners/1/allowedRoutes", map[string]any{"namespaces": map[string]any{"from": "Same"}}},
		{"add", "/spec/listeners/1/tls/certificateRefs/0/group", ""},
		{"add", "/spec/listeners/1/tls/certificateRefs/0/kind", "Secret"},
		{"add", "/spec/listeners/1/tls/mode", "Terminate"},
		{"add", "/spec/parentRef/group", "gateway.networking.k8s.io"},
		{"add", "/spec/parentRef/kind", "Gateway"},
	}, patchOps(t, resp), "only additions, each a defaulted field")
	assert.JSONEq(t, string(reviewtest.ToJSON(t, reviewtest.Defaulted)), string(applyPatch(t, obj, resp)))
}

func TestMutateIsIdempotent(t *testing.T) {
	srv := handlers(t)
	once := applyPatch(t, reviewtest.ToJSON(t, reviewtest.Minimal), mutate(t, srv, reviewtest.ToJSON(t, reviewtest.Minimal)))

	resp := mutate(t, srv, once)

	assert.Empty(t, resp.Patch, "a defaulted object needs no patch")
	assert.Nil(t, resp.PatchType)
}

func TestMutateNeverRemovesUnknownFields(t *testing.T) {
	// Fields of a newer CRD (or anything the Go types lack) must survive the
	// patch: the mutating webhook drops every "remove" operation that the Go
	// round trip produces.
	srv := handlers(t)
	withUnknown := strings.Replace(reviewtest.Minimal, "  listeners:\n  - name: web\n",
		"  futureSpecField: {a: 1}\n  listeners:\n  - name: web\n    futureListenerField: kept\n", 1)
	withUnknown = strings.Replace(withUnknown, "      - name: web-tls-cert\n",
		"      - name: web-tls-cert\n        futureRefField: [1, 2]\n", 1)
	obj := reviewtest.ToJSON(t, withUnknown)

	resp := mutate(t, srv, obj)

	for _, o := range patchOps(t, resp) {
		assert.Equal(t, "add", o.Op, "unexpected %s of %s", o.Op, o.Path)
	}
	var got map[string]any
	require.NoError(t, json.Unmarshal(applyPatch(t, obj, resp), &got))
	spec := got["spec"].(map[string]any)
	assert.Equal(t, map[string]any{"a": float64(1)}, spec["futureSpecField"])
	listeners := spec["listeners"].([]any)
	assert.Equal(t, "kept", listeners[0].(map[string]any)["futureListenerField"])
	ref := listeners[1].(map[string]any)["tls"].(map[string]any)["certificateRefs"].([]any)[0].(map[string]any)
	assert.Equal(t, []any{float64(1), float64(2)}, ref["futureRefField"])
	assert.Equal(t, "Secret", ref["kind"], "and defaults are still added next to them")

	again := mutate(t, srv, applyPatch(t, obj, resp))
	assert.Empty(t, again.Patch, "second pass over an object with unknown fields: no patch")
}

func TestMutateDeleteIsAllowedWithoutPatch(t *testing.T) {
	srv := handlers(t)
	resp := reviewtest.Post(t, srv.Client(), srv.URL+admission.MutatePath, reviewtest.Request(t, admissionv1.Delete, nil, reviewtest.ToJSON(t, reviewtest.Minimal)))
	assert.True(t, resp.Allowed)
	assert.Empty(t, resp.Patch)
}

func validate(t *testing.T, srv *httptest.Server, op admissionv1.Operation, obj, old string) *admissionv1.AdmissionResponse {
	t.Helper()
	return reviewtest.Post(t, srv.Client(), srv.URL+admission.ValidatePath, reviewtest.Request(t, op, reviewtest.ToJSON(t, obj), reviewtest.ToJSON(t, old)))
}

func TestValidateCreateValid(t *testing.T) {
	srv := handlers(t)
	for name, obj := range map[string]string{"as sent (not yet defaulted)": reviewtest.Minimal, "defaulted": reviewtest.Defaulted} {
		t.Run(name, func(t *testing.T) {
			resp := validate(t, srv, admissionv1.Create, obj, "")
			assert.True(t, resp.Allowed, "%+v", resp.Result)
			assert.Equal(t, int32(http.StatusOK), resp.Result.Code)
			assert.Empty(t, resp.Warnings)
			assert.Empty(t, resp.Patch, "a validating webhook never patches")
			assert.Empty(t, resp.AuditAnnotations, "no codes without errors")
		})
	}
}

func TestValidateCreateInvalid(t *testing.T) {
	srv := handlers(t)
	before := denials(t)

	resp := validate(t, srv, admissionv1.Create, reviewtest.Invalid, "")

	assert.False(t, resp.Allowed)
	require.NotNil(t, resp.Result)
	assert.Equal(t, int32(http.StatusUnprocessableEntity), resp.Result.Code)
	assert.Equal(t, metav1.StatusReasonInvalid, resp.Result.Reason)
	assert.Equal(t, metav1.StatusFailure, resp.Result.Status)
	assert.True(t, strings.HasPrefix(resp.Result.Message, `ListenerSet.gateway.networking.k8s.io "invalid" is invalid: `), resp.Result.Message)
	require.NotNil(t, resp.Result.Details)
	assert.Equal(t, "ListenerSet", resp.Result.Details.Kind)
	assert.Equal(t, gwv1.GroupName, resp.Result.Details.Group)
	assert.Equal(t, "invalid", resp.Result.Details.Name)
	assert.Contains(t, resp.Result.Details.Causes, metav1.StatusCause{
		Type: metav1.CauseTypeFieldValueDuplicate, Field: "spec.listeners[1].name", Message: `Duplicate value: "web"`,
	})
	assert.True(t, slices.ContainsFunc(resp.Result.Details.Causes, func(c metav1.StatusCause) bool {
		return c.Field == "spec.listeners[2].protocol" && c.Type == metav1.CauseTypeFieldValueNotSupported &&
			strings.HasPrefix(c.Message, `Unsupported value: "TCP"`)
	}), "protocol cause in %+v", resp.Result.Details.Causes)

	after := denials(t)
	assert.Equal(t, 1.0, after[`spec.listeners[*].name FieldValueDuplicate`]-before[`spec.listeners[*].name FieldValueDuplicate`])
	assert.Equal(t, 1.0, after[`spec.listeners[*].protocol FieldValueNotSupported`]-before[`spec.listeners[*].protocol FieldValueNotSupported`])

	// The audit event gets the denial's codes (docs/codes.md), one each.
	assert.Equal(t, map[string]string{admission.AuditCodesKey: string(validation.CodeDuplicateListenerName) + "," + string(validation.CodeProtocol)},
		resp.AuditAnnotations)
}

// TestAuditCodesAreBounded: the annotation names each code once, whatever
// the number of errors (a report's summary among them): the worst object's
// value stays a handful of codes.
func TestAuditCodesAreBounded(t *testing.T) {
	srv := handlers(t)
	resp := reviewtest.Post(t, srv.Client(), srv.URL+admission.ValidatePath, reviewtest.Worst(validationtest.WorstShapes[0]))
	require.False(t, resp.Allowed)
	codes := strings.Split(resp.AuditAnnotations[admission.AuditCodesKey], ",")
	assert.Contains(t, codes, string(findings.CodeMoreErrors), "the summary says more were not shown")
	assert.True(t, slices.IsSorted(codes), codes)
	assert.Len(t, slices.Compact(slices.Clone(codes)), len(codes), "each code once")
	assert.Less(t, len(resp.AuditAnnotations[admission.AuditCodesKey]), 100)
	t.Logf("%d codes for %d errors shown: %s", len(codes), len(resp.Result.Details.Causes), resp.AuditAnnotations[admission.AuditCodesKey])
}

// With EnforcementWarn an invalid object is admitted: each error a warning
// whose message begins "would be denied", first, and counted in
// WouldDenyMetric instead of DenialsMetric.
func TestValidateEnforcementWarn(t *testing.T) {
	mux := http.NewServeMux()
	admission.RegisterWith(ctrlwebhook.NewServer(ctrlwebhook.Options{WebhookMux: mux}), admission.Validator{Enforcement: admission.EnforcementWarn})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	beforeDenials, before := denials(t), metric(t, admission.WouldDenyMetric)

	resp := validate(t, srv, admissionv1.Create, reviewtest.Invalid, "")

	assert.True(t, resp.Allowed, "%+v", resp.Result)
	assert.Equal(t, int32(http.StatusOK), resp.Result.Code)
	require.NotEmpty(t, resp.Warnings)
	assert.Contains(t, resp.Warnings, `spec.listeners[1].name: would be denied (enforcement warn): Duplicate value: "web"`)
	for _, w := range resp.Warnings {
		_, message, _ := strings.Cut(w, ": ")
		assert.True(t, strings.HasPrefix(message, "would be denied (enforcement warn): "), w)
	}
	after := metric(t, admission.WouldDenyMetric)
	assert.Equal(t, 1.0, after[`spec.listeners[*].name FieldValueDuplicate flag`]-before[`spec.listeners[*].name FieldValueDuplicate flag`])
	assert.Equal(t, 1.0, after[`spec.listeners[*].protocol FieldValueNotSupported flag`]-before[`spec.listeners[*].protocol FieldValueNotSupported flag`])
	assert.Equal(t, beforeDenials, denials(t), "nothing was denied")
	assert.Equal(t, map[string]string{admission.AuditWouldDenyCodesKey: string(validation.CodeDuplicateListenerName) + "," + string(validation.CodeProtocol)},
		resp.AuditAnnotations)

	valid := validate(t, srv, admissionv1.Create, reviewtest.Minimal, "")
	assert.True(t, valid.Allowed)
	assert.Empty(t, valid.Warnings, "a valid object gets no warning")
}

// TestValidateWarnTwin: a server that denies (the default enforcement)
// answers at ValidateWarnPath, the warn twin a namespace's enforcement label
// selects, with the same findings as its denial, each a "would be denied"
// warning, and admits; counted in WouldDenyMetric with source namespace,
// not as a denial and not as the flag's warn.
func TestValidateWarnTwin(t *testing.T) {
	srv := handlers(t)
	denied := validate(t, srv, admissionv1.Create, reviewtest.Invalid, "")
	require.False(t, denied.Allowed)
	beforeDenials, before := denials(t), metric(t, admission.WouldDenyMetric)

	req := reviewtest.Request(t, admissionv1.Create, reviewtest.ToJSON(t, reviewtest.Invalid), nil)
	resp := reviewtest.Post(t, srv.Client(), srv.URL+admission.ValidateWarnPath, req)

	assert.True(t, resp.Allowed, "%+v", resp.Result)
	var want []string
	for _, c := range denied.Result.Details.Causes {
		want = append(want, c.Field+": would be denied (enforcement warn): "+c.Message)
	}
	require.NotEmpty(t, want)
	assert.Equal(t, want, resp.Warnings, "the denial's findings, each a warning")
	after := metric(t, admission.WouldDenyMetric)
	for _, rule := range []string{"spec.listeners[*].name FieldValueDuplicate", "spec.listeners[*].protocol FieldValueNotSupported"} {
		assert.Equal(t, 1.0, after[rule+" namespace"]-before[rule+" namespace"], rule)
		assert.Equal(t, before[rule+" flag"], after[rule+" flag"], "not the flag's: %s", rule)
	}
	assert.Equal(t, beforeDenials, denials(t), "nothing was denied")
	assert.Equal(t, map[string]string{admission.AuditWouldDenyCodesKey: string(validation.CodeDuplicateListenerName) + "," + string(validation.CodeProtocol)},
		resp.AuditAnnotations)
}

// TestRegistrationsAreServed: every path of Registrations (the chart's
// files/webhooks.yaml), the warn twins' too, has a handler: none answers
// 404, which kube-apiserver would take for a failed call.
func TestRegistrationsAreServed(t *testing.T) {
	srv := handlers(t)
	reg := admission.Registrations()
	paths := []string{reg.Mutating.Path, reg.Validating.Path, reg.Validating.Warn.Path, reg.Deleting.Path,
		reg.Routes.Path, reg.Routes.Warn.Path}
	assert.Nil(t, reg.Mutating.Warn, "the mutating webhook denies nothing: no twin")
	for _, p := range paths {
		resp, err := srv.Client().Post(srv.URL+p, "application/json", strings.NewReader("{}"))
		require.NoError(t, err)
		resp.Body.Close()
		assert.NotEqual(t, http.StatusNotFound, resp.StatusCode, p)
	}
	assert.Len(t, slices.Compact(slices.Sorted(slices.Values(paths))), len(paths), "each its own path")
}

func TestValidateCreateWarnings(t *testing.T) {
	srv := handlers(t)
	resp := validate(t, srv, admissionv1.Create, reviewtest.WithForeignOption, "")
	assert.True(t, resp.Allowed, "%+v", resp.Result)
	require.Len(t, resp.Warnings, 1)
	assert.True(t, strings.HasPrefix(resp.Warnings[0], "spec.listeners[0].tls.options[example.com/x]: "), resp.Warnings[0])
}

func TestValidateUpdateRatchets(t *testing.T) {
	srv := handlers(t)
	// The stored object already has the unsupported protocol (e.g. from
	// before the webhook was installed); the update changes another listener.
	stored := strings.Replace(reviewtest.Minimal, "    port: 8080\n", "    port: 8080\n  - name: raw\n    protocol: TCP\n    port: 5432\n", 1)
	edited := strings.Replace(stored, "port: 8443", "port: 9443", 1)

	t.Run("unchanged invalid value is allowed with a warning", func(t *testing.T) {
		resp := validate(t, srv, admissionv1.Update, edited, stored)
		assert.True(t, resp.Allowed, "%+v", resp.Result)
		require.Len(t, resp.Warnings, 1)
		assert.True(t, strings.HasPrefix(resp.Warnings[0], `spec.listeners[1].protocol: Unsupported value: "TCP"`), resp.Warnings[0])
		assert.Contains(t, resp.Warnings[0], "already stored")
	})
	t.Run("a new invalid value is denied", func(t *testing.T) {
		worse := strings.Replace(edited, "protocol: HTTPS", "protocol: UDP", 1)
		resp := validate(t, srv, admissionv1.Update, worse, stored)
		assert.False(t, resp.Allowed)
		assert.Equal(t, int32(http.StatusUnprocessableEntity), resp.Result.Code)
		require.Len(t, resp.Result.Details.Causes, 1)
		assert.Equal(t, "spec.listeners[2].protocol", resp.Result.Details.Causes[0].Field)
		assert.NotEmpty(t, resp.Warnings, "the ratcheted error still warns")
	})
	t.Run("valid update", func(t *testing.T) {
		resp := validate(t, srv, admissionv1.Update, strings.Replace(reviewtest.Minimal, "8443", "9443", 1), reviewtest.Minimal)
		assert.True(t, resp.Allowed, "%+v", resp.Result)
		assert.Empty(t, resp.Warnings)
	})
}

// DELETE is not registered; should a configuration send it, every
// deletion is allowed: with the object being deleted as oldObject (as
// kube-apiserver sends it since 1.15, kubernetes#76346), and without one,
// which controller-runtime alone answered 400 as for any request missing
// its object (the guard now allows every DELETE before anything is decoded:
// no review may block a deletion).
func TestValidateDeleteAlwaysAllowed(t *testing.T) {
	srv := handlers(t)
	for name, old := range map[string]string{"invalid object": reviewtest.Invalid, "valid object": reviewtest.Minimal} {
		t.Run(name, func(t *testing.T) {
			resp := validate(t, srv, admissionv1.Delete, "", old)
			assert.True(t, resp.Allowed, "%+v", resp.Result)
		})
	}
	t.Run("no oldObject", func(t *testing.T) {
		resp := validate(t, srv, admissionv1.Delete, "", "")
		assert.True(t, resp.Allowed, "%+v", resp.Result)
		assert.Equal(t, int32(http.StatusOK), resp.Result.Code)
	})
}

func TestValidateUndecodableObjectIsBadRequest(t *testing.T) {
	srv := handlers(t)
	resp := reviewtest.Post(t, srv.Client(), srv.URL+admission.ValidatePath,
		reviewtest.Request(t, admissionv1.Create, []byte(`{"apiVersion":"gateway.networking.k8s.io/v1","kind":"ListenerSet","spec":{"listeners":"nope"}}`), nil))
	assert.False(t, resp.Allowed)
	assert.Equal(t, int32(http.StatusBadRequest), resp.Result.Code)
}

func TestRequestBodyIsCapped(t *testing.T) {
	// The webhooks read at most 7 MiB (controller-runtime's cap) and answer
	// 413; kube-apiserver's own limit for objects is 3 MiB (etcd's 1.5 MiB
	// request limit, with encoding headroom), so nothing legitimate is cut.
	srv := handlers(t)
	big := reviewtest.Request(t, admissionv1.Create, reviewtest.ToJSON(t, reviewtest.Minimal), nil)
	big = append(big[:len(big)-1], []byte(`,"padding":"`+strings.Repeat("x", 8<<20)+`"}`)...)
	resp := reviewtest.Post(t, srv.Client(), srv.URL+admission.ValidatePath, big)
	assert.False(t, resp.Allowed)
	assert.Equal(t, int32(http.StatusRequestEntityTooLarge), resp.Result.Code)
	// Note: this answer has no apiVersion/kind and no UID (the request was
	// never decoded), as controller-runtime writes it; kube-apiserver treats
	// that as a failed call, so the webhook's failurePolicy decides.
	assert.Empty(t, resp.UID)
}

func TestValidatorJudgesADefaultedCopy(t *testing.T) {
	var ls gwv1.ListenerSet
	require.NoError(t, yaml.Unmarshal([]byte(reviewtest.Minimal), &ls))
	sent := ls.DeepCopy()

	warnings, err := admission.Validator{}.ValidateCreate(t.Context(), &ls)

	assert.NoError(t, err)
	assert.Empty(t, warnings)
	assert.Equal(t, sent, &ls, "the object in the request is not modified")
}

func TestDenialIsLogged(t *testing.T) {
	var (
		mu    sync.Mutex
		lines []string
	)
	logger := funcr.NewJSON(func(obj string) {
		mu.Lock()
		defer mu.Unlock()
		lines = append(lines, obj)
	}, funcr.Options{})
	h, err := cradmission.StandaloneWebhook(admission.NewValidatingWebhook(), cradmission.StandaloneOptions{Logger: logger})
	require.NoError(t, err)
	srv := httptest.NewServer(h)
	defer srv.Close()

	resp := reviewtest.Post(t, srv.Client(), srv.URL, reviewtest.Request(t, admissionv1.Create, reviewtest.ToJSON(t, reviewtest.Invalid), nil))
	require.False(t, resp.Allowed)

	mu.Lock()
	defer mu.Unlock()
	require.Len(t, lines, 1, "one line per denial: %v", lines)
	var line map[string]any
	require.NoError(t, json.Unmarshal([]byte(lines[0]), &line))
	assert.Equal(t, "Denied ListenerSet", line["msg"])
	assert.Equal(t, "uid-create", line["requestID"], "the admission UID")
	assert.Equal(t, "team-a", line["namespace"])
	assert.Equal(t, float64(2), line["errorCount"])
	assert.NotContains(t, lines[0], "5432", "values are not logged")
}

// denials reads listenerset_webhook_denials_total from the /metrics handler
// Run serves, keyed "field reason".
func denials(t *testing.T) map[string]float64 {
	t.Helper()
	return metric(t, admission.DenialsMetric)
}

// metric reads a counter by rule (field and reason) from the /metrics
// handler Run serves, keyed "field reason".
func metric(t *testing.T, name string) map[string]float64 {
	t.Helper()
	rec := httptest.NewRecorder()
	serving.MetricsHandler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	require.Equal(t, http.StatusOK, rec.Code)
	return reviewtest.ByRule(t, rec.Body, name)
}

// TestDenialLogIsBounded: the log line of the worst denial (the object of
// 256 errors of 1 024 names each, a 25 MB line before) names the
// errors the report shows, with the exact count, in a few kilobytes.
func TestDenialLogIsBounded(t *testing.T) {
	var lines []string
	logger := funcr.NewJSON(func(obj string) { lines = append(lines, obj) }, funcr.Options{})
	h, err := cradmission.StandaloneWebhook(admission.NewValidatingWebhook(), cradmission.StandaloneOptions{Logger: logger})
	require.NoError(t, err)
	srv := httptest.NewServer(h)
	defer srv.Close()

	obj, err := json.Marshal(fixtures.Defaulted(validationtest.MostListErrors(validation.MaxListeners)))
	require.NoError(t, err)
	resp := reviewtest.Post(t, srv.Client(), srv.URL, reviewtest.Request(t, admissionv1.Create, obj, nil))
	require.False(t, resp.Allowed)

	require.Len(t, lines, 1)
	var line map[string]any
	require.NoError(t, json.Unmarshal([]byte(lines[0]), &line))
	assert.Equal(t, float64(256), line["errorCount"], "the exact count")
	assert.Len(t, line["errors"], len(resp.Result.Details.Causes), "the paths of the errors shown")
	assert.Less(t, len(lines[0]), 16<<10, "the line's length")
}

// readCounter is a validation.Classes that counts its reads and knows no
// Gateway: the scope's decision is the first thing a verdict reads.
type readCounter struct{ reads int }

func (c *readCounter) Gateway(string, string) (*gwv1.Gateway, bool) { c.reads++; return nil, true }
func (c *readCounter) GatewayClass(string) (*gwv1.GatewayClass, bool) {
	c.reads++
	return nil, true
}

// Work whose deadline passed while its object was decoded is given up
// before the verdict or the patch is worked out: reviewGuard has answered
// the request already, and no one would read them.
func TestWorkPastItsDeadlineIsNotDone(t *testing.T) {
	obj := reviewtest.ToJSON(t, reviewtest.Minimal)
	ls := &gwv1.ListenerSet{}
	require.NoError(t, json.Unmarshal(obj, ls))
	past, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Millisecond))
	defer cancel()
	scope := validation.Scope{ControllerNames: []gwv1.GatewayController{validation.AirlockControllerName}}

	classes := &readCounter{}
	_, err := admission.Validator{Scope: scope, Classes: classes}.ValidateCreate(context.Background(), ls)
	require.NoError(t, err)
	require.NotZero(t, classes.reads, "with time left, the verdict reads the parent")
	classes = &readCounter{}
	warnings, err := admission.Validator{Scope: scope, Classes: classes}.ValidateCreate(past, ls)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Empty(t, warnings)
	assert.Zero(t, classes.reads, "the verdict was worked out after the deadline")

	req := cradmission.Request{AdmissionRequest: admissionv1.AdmissionRequest{
		UID: "u", Operation: admissionv1.Create, Object: runtime.RawExtension{Raw: obj}}}
	mutating := admission.NewMutatingWebhookFor(scope, &readCounter{})
	require.NotEmpty(t, mutating.Handle(context.Background(), req).Patches, "with time left, the object is defaulted")
	late := mutating.Handle(past, req)
	assert.False(t, late.Allowed)
	assert.Empty(t, late.Patches, "the patch was worked out after the deadline")
}
