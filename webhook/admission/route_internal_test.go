package admission

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/validation/merged"
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
		Annotations: map[string]string{merged.DefaultAllowedHostnamesAnnotation: "*.b.example.com"}}}}
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

	ws, err = routeValidator{v: Validator{}}.ValidateCreate(context.Background(), route)
	assert.NoError(t, err, "no cluster view: nothing judged")
	assert.Empty(t, ws)
}
