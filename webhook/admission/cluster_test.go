package admission_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/airlock/listenerset-webhook/validation"

	"github.com/go-logr/logr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	ctrlwebhook "sigs.k8s.io/controller-runtime/pkg/webhook"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/webhook/admission"
	"github.com/airlock/listenerset-webhook/webhook/clusterview"
	"github.com/airlock/listenerset-webhook/webhook/internal/reviewtest"
)

// handlersWith serves the three webhooks as Run registers them, with v as
// the Validator of the validating and the deletion webhook.
func handlersWith(t *testing.T, v admission.Validator) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	admission.RegisterWith(ctrlwebhook.NewServer(ctrlwebhook.Options{WebhookMux: mux}), v)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// aroundMinimal is a cluster around team-a/minimal: its Gateway team-a/gw
// admits the namespace and has a listener that conflicts with minimal's
// web-tls (port 8443, HTTPS, no hostname); no ReferenceGrants and no
// Secrets, so web-tls-cert is missing.
func aroundMinimal() *validation.Objects {
	return &validation.Objects{
		Gateways: []*gwv1.Gateway{{
			ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "gw"},
			Spec: gwv1.GatewaySpec{
				AllowedListeners: &gwv1.AllowedListeners{Namespaces: &gwv1.ListenerNamespaces{From: ptr.To(gwv1.NamespacesFromSame)}},
				Listeners:        []gwv1.Listener{{Name: "https", Port: 8443, Protocol: gwv1.HTTPSProtocolType}},
			},
		}},
		Sets:       []*gwv1.ListenerSet{},
		Namespaces: []*metav1.PartialObjectMetadata{},
		Grants:     []*gwv1.ReferenceGrant{},
		Secrets:    []*metav1.PartialObjectMetadata{},
	}
}

const (
	conflictWarning = "spec.listeners[1].hostname: same port, protocol and hostname as team-a/gw listener https; " +
		"this listener would be Conflicted (HostnameConflict)"
	secretWarning = "spec.listeners[1].tls.certificateRefs[0].name: Secret team-a/web-tls-cert not found " +
		"(InvalidCertificateRef until it exists)"
)

// TestValidatorClusterChecks: the cluster-aware findings reach the
// AdmissionResponse: warnings without Strict; with Strict, conflicts deny
// (422 with the field path) while the other findings stay warnings, and an
// update that leaves a stored conflict alone is let through; DELETE is never
// judged; a view that knows nothing, or none at all, leaves the object's own
// verdict unchanged.
func TestValidatorClusterChecks(t *testing.T) {
	noGateway := aroundMinimal()
	noGateway.Gateways = []*gwv1.Gateway{}
	labelled := reviewtest.ToJSON(t, reviewtest.Minimal+"  labels: {team: blue}\n")
	tests := []struct {
		name      string
		validator admission.Validator
		op        admissionv1.Operation
		obj, old  []byte
		denied    []string // causes' fields, in order; nil: allowed
		warnings  []string
	}{
		{name: "no cluster view", validator: admission.Validator{}, op: admissionv1.Create, obj: reviewtest.ToJSON(t, reviewtest.Minimal)},
		{name: "a view that knows nothing yet (not synced)", validator: admission.Validator{Cluster: &validation.Objects{}, Strict: true},
			op: admissionv1.Create, obj: reviewtest.ToJSON(t, reviewtest.Minimal)},
		{name: "findings are warnings without strict", validator: admission.Validator{Cluster: aroundMinimal()},
			op: admissionv1.Create, obj: reviewtest.ToJSON(t, reviewtest.Minimal), warnings: []string{secretWarning, conflictWarning}},
		{name: "strict: the conflict denies, the missing Secret warns", validator: admission.Validator{Cluster: aroundMinimal(), Strict: true},
			op: admissionv1.Create, obj: reviewtest.ToJSON(t, reviewtest.Minimal), denied: []string{"spec.listeners[1].hostname"}, warnings: []string{secretWarning}},
		{name: "strict: the object's own errors come first", validator: admission.Validator{Cluster: aroundMinimal(), Strict: true},
			op: admissionv1.Create, obj: reviewtest.ToJSON(t, reviewtest.Invalid),
			denied: []string{"spec.listeners[1].name", "spec.listeners[2].protocol"}},
		{name: "strict: an update that keeps a stored conflict is let through", validator: admission.Validator{Cluster: aroundMinimal(), Strict: true},
			op: admissionv1.Update, obj: labelled, old: reviewtest.ToJSON(t, reviewtest.Minimal),
			warnings: []string{secretWarning, `spec.listeners[1].hostname: Invalid value: "": same port, protocol and hostname as ` +
				"team-a/gw listener https; this listener would be Conflicted (HostnameConflict) (already stored; allowed because unchanged)"}},
		// A conflict ratchets by the port, protocol and hostname it
		// involves: moving the listener onto the taken port brings it.
		{name: "strict: an update that brings the conflict is denied", validator: admission.Validator{Cluster: aroundMinimal(), Strict: true},
			op: admissionv1.Update, obj: reviewtest.ToJSON(t, reviewtest.Minimal),
			old:    reviewtest.ToJSON(t, strings.Replace(reviewtest.WithForeignOption, "port: 8443", "port: 9443", 1)),
			denied: []string{"spec.listeners[1].hostname"}, warnings: []string{secretWarning}},
		{name: "strict: a missing Gateway only warns", validator: admission.Validator{Cluster: noGateway, Strict: true},
			op: admissionv1.Create, obj: reviewtest.ToJSON(t, reviewtest.Minimal), warnings: []string{
				"spec.parentRef.name: Gateway team-a/gw not found; the ListenerSet stays unattached until it exists", secretWarning}},
		{name: "strict: DELETE is not judged", validator: admission.Validator{Cluster: aroundMinimal(), Strict: true},
			op: admissionv1.Delete, old: reviewtest.ToJSON(t, reviewtest.Minimal)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := handlersWith(t, tc.validator)
			resp := reviewtest.Post(t, srv.Client(), srv.URL+admission.ValidatePath, reviewtest.Request(t, tc.op, tc.obj, tc.old))
			assert.Equal(t, tc.warnings, resp.Warnings)
			if tc.denied == nil {
				assert.True(t, resp.Allowed, "denied: %+v", resp.Result)
				return
			}
			require.False(t, resp.Allowed)
			assert.Equal(t, int32(http.StatusUnprocessableEntity), resp.Result.Code)
			assert.Equal(t, metav1.StatusReasonInvalid, resp.Result.Reason)
			var fields []string
			for _, c := range resp.Result.Details.Causes {
				fields = append(fields, c.Field)
			}
			assert.Equal(t, tc.denied, fields)
		})
	}
}

