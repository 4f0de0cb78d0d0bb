package validationtest

import (
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/validation/internal/incluster"
	"github.com/airlock/listenerset-webhook/validation/internal/object"
)

// The worst HTTPRoute for the route claims (validation.JudgeRoute): the
// CRD's 16 hostnames by WorstRouteParents parentRefs, each naming a
// ListenerSet of 64 listeners without a hostname, so that every hostname
// is a claim through every listener of every parent. The CRD admits 32
// parentRefs; 64 is twice that, an upper bound that only a request sent
// to the webhook directly (not through kube-apiserver) reaches. The
// validation tests, the handler's benchmark and the load tool's
// route-creates shape build it from these functions.
const (
	WorstRouteHostnames = 16
	WorstRouteParents   = 64
)

// WorstRouteSetName is the name of the worst route's i-th parent.
func WorstRouteSetName(i int) string { return fmt.Sprintf("worst-route-%02d", i) }

// WorstRouteSets are the worst route's n parents in namespace, on the
// shared Gateway: each has object.MaxListeners HTTP listeners without a
// hostname on their own ports (the same ports in every set).
func WorstRouteSets(namespace string, n int) []*gwv1.ListenerSet {
	sets := make([]*gwv1.ListenerSet, n)
	for i := range sets {
		listeners := make([]gwv1.ListenerEntry, object.MaxListeners)
		for j := range listeners {
			listeners[j] = gwv1.ListenerEntry{Name: gwv1.SectionName(fmt.Sprintf("l%02d", j)), Port: gwv1.PortNumber(9000 + j), Protocol: gwv1.HTTPProtocolType}
		}
		sets[i] = TenantSet(namespace, WorstRouteSetName(i), time.Time{}, listeners...)
	}
	return sets
}

// WorstRoute is an HTTPRoute of namespace naming the first n of
// WorstRouteSets(namespace) (without a sectionName: it attaches to every
// listener) with WorstRouteHostnames hostnames of 8 labels under domain.
func WorstRoute(namespace, name, domain string, n int) *gwv1.HTTPRoute {
	r := &gwv1.HTTPRoute{
		TypeMeta:   metav1.TypeMeta{APIVersion: gwv1.GroupVersion.String(), Kind: "HTTPRoute"},
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
	}
	for i := range n {
		r.Spec.ParentRefs = append(r.Spec.ParentRefs, gwv1.ParentReference{Group: ptr.To[gwv1.Group](gwv1.GroupName),
			Kind: ptr.To[gwv1.Kind](object.ListenerSetKind), Name: gwv1.ObjectName(WorstRouteSetName(i))})
	}
	for k := range WorstRouteHostnames {
		r.Spec.Hostnames = append(r.Spec.Hostnames, gwv1.Hostname(fmt.Sprintf("w%02d.a.b.c.d.e.f.%s", k, domain)))
	}
	return r
}

// WorstRouteCluster is OwnedCluster(0) with the worst route's parents
// (WorstRouteSets of owner 1, n of them) and no routes, and the worst
// route, owner 1's, naming them. Refused: owner 1's Namespace declares
// only other.example.com and owner 2 holds a wildcard over owner 1's
// domain, so that every hostname is refused (LS319) and warned of that
// holder (LS320), the costliest verdict; otherwise every hostname is
// declared and held by no one else.
func WorstRouteCluster(n int, refused bool) (*incluster.Objects, *gwv1.HTTPRoute) {
	c := OwnedCluster(0)
	c.Routes = []*gwv1.HTTPRoute{}
	own := OwnerNamespace(1)
	c.Sets = append(c.Sets, WorstRouteSets(own, n)...)
	if refused {
		for _, ns := range c.Namespaces {
			if ns.Name == own {
				ns.Annotations = map[string]string{incluster.DefaultAllowedHostnamesAnnotation: "other.example.com"}
			}
		}
		c.Sets = append(c.Sets, TenantSet(OwnerNamespace(2), "wild", time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC),
			Listener("http", 80, gwv1.HTTPProtocolType, "*."+OwnerDomain(1))))
	}
	return c, WorstRoute(own, "worst", OwnerDomain(1), n)
}
