package admission

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/airlock/listenerset-webhook/validation"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	vt "github.com/airlock/listenerset-webhook/validation/validationtest"
)

// TestRouteValidator: the HTTPRoute webhook denies a route claiming a
// name outside its Namespace's declaration with a 422 naming
// spec.hostnames[0] (kind HTTPRoute), admits it with the error as a
// would-deny warning under enforcement warn, and admits a route of
// another namespace's set that claims nothing without a word.
func TestRouteValidator(t *testing.T) {
	side := vt.TenantSet("team-b", "side", vt.SharedGateway().CreationTimestamp.Time, gwv1.ListenerEntry{Name: "open", Port: 9090, Protocol: gwv1.HTTPProtocolType})
	c := vt.SharedCluster([]*gwv1.ListenerSet{side})
	c.Routes = []*gwv1.HTTPRoute{}
	c.Namespaces = []*metav1.PartialObjectMetadata{{ObjectMeta: metav1.ObjectMeta{Name: "team-b",
		Annotations: map[string]string{validation.DefaultAllowedHostnamesAnnotation: "*.b.example.com"}}}}
	route := &gwv1.HTTPRoute{ObjectMeta: metav1.ObjectMeta{Namespace: "team-b", Name: "steal"},
		Spec: gwv1.HTTPRouteSpec{CommonRouteSpec: gwv1.CommonRouteSpec{ParentRefs: []gwv1.ParentReference{{
			Group: ptr.To[gwv1.Group](gwv1.GroupName), Kind: ptr.To[gwv1.Kind]("ListenerSet"), Name: "side"}}},
			Hostnames: []gwv1.Hostname{"login.a.example.com"}}}

	_, err := routeValidator{v: Validator{Cluster: c, Routes: c}}.ValidateCreate(context.Background(), route)
	require.Error(t, err)
	status, ok := err.(*apierrors.StatusError)
	require.True(t, ok, "%T", err)
	assert.Equal(t, "HTTPRoute", status.ErrStatus.Details.Kind)
	require.Len(t, status.ErrStatus.Details.Causes, 1)
	assert.Equal(t, "spec.hostnames[0]", status.ErrStatus.Details.Causes[0].Field)

	ws, err := routeValidator{v: Validator{Cluster: c, Routes: c, Enforcement: EnforcementWarn}}.ValidateCreate(context.Background(), route)
	require.NoError(t, err)
	require.Len(t, ws, 1)
	assert.Contains(t, ws[0], "would be denied")

	// The warn twin RegisterWith serves at ValidateRouteWarnPath warns the same.
	twin, err := routeValidator{v: Validator{Cluster: c, Routes: c}.warnTwin()}.ValidateCreate(context.Background(), route)
	require.NoError(t, err)
	assert.Equal(t, ws, twin)

	ws, err = routeValidator{v: Validator{}}.ValidateCreate(context.Background(), route)
	assert.NoError(t, err, "no cluster view: nothing judged")
	assert.Empty(t, ws)
}

// TestGuardHandsOnHTTPRoutes: the HTTPRoute webhook's guard hands an
// HTTPRoute review on (the ListenerSet webhooks' refuse one), and refuses
// a ListenerSet sent to it; found by TestRouteClaims through
// kube-apiserver, where the guard answered every route with "expected a
// ListenerSet".
func TestGuardHandsOnHTTPRoutes(t *testing.T) {
	route := `{"apiVersion":"gateway.networking.k8s.io/v1","kind":"HTTPRoute","metadata":{"name":"r","namespace":"n"},` +
		`"spec":{"parentRefs":[{"kind":"ListenerSet","name":"side"}],"hostnames":["a.example.com"]}}`
	answer := func(h http.Handler, object string) (int, string) {
		req := httptest.NewRequest(http.MethodPost, ValidateRoutePath, strings.NewReader(guardReview("admission.k8s.io/v1", "u-1", "CREATE", object, "")))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec.Code, rec.Body.String()
	}
	guard := reviewGuard{next: NewRouteWebhook(Validator{}), object: httpRouteTypeMeta}
	code, body := answer(guard, route)
	assert.Equal(t, http.StatusOK, code)
	assert.Contains(t, body, `"allowed":true`)
	_, body = answer(guard, guardObj)
	assert.Contains(t, body, "expected a HTTPRoute of gateway.networking.k8s.io/v1")
	_, body = answer(reviewGuard{next: NewValidatingWebhook()}, route)
	assert.Contains(t, body, "expected a ListenerSet of gateway.networking.k8s.io/v1")
}
