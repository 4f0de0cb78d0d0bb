package validation_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/validation"
	"github.com/airlock/listenerset-webhook/validation/internal/incluster"
	"github.com/airlock/listenerset-webhook/validation/validationtest"
)

// routeTo is an HTTPRoute namespace/name attached to ListenerSet
// namespace/set with hostnames.
func routeTo(namespace, name, set string, hostnames ...gwv1.Hostname) *gwv1.HTTPRoute {
	return &gwv1.HTTPRoute{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Spec: gwv1.HTTPRouteSpec{CommonRouteSpec: gwv1.CommonRouteSpec{ParentRefs: []gwv1.ParentReference{{
			Group: ptr.To[gwv1.Group](gwv1.GroupName), Kind: ptr.To[gwv1.Kind]("ListenerSet"), Name: gwv1.ObjectName(set)}}},
			Hostnames: hostnames}}
}

// routedCluster is OwnedCluster(n) with owner 1's set "side" (a listener
// without a hostname, where routes claim names) and n routes, route j of
// owner j mod Owners attached to that owner's wildcard set (when there
// is one), each claiming its own name under the owner's domain.
func routedCluster(n int) *incluster.Objects {
	c := validationtest.OwnedCluster(n)
	side := validationtest.TenantSet(validationtest.OwnerNamespace(1), "side", time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC),
		gwv1.ListenerEntry{Name: "open", Port: 9090, Protocol: gwv1.HTTPProtocolType})
	c.Sets = append(c.Sets, side)
	c.Routes = make([]*gwv1.HTTPRoute, 0, n)
	for j := range n {
		o := j % validationtest.Owners
		c.Routes = append(c.Routes, routeTo(validationtest.OwnerNamespace(o), fmt.Sprintf("r-%05d", j), fmt.Sprintf("ls-%05d", validationtest.Owners+o),
			gwv1.Hostname(fmt.Sprintf("r-%05d.%s", j, validationtest.OwnerDomain(o)))))
	}
	return c
}

// newRoute is owner 1's route being created on "side", with a name its
// declaration covers.
func newRoute() *gwv1.HTTPRoute {
	return routeTo(validationtest.OwnerNamespace(1), "new", "side", gwv1.Hostname("new."+validationtest.OwnerDomain(1)))
}

// routeReadCounter counts what a route's verdict reads: the sets' and
// the routes' index reads and what they return.
type routeReadCounter struct {
	readCounter
	routeReads, routes int
}

func (c *routeReadCounter) RoutesAt(key string) ([]*gwv1.HTTPRoute, bool) {
	rs, known := c.Objects.RoutesAt(key)
	c.routeReads++
	c.routes += len(rs)
	return rs, known
}

// TestRouteCreateReadsAreFlat: owner 1's route create makes the same
// index reads on a Gateway of 10 000 sets and 10 000 routes as on one
// with none, reads no Gateway whole and none of the 10 000 routes (none
// overlaps its name): its cost does not grow with the sets and routes
// (issue 49's item 8; BenchmarkRouteClaimsScale has the figures).
func TestRouteCreateReadsAreFlat(t *testing.T) {
	var reads, routeReads [2]int
	for k, n := range []int{0, 10000} {
		c := &routeReadCounter{readCounter: readCounter{Objects: routedCluster(n)}}
		r := validation.JudgeRoute(newRoute(), nil, validation.Options{Cluster: c, Routes: c})
		require.Zero(t, r.Errors.Total())
		require.Zero(t, r.Warnings.Total(), "%v", r.Warnings.List())
		assert.True(t, r.Scope.Judge)
		assert.Zero(t, c.whole, "%d: a Gateway's sets read whole", n)
		assert.Zero(t, c.routes, "%d: routes read", n)
		assert.LessOrEqual(t, c.sets, 1, "%d: sets read (the owner's own wildcard set)", n)
		reads[k], routeReads[k] = c.reads, c.routeReads
		t.Logf("%d sets and routes: %d set index reads (%d sets), %d route index reads", n, c.reads, c.sets, c.routeReads)
	}
	assert.Equal(t, reads[0], reads[1], "set index reads at 0 and 10 000")
	assert.Equal(t, routeReads[0], routeReads[1], "route index reads at 0 and 10 000")
	assert.NotZero(t, routeReads[0], "the routes are read")
}

