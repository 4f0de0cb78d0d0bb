package validation

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/validation/internal/fixture"
	"github.com/airlock/listenerset-webhook/validation/internal/incluster"
	"github.com/airlock/listenerset-webhook/validation/internal/object"
)

// randomCluster is a Gateway with random ListenerSets around it, drawn from
// few ports, protocols (keyed and not), hostnames, creation times and
// namespaces, so that conflicts of every kind, ties broken by
// namespace/name, sets the Gateway does not admit and sets of another
// Gateway are frequent; and a ListenerSet to judge, new or an update of one
// of them.
func randomCluster(r *rand.Rand) (*gwv1.Gateway, *incluster.Objects, *gwv1.ListenerSet) {
	ports := []gwv1.PortNumber{80, 443, 8443}
	protocols := []gwv1.ProtocolType{"HTTP", "HTTPS", object.ProtocolHTTP3, "TCP", "example.com/custom", "example.com/other"}
	// exact names, wildcards above them (nested: *.a.example.com under
	// *.example.com) and none, so that hostnames overlap in every way
	hostnames := []*gwv1.Hostname{nil, ptr.To[gwv1.Hostname]("a.example.com"), ptr.To[gwv1.Hostname]("b.example.com"), ptr.To[gwv1.Hostname]("*.example.com")}
	if r.IntN(2) == 0 {
		hostnames = append(hostnames, ptr.To[gwv1.Hostname]("*.a.example.com"), ptr.To[gwv1.Hostname]("x.a.example.com"))
	}
	namespaces := []string{"ns-a", "ns-b", "ns-c", "gateway-ns"}
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	created := func() metav1.Time {
		if r.IntN(4) == 0 {
			return metav1.Time{} // not created (a manifest)
		}
		return metav1.NewTime(base.Add(time.Duration(r.IntN(3)) * time.Minute))
	}
	pickOf := func(n int) int { return r.IntN(n) }
	// Mostly the two protocols tenants use, so that hostnames conflict too.
	protocol := func() gwv1.ProtocolType {
		if r.IntN(4) > 0 {
			return protocols[r.IntN(2)]
		}
		return protocols[pickOf(len(protocols))]
	}

	from := []gwv1.FromNamespaces{gwv1.NamespacesFromAll, gwv1.NamespacesFromSame, gwv1.NamespacesFromSelector, gwv1.NamespacesFromNone}[pickOf(4)]
	if r.IntN(2) == 0 {
		from = gwv1.NamespacesFromAll // most Gateways admit what they are given
	}
	gw := fixture.Gateway(from)
	if from == gwv1.NamespacesFromSelector {
		gw = withSelector(gw, "access", "yes")
	}
	for i := range r.IntN(3) {
		gw.Spec.Listeners = append(gw.Spec.Listeners, gwv1.Listener{Name: gwv1.SectionName(fmt.Sprintf("gw-%d", i)),
			Port: ports[pickOf(len(ports))], Protocol: protocol(), Hostname: hostnames[pickOf(len(hostnames))]})
	}
	listeners := func() []gwv1.ListenerEntry {
		var ls []gwv1.ListenerEntry
		for i := range 1 + r.IntN(4) {
			ls = append(ls, gwv1.ListenerEntry{Name: gwv1.SectionName(fmt.Sprintf("l-%d", i)),
				Port: ports[pickOf(len(ports))], Protocol: protocol(), Hostname: hostnames[pickOf(len(hostnames))]})
		}
		return ls
	}
	o := &incluster.Objects{Gateways: []*gwv1.Gateway{gw}, Sets: []*gwv1.ListenerSet{}}
	for _, ns := range namespaces[:3] {
		switch r.IntN(3) {
		case 0:
			o.Namespaces = append(o.Namespaces, fixture.Namespace(ns, map[string]string{"access": "yes"}))
		case 1:
			o.Namespaces = append(o.Namespaces, fixture.Namespace(ns, nil))
		} // else: labels unknown
	}
	for i := range r.IntN(14) {
		ls := &gwv1.ListenerSet{
			ObjectMeta: metav1.ObjectMeta{Namespace: namespaces[pickOf(len(namespaces))], Name: fmt.Sprintf("set-%02d", i), CreationTimestamp: created()},
			Spec: gwv1.ListenerSetSpec{ParentRef: gwv1.ParentGatewayReference{Name: "gw", Namespace: ptr.To[gwv1.Namespace]("gateway-ns")},
				Listeners: listeners()},
		}
		if r.IntN(8) == 0 {
			ls.Spec.ParentRef.Name = "another" // a rival of another Gateway's
		}
		o.Sets = append(o.Sets, ls)
	}
	r.Shuffle(len(o.Sets), func(i, j int) { o.Sets[i], o.Sets[j] = o.Sets[j], o.Sets[i] })
	ls := &gwv1.ListenerSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespaces[pickOf(3)], Name: "judged"},
		Spec: gwv1.ListenerSetSpec{ParentRef: gwv1.ParentGatewayReference{Name: "gw", Namespace: ptr.To[gwv1.Namespace]("gateway-ns")},
			Listeners: listeners()},
	}
	if len(o.Sets) > 0 && r.IntN(3) == 0 { // an update: ls is stored, as it was
		stored := o.Sets[pickOf(len(o.Sets))]
		ls.Namespace, ls.Name, ls.CreationTimestamp = stored.Namespace, stored.Name, stored.CreationTimestamp
		if stored.Spec.ParentRef.Name != "gw" {
			stored.Spec.ParentRef.Name = "gw"
		}
	} else if r.IntN(3) == 0 {
		ls.CreationTimestamp = created() // a manifest that says when (offline)
	}
	return gw, o, ls
}

