package reported

import (
	"testing"
	"time"

	"github.com/airlock/listenerset-webhook/validation"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// TestPredict: the Gateway's own listeners first, then the sets in
// precedence order (oldest first, whatever order they are given in); a
// refused set's listeners Invalid where the set stands, taking no place
// (the newer set on the same port is Accepted); attached routes counted on
// the sets' Accepted listeners, none on the Gateway's.
func TestPredict(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	ns := gwv1.Namespace("infra")
	set := func(name string, age int, port gwv1.PortNumber) *gwv1.ListenerSet {
		return &gwv1.ListenerSet{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: name, CreationTimestamp: metav1.NewTime(t0.Add(time.Duration(age) * time.Second))},
			Spec: gwv1.ListenerSetSpec{ParentRef: gwv1.ParentGatewayReference{Name: "gw", Namespace: &ns},
				Listeners: []gwv1.ListenerEntry{{Name: "web", Port: port, Protocol: gwv1.HTTPProtocolType}}}}
	}
	gw := &gwv1.Gateway{ObjectMeta: metav1.ObjectMeta{Namespace: "infra", Name: "gw"},
		Spec: gwv1.GatewaySpec{GatewayClassName: "airlock", Listeners: []gwv1.Listener{{Name: "http", Port: 80, Protocol: gwv1.HTTPProtocolType}},
			AllowedListeners: &gwv1.AllowedListeners{Namespaces: &gwv1.ListenerNamespaces{From: new(gwv1.NamespacesFromAll)}}}}
	refusedSet, newer := set("refused", 0, 8080), set("newer", 1, 8080)
	route := &gwv1.HTTPRoute{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "r"},
		Spec: gwv1.HTTPRouteSpec{CommonRouteSpec: gwv1.CommonRouteSpec{ParentRefs: []gwv1.ParentReference{
			{Kind: new(gwv1.Kind("ListenerSet")), Name: "newer"}, {Kind: new(gwv1.Kind("ListenerSet")), Name: "refused"}}}}}
	o := &validation.Objects{Gateways: []*gwv1.Gateway{gw}, Sets: []*gwv1.ListenerSet{newer, refusedSet}, Routes: []*gwv1.HTTPRoute{route}}
	got := Predict(gw, o.Sets, func(ls *gwv1.ListenerSet) bool { return ls == refusedSet }, o, nil)
	type row struct {
		precedence int
		source     string
		state      validation.ListenerState
		routes     int // -1: nil
	}
	var rows []row
	for _, p := range got {
		r := row{p.Precedence, p.Source.Name, p.State, -1}
		if p.AttachedRoutes != nil {
			r.routes = *p.AttachedRoutes
		}
		rows = append(rows, r)
	}
	want := []row{{1, "gw", validation.ListenerAccepted, -1}, {2, "refused", validation.ListenerInvalid, 0}, {3, "newer", validation.ListenerAccepted, 1}}
	if len(rows) != len(want) {
		t.Fatalf("got %+v, want %+v", rows, want)
	}
	for i := range want {
		if rows[i] != want[i] {
			t.Errorf("row %d: got %+v, want %+v", i, rows[i], want[i])
		}
	}
	if got[2].Set != newer || got[1].Set != refusedSet || got[0].Set != nil {
		t.Errorf("sets: %v %v %v", got[0].Set, got[1].Set, got[2].Set)
	}
	if p := got[2].Prediction(); p.State != validation.ListenerAccepted || p.AttachedRoutes == nil || *p.AttachedRoutes != 1 {
		t.Errorf("Prediction: %+v", p)
	}
}
