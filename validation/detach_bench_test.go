package validation_test

import (
	"fmt"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/validation"
	"github.com/airlock/listenerset-webhook/validation/internal/routes"
	"github.com/airlock/listenerset-webhook/validation/validationtest"
)

// routesOf are perSet HTTPRoutes for each of sets, each attached by
// sectionName to its set's first listener with that listener's hostname.
func routesOf(sets []*gwv1.ListenerSet, perSet int) []*gwv1.HTTPRoute {
	routes := make([]*gwv1.HTTPRoute, 0, len(sets)*perSet)
	for _, ls := range sets {
		l := ls.Spec.Listeners[0]
		for j := range perSet {
			r := &gwv1.HTTPRoute{ObjectMeta: metav1.ObjectMeta{Namespace: ls.Namespace, Name: fmt.Sprintf("%s-r%03d", ls.Name, j)}}
			r.Spec.ParentRefs = []gwv1.ParentReference{{Group: ptr.To[gwv1.Group](gwv1.GroupName), Kind: ptr.To[gwv1.Kind]("ListenerSet"),
				Name: gwv1.ObjectName(ls.Name), SectionName: ptr.To(l.Name)}}
			r.Spec.Hostnames = []gwv1.Hostname{*l.Hostname}
			routes = append(routes, r)
		}
	}
	return routes
}

// BenchmarkUpdateWithRoutes: an UPDATE of one of 100 tenant sets of the
// shared Gateway, with 10 000 HTTPRoutes attached to the sets (100 each),
// against the same update with no routes: a change the routes do not read
// (a label) reads no route; one that detaches its 100 routes (the
// listener's hostname changed) judges those 100 and gives one warning.
func BenchmarkUpdateWithRoutes(b *testing.B) {
	sets := validationtest.Tenants(100)
	all := routesOf(sets, 100)
	labelled := sets[0].DeepCopy()
	labelled.Labels = map[string]string{"team": "a"}
	moved := sets[0].DeepCopy()
	moved.Spec.Listeners[0].Hostname = ptr.To[gwv1.Hostname]("moved.example.com")
	for _, tc := range []struct {
		name     string
		routes   []*gwv1.HTTPRoute
		update   *gwv1.ListenerSet
		warnings int
	}{
		{"no-routes/label", nil, labelled, 0},
		{"10000-routes/label", all, labelled, 0},
		{"no-routes/hostname", nil, moved, 0},
		{"10000-routes/hostname", all, moved, 1},
	} {
		b.Run(tc.name, func(b *testing.B) {
			c := validationtest.SharedCluster(sets)
			c.Routes = tc.routes
			if tc.routes == nil {
				c.Routes = []*gwv1.HTTPRoute{}
			}
			opts := validation.Options{Cluster: c, Routes: c}
			validation.Validate(tc.update, sets[0], opts) // builds the index
			b.ReportAllocs()
			for b.Loop() {
				errs, ws := validation.Validate(tc.update, sets[0], opts)
				n := 0
				for _, w := range ws {
					if w.Kind == routes.KindRoutesDetached {
						n++
					}
				}
				if len(errs) != 0 || n != tc.warnings {
					b.Fatal(errs, ws)
				}
			}
		})
	}
}