// fullMerge is ls's rows of the merged list of every ListenerSet of gw in
// o and ls (MergedListeners, as the listeners command builds it), with
// Precedence cleared: the reference listenersInMerge must equal.
func fullMerge(gw *gwv1.Gateway, o *incluster.Objects, ls *gwv1.ListenerSet) []incluster.MergedListener {
	children, _ := o.ListenerSetsOf(gw.Namespace, gw.Name)
	sets := slices.DeleteFunc(slices.Clone(children), func(s *gwv1.ListenerSet) bool { return s.Namespace == ls.Namespace && s.Name == ls.Name })
	var mine []incluster.MergedListener
	for _, row := range incluster.MergedListeners(gw, append(sets, ls), incluster.MergeOptions{Cluster: o}) {
		if row.Source.Kind == object.SourceListenerSet && row.Source.Namespace == ls.Namespace && row.Source.Name == ls.Name {
			row.Precedence = 0
			mine = append(mine, row)
		}
	}
	return mine
}

// TestDecisiveRivalsAreTheFullMerge: on random clusters, the rows the
// cluster-aware rule merges from the rivals the index finds (decisive,
// overlapRivals) are the rows of the full merged list of every ListenerSet
// of the Gateway, their overlaps included, and the verdict in strict mode
// is exactly the conflicts those rows show.
func TestDecisiveRivalsAreTheFullMerge(t *testing.T) {
	r := rand.New(rand.NewPCG(20, 1))
	conflicts, protocolConflicts, picked, overlaps := 0, 0, 0, 0
	const rounds = 2000
	for round := range rounds {
		gw, o, ls := randomCluster(r)
		want := fullMerge(gw, o, ls)
		rows := incluster.ListenersInMerge(ls, gw, incluster.NewGatewayAdmission(gw, o), o)
		for i := range rows {
			rows[i].Precedence = 0
		}
		if !assert.Equal(t, want, rows, "round %d", round) {
			t.Logf("gateway %+v\nsets %s\nls %s", gw.Spec, describeSets(o.Sets), describeSets([]*gwv1.ListenerSet{ls}))
			return
		}
		picked += len(incluster.Decisive(ls, gw, incluster.NewGatewayAdmission(gw, o), o))

		wantErrs := []*field.Error{}
		self := object.ListenerSource{Kind: object.SourceListenerSet, Namespace: ls.Namespace, Name: ls.Name}
		if allowed, known, _ := incluster.NewGatewayAdmission(gw, o).Admits(ls.Namespace); allowed && known {
			for _, row := range want {
				if row.Overlaps != nil && row.Overlaps.Source != self {
					overlaps++
				}
				if row.State == incluster.ListenerConflicted && row.Winner.Source != self {
					wantErrs = append(wantErrs, row.Errors...)
					conflicts++
					if row.Reason == object.ReasonProtocolConflict {
						protocolConflicts++
					}
				}
			}
		}
		// The cluster-aware rules' errors follow the object's own.
		own, _ := Validate(ls, nil, Options{})
		errs, _ := Validate(ls, nil, Options{Cluster: o, Strict: true})
		list := func(errs field.ErrorList) []*field.Error { return append([]*field.Error{}, errs...) }
		require.Equal(t, list(own), list(errs[:len(own)]), "round %d", round)
		require.Equal(t, wantErrs, list(errs[len(own):]), "round %d", round)
	}
	// The inputs are worth something only if they conflict, both ways.
	t.Logf("%d rounds: %d conflicts with rivals (%d ProtocolConflict), %d overlaps with another object, %d decisive rivals merged", rounds, conflicts, protocolConflicts, overlaps, picked)
	assert.Greater(t, protocolConflicts, rounds/10)
	assert.Greater(t, conflicts-protocolConflicts, rounds/10)
	assert.Greater(t, overlaps, rounds/10)
}