// TestAnswersBeforeTheCacheSyncs: a ClusterView whose API server accepts
// connections and never answers (its informers can neither discover nor
// list) is started, and a view that is never started, both know nothing;
// the webhook answers at once, from the object alone, even in strict mode.
func TestAnswersBeforeTheCacheSyncs(t *testing.T) {
	release, asked := make(chan struct{}), make(chan struct{})
	var askedOnce sync.Once
	hanging := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		askedOnce.Do(func() { close(asked) })
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(hanging.Close)
	t.Cleanup(func() { close(release) }) // runs first: lets the handlers return

	started, err := clusterview.New(&rest.Config{Host: hanging.URL}, clusterview.Watch{Scope: true, Cluster: true, Secrets: true}, logr.Discard())
	require.NoError(t, err)
	go func() { _ = started.Start(t.Context()) }()
	idle, err := clusterview.New(&rest.Config{Host: hanging.URL}, clusterview.Watch{Scope: true, Cluster: true, Secrets: true}, logr.Discard())
	require.NoError(t, err)
	select { // the started view's informers are asking
	case <-asked:
	case <-time.After(10 * time.Second):
		t.Fatal("the started view never asked its API server")
	}

	for name, view := range map[string]*clusterview.View{"started, never synced": started, "not started": idle} {
		t.Run(name, func(t *testing.T) {
			assert.False(t, view.Synced())
			gw, known := view.Gateway("team-a", "gw")
			assert.False(t, known)
			assert.Nil(t, gw)
			_, known = view.ListenerSetsOf("team-a", "gw")
			assert.False(t, known)
			_, known = view.NamespaceLabels("team-a")
			assert.False(t, known)
			_, known = view.ReferenceGrants("team-a")
			assert.False(t, known)
			_, known = view.SecretExists("team-a", "web-tls-cert")
			assert.False(t, known)

			srv := handlersWith(t, admission.Validator{Cluster: view, Strict: true})
			start := time.Now()
			resp := reviewtest.Post(t, srv.Client(), srv.URL+admission.ValidatePath, reviewtest.Request(t, admissionv1.Create, reviewtest.ToJSON(t, reviewtest.Minimal), nil))
			assert.True(t, resp.Allowed, "%+v", resp.Result)
			assert.Empty(t, resp.Warnings)
			resp = reviewtest.Post(t, srv.Client(), srv.URL+admission.ValidatePath, reviewtest.Request(t, admissionv1.Create, reviewtest.ToJSON(t, reviewtest.WithForeignOption), nil))
			assert.True(t, resp.Allowed)
			assert.Equal(t, []string{"spec.listeners[0].tls.options[example.com/x]: " + validation.WarnForeignOption}, resp.Warnings)
			resp = reviewtest.Post(t, srv.Client(), srv.URL+admission.ValidatePath, reviewtest.Request(t, admissionv1.Create, reviewtest.ToJSON(t, reviewtest.Invalid), nil))
			assert.False(t, resp.Allowed)
			assert.Len(t, resp.Result.Details.Causes, 2)
			assert.Less(t, time.Since(start), 5*time.Second, "the cache never holds a request up")
		})
	}
}
