package judge_test

import (
	"testing"
	"time"

	"github.com/airlock/listenerset-webhook/validation"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/offline/judge"
	vt "github.com/airlock/listenerset-webhook/validation/validationtest"
)

// TestStoredRouteClaims: the audit judges stored HTTPRoutes as stored
// (judge.Routes): team-b's route that came after team-a's wildcard set
// and names a name under it, through team-b's listener without a
// hostname, is warned (LS320), an error with --first-claim=deny; one
// outside team-b's declaration is an error (LS319) in every mode; a
// route of team-b that came before team-a's set keeps its name.
func TestStoredRouteClaims(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	portal := vt.TenantSet("team-a", "portal", t0.Add(time.Minute), vt.Listener("web", 8080, gwv1.HTTPProtocolType, "*.a.example.com"))
	side := vt.TenantSet("team-b", "side", t0, gwv1.ListenerEntry{Name: "open", Port: 9090, Protocol: gwv1.HTTPProtocolType})
	route := func(name string, at time.Duration, h gwv1.Hostname) *gwv1.HTTPRoute {
		return &gwv1.HTTPRoute{ObjectMeta: metav1.ObjectMeta{Namespace: "team-b", Name: name, CreationTimestamp: metav1.NewTime(t0.Add(at))},
			Spec: gwv1.HTTPRouteSpec{CommonRouteSpec: gwv1.CommonRouteSpec{ParentRefs: []gwv1.ParentReference{{
				Group: ptr.To[gwv1.Group](gwv1.GroupName), Kind: ptr.To[gwv1.Kind]("ListenerSet"), Name: "side"}}},
				Hostnames: []gwv1.Hostname{h}}}
	}
	later, earlier := route("later", 2*time.Minute, "login.a.example.com"), route("earlier", 30*time.Second, "pay.a.example.com")
	cluster := vt.SharedCluster([]*gwv1.ListenerSet{portal, side})
	cluster.Routes = []*gwv1.HTTPRoute{later, earlier}
	cluster.Namespaces = []*metav1.PartialObjectMetadata{{ObjectMeta: metav1.ObjectMeta{Name: "team-a"}}, {ObjectMeta: metav1.ObjectMeta{Name: "team-b"}}}

	rs := judge.Routes(cluster, cluster.Routes, judge.Options{})
	require.Len(t, rs, 1, "the earlier route keeps its name: %+v", rs)
	assert.Equal(t, "team-b/later", rs[0].Namespace+"/"+rs[0].Name)
	assert.True(t, rs[0].Valid)
	require.Len(t, rs[0].Warnings, 1)
	assert.Equal(t, "LS320", rs[0].Warnings[0].Code)

	rs = judge.Routes(cluster, cluster.Routes, judge.Options{Tenancy: validation.Tenancy{FirstClaim: validation.ClaimDeny}})
	require.Len(t, rs, 1)
	assert.False(t, rs[0].Valid)
	require.Len(t, rs[0].Errors, 1)
	assert.Equal(t, "spec.hostnames[0]", rs[0].Errors[0].Field)

	cluster.Namespaces[1].Annotations = map[string]string{validation.DefaultAllowedHostnamesAnnotation: "*.b.example.com"}
	rs = judge.Routes(cluster, cluster.Routes, judge.Options{Tenancy: validation.Tenancy{FirstClaim: validation.ClaimOff}})
	require.Len(t, rs, 2, "both outside the declaration")
	for _, r := range rs {
		assert.False(t, r.Valid, "%s", r.Name)
	}
}