// BenchmarkRouteClaimsScale: a route create on a Gateway of 0 and 10 000
// sets and routes (TestRouteCreateReadsAreFlat), and the worst route: 16
// hostnames by 64 parentRefs, each a set of 64 listeners without a
// hostname, its hostnames declared (worst) or each refused and warned
// (worst-refused, TestWorstRouteIsBounded's).
func BenchmarkRouteClaimsScale(b *testing.B) {
	for _, n := range []int{0, 10000} {
		c := routedCluster(n)
		opts := validation.Options{Cluster: c, Routes: c}
		b.Run(fmt.Sprintf("routes=%d", n), func(b *testing.B) {
			for b.Loop() {
				validation.JudgeRoute(newRoute(), nil, opts)
			}
		})
	}
	for _, refused := range []bool{false, true} {
		c, worst := validationtest.WorstRouteCluster(validationtest.WorstRouteParents, refused)
		opts := validation.Options{Cluster: c, Routes: c}
		name := "worst"
		if refused {
			name = "worst-refused"
		}
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				validation.JudgeRoute(worst, nil, opts)
			}
		})
	}
}

// TestWorstRouteCostIsLinear: the bytes the worst route's verdict
// allocates grow at most linearly with its parentRefs (16, 32, 64, each a
// set of 64 listeners without a hostname), every hostname refused and
// warned as in TestWorstRouteIsBounded.
func TestWorstRouteCostIsLinear(t *testing.T) {
	if testing.Short() {
		t.Skip("a few seconds of verdicts")
	}
	var cost [3]float64
	for k, n := range []int{16, 32, 64} {
		c, worst := validationtest.WorstRouteCluster(n, true)
		opts := validation.Options{Cluster: c, Routes: c}
		require.Equal(t, validationtest.WorstRouteHostnames, validation.JudgeRoute(worst, nil, opts).Errors.Total())
		cost[k] = allocatedBytes(func() { validation.JudgeRoute(worst, nil, opts) })
	}
	t.Logf("allocated: %.0f, %.0f, %.0f bytes at 16, 32, 64 parentRefs", cost[0], cost[1], cost[2])
	assertLinear(t, cost)
}

// TestWorstRouteIsBounded: the worst route, every hostname outside its
// Namespace's declaration and under another owner's wildcard, gets one
// LS319 error and one LS320 warning per hostname (not per parentRef or
// listener), in a bounded report.
func TestWorstRouteIsBounded(t *testing.T) {
	c, worst := validationtest.WorstRouteCluster(validationtest.WorstRouteParents, true)
	r := validation.JudgeRoute(worst, nil, validation.Options{Cluster: c, Routes: c})
	assert.Equal(t, 16, r.Errors.Total(), "one LS319 per hostname: %v", r.Errors.List())
	assert.Equal(t, 16, r.Warnings.Total(), "one LS320 per hostname")
	assertReportBounded(t, r)
}

// givingCluster is the refused worst route's cluster without its sets,
// with k routes of owner 1, each of 16 hostnames outside owner 1's
// declaration and under owner 2's wildcard, naming owner 1's first worst
// route set, which does not exist yet; and that set's create: 64
// listeners without a hostname, through each of which every route would
// claim its 16 names.
func givingCluster(k int) (*incluster.Objects, *gwv1.ListenerSet) {
	c, _ := validationtest.WorstRouteCluster(0, true)
	for j := range k {
		r := routeTo(validationtest.OwnerNamespace(1), fmt.Sprintf("g-%04d", j), validationtest.WorstRouteSetName(0))
		for h := range 16 {
			r.Spec.Hostnames = append(r.Spec.Hostnames, gwv1.Hostname(fmt.Sprintf("g%04d-%02d.%s", j, h, validationtest.OwnerDomain(1))))
		}
		c.Routes = append(c.Routes, r)
	}
	return c, validationtest.WorstRouteSets(validationtest.OwnerNamespace(1), 1)[0]
}

// TestClaimsGivenAreBounded: a ListenerSet create that gives k stored
// routes their claims finds one LS319 and one LS320 per route and
// hostname (not per listener), in a bounded report, and allocates at most
// linearly in k (64, 128, 256 routes of 16 hostnames, 64 listeners).
func TestClaimsGivenAreBounded(t *testing.T) {
	var cost [3]float64
	for i, k := range []int{64, 128, 256} {
		c, giver := givingCluster(k)
		opts := validation.Options{Cluster: c, Routes: c}
		r := validation.Judge(giver, nil, opts)
		// and 64 LS314: the listeners without a hostname claim every name
		assert.Equal(t, 64+16*k, r.Errors.Total(), "%d routes: one LS319 per route and hostname", k)
		assert.Equal(t, 16*k, r.Warnings.Total(), "%d routes: one LS320 per route and hostname", k)
		assertReportBounded(t, r)
		cost[i] = allocatedBytes(func() { validation.Judge(giver, nil, opts) })
	}
	t.Logf("allocated: %.0f, %.0f, %.0f bytes at 64, 128, 256 routes", cost[0], cost[1], cost[2])
	assertLinear(t, cost)
}