func describeSets(sets []*gwv1.ListenerSet) string {
	s := ""
	for _, ls := range sets {
		s += fmt.Sprintf("\n  %s/%s %s parent=%s:", ls.Namespace, ls.Name, ls.CreationTimestamp.Format(time.TimeOnly), ls.Spec.ParentRef.Name)
		for _, l := range ls.Spec.Listeners {
			h := "*"
			if l.Hostname != nil {
				h = string(*l.Hostname)
			}
			s += fmt.Sprintf(" %s=%d/%s/%s", l.Name, l.Port, l.Protocol, h)
		}
	}
	return s
}

// The index follows Objects' lists: appended ListenerSets are found, a
// replaced list is indexed again, and a copy with other Sets answers with its own.
func TestObjectsIndexFollowsTheLists(t *testing.T) {
	gw := fixture.Gateway(gwv1.NamespacesFromAll)
	a := fixture.Attached("team-a", "a", 1, fixture.Entry("web", 443, "HTTPS", "a.example.com"))
	b := fixture.Attached("team-b", "b", 2, fixture.Entry("web", 443, "HTTPS", "a.example.com"))
	key := incluster.EndpointKey(gw.Namespace, gw.Name, 443, "HTTPS", ptr.To[gwv1.Hostname]("a.example.com"))
	o := &incluster.Objects{Gateways: []*gwv1.Gateway{gw}, Sets: make([]*gwv1.ListenerSet, 0, 1)}
	sets, known := o.ListenerSetsAt(key)
	assert.True(t, known)
	assert.Empty(t, sets)
	o.Sets = append(o.Sets, a) // within capacity
	sets, _ = o.ListenerSetsAt(key)
	assert.Equal(t, []*gwv1.ListenerSet{a}, sets)
	o.Sets = append(o.Sets, b) // reallocated
	sets, _ = o.ListenerSetsAt(key)
	assert.Equal(t, []*gwv1.ListenerSet{a, b}, sets)
	_ = append(sets, a) // a caller's append does not write into the index
	sets, _ = o.ListenerSetsOf(gw.Namespace, gw.Name)
	assert.Equal(t, []*gwv1.ListenerSet{a, b}, sets)

	copied := *o
	copied.Sets = []*gwv1.ListenerSet{b}
	sets, _ = copied.ListenerSetsAt(key)
	assert.Equal(t, []*gwv1.ListenerSet{b}, sets)
	sets, _ = o.ListenerSetsAt(key)
	assert.Equal(t, []*gwv1.ListenerSet{a, b}, sets, "the original keeps its own")

	o.Secrets = []*metav1.PartialObjectMetadata{secret("team-a", "cert")}
	exists, known := o.SecretExists("team-a", "cert")
	assert.True(t, exists && known)
	o.Gateways = nil
	found, known := o.Gateway(gw.Namespace, gw.Name)
	assert.Nil(t, found)
	assert.False(t, known)
}

// Reads of one Objects may run at once (the webhook's handler with a test's
// Objects as its cluster): the index is built once, under its lock (go test
// -race).
func TestObjectsConcurrentReads(t *testing.T) {
	_, o, _ := randomCluster(rand.New(rand.NewPCG(7, 7)))
	ls := fixture.Attached("ns-a", "judged", 9, fixture.Entry("web", 443, "HTTPS", "a.example.com"))
	done := make(chan field.ErrorList)
	for range 4 {
		go func() {
			errs, _ := Validate(ls, nil, Options{Cluster: o, Strict: true})
			done <- errs
		}()
	}
	first := <-done
	for range 3 {
		assert.Equal(t, first, <-done)
	}
}
