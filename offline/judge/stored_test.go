package judge_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/offline/judge"
	vt "github.com/airlock/listenerset-webhook/validation/validationtest"
)

// TestStored: stored sets are judged as creates against the cluster they
// are in. An error an update would ratchet (the set is stored with it) is
// an error; the older of two sets on one endpoint keeps it and only the
// newer is told of the conflict, whichever comes first in the list; a
// stored set is no rival of itself.
func TestStored(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	older := vt.TenantSet("team-b", "older", t0, vt.Listener("web", 8080, gwv1.HTTPProtocolType, "a.example.com"))
	newer := vt.TenantSet("team-a", "newer", t0.Add(time.Second), vt.Listener("web", 8080, gwv1.HTTPProtocolType, "a.example.com"))
	// Allowed by the CRD, refused by the webhook: a route kind Airlock
	// Microgateway does not serve.
	broken := vt.TenantSet("team-a", "broken", t0, vt.Listener("grpc", 9090, gwv1.HTTPProtocolType, "b.example.com"))
	broken.Spec.Listeners[0].AllowedRoutes = &gwv1.AllowedRoutes{Kinds: []gwv1.RouteGroupKind{{Kind: "TCPRoute"}}}
	cluster := vt.SharedCluster([]*gwv1.ListenerSet{broken, newer, older})

	for _, strict := range []bool{false, true} {
		v := judge.Stored(cluster, cluster.Sets, judge.Options{Strict: strict})
		require.Len(t, v.Results, 3)
		b, n, o := v.Results[0], v.Results[1], v.Results[2]
		assert.Equal(t, "team-a/broken", b.Namespace+"/"+b.Name, "results in the order given")
		assert.False(t, b.Valid)
		require.NotEmpty(t, b.Errors)
		assert.Equal(t, "spec.listeners[0].allowedRoutes.kinds[0].kind", b.Errors[0].Field)
		assert.Zero(t, b.Location, "a stored object has no file")

		assert.True(t, o.Valid, "the older set wins: %+v", o)
		assert.Empty(t, o.Warnings, "no conflict with its own stored copy or the newer set")
		conflict := func(r judge.Result) bool {
			for _, e := range r.Errors {
				if strings.Contains(e.Message, "HostnameConflict") || strings.Contains(e.Message, "team-b/older") {
					return true
				}
			}
			for _, w := range r.Warnings {
				if strings.Contains(w.Message, "team-b/older") {
					return true
				}
			}
			return false
		}
		assert.True(t, conflict(n), "strict=%v: the newer set loses to team-b/older: %+v", strict, n)
		assert.Equal(t, !strict, n.Valid, "strict=%v: a conflict is an error only under --strict", strict)
	}
}

// TestStoredOverlaps: the audit reports OverlappingTLSConfig on both
// listeners whose hostnames overlap on one port (the reference's A
// foo.example.com and C *.example.com, in two sets), as the cluster-aware
// warning LS307, never as an error, not even under --strict; B
// foo.example.org has none.
func TestStoredOverlaps(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	a := vt.TenantSet("team-a", "a", t0, vt.Listener("a", 443, gwv1.HTTPSProtocolType, "foo.example.com"))
	b := vt.TenantSet("team-b", "b", t0.Add(time.Second), vt.Listener("b", 443, gwv1.HTTPSProtocolType, "foo.example.org"))
	c := vt.TenantSet("team-c", "c", t0.Add(2*time.Second), vt.Listener("c", 443, gwv1.HTTPSProtocolType, "*.example.com"))
	cluster := vt.SharedCluster([]*gwv1.ListenerSet{a, b, c})
	for _, strict := range []bool{false, true} {
		v := judge.Stored(cluster, cluster.Sets, judge.Options{Strict: strict})
		require.Len(t, v.Results, 3)
		overlaps := map[string][]string{}
		for _, r := range v.Results {
			assert.True(t, r.Valid, "strict=%v: an overlap never denies: %+v", strict, r)
			for _, w := range r.Warnings {
				if w.Code == "LS307" {
					overlaps[r.Name] = append(overlaps[r.Name], w.Message)
				}
			}
		}
		assert.Equal(t, map[string][]string{
			"a": {`spec.listeners[0].hostname: hostname "foo.example.com" overlaps hostname "*.example.com" of team-c/c listener c on port 443: both get OverlappingTLSConfig (OverlappingHostnames); HTTP/2 connection coalescing may reach the other's routes`},
			"c": {`spec.listeners[0].hostname: hostname "*.example.com" overlaps hostname "foo.example.com" of team-a/a listener a on port 443: both get OverlappingTLSConfig (OverlappingHostnames); HTTP/2 connection coalescing may reach the other's routes`},
		}, overlaps, "strict=%v", strict)
	}
}
