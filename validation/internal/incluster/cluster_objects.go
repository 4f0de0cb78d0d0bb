package incluster

import (
	"slices"
	"sync"
	"unsafe"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/validation/internal/views"
)

// Objects is a Cluster made of plain objects, such as the documents the
// offline validate command reads, or a test's fixtures. A nil list means the
// kind is unknown, so its rules are skipped; a non-nil list, even empty, is
// taken as everything there is of that kind. Namespaces are known one by one:
// only a listed namespace has known labels.
//
// Reads answer from an index built on first use, so that judging each of N
// ListenerSets against the others costs N lookups, not N² comparisons (the
// offline command's figure, docs/performance.md). A list may be replaced or
// appended to at any time (the index follows: appended ListenerSets are
// indexed on the next read); an element must not be overwritten in place.
// An Objects may be copied; reads are safe for concurrent use.
type Objects struct {
	Gateways   []*gwv1.Gateway
	Classes    []*gwv1.GatewayClass
	Sets       []*gwv1.ListenerSet
	Namespaces []*metav1.PartialObjectMetadata
	Grants     []*gwv1.ReferenceGrant
	Secrets    []*metav1.PartialObjectMetadata
	// Routes are the HTTPRoutes (Routes.RoutesOf); nil: unknown.
	Routes []*gwv1.HTTPRoute

	index *objectsIndex
}

var (
	_ views.Cluster = (*Objects)(nil)
	_ views.Classes = (*Objects)(nil)
	_ views.Routes  = (*Objects)(nil)
)

// objectsMu guards every Objects' index. One lock for all: a mutex in
// Objects would forbid copying it (go vet), and the callers build and copy
// Objects as plain values; reads of plain objects are short.
var objectsMu sync.Mutex

// objectsIndex is what an Objects' reads answer from: the lists as they
// were indexed (their first element and length, to see when one was
// replaced or grew), and maps by key. Where a list holds the same key twice,
// the first is kept, as a linear search would find it.
type objectsIndex struct {
	gateways, classes, namespaces, grants, secrets, routes listHead
	sets                                                   []*gwv1.ListenerSet // as far as indexed

	gateway   map[string]*gwv1.Gateway
	class     map[string]*gwv1.GatewayClass
	namespace map[string]*metav1.PartialObjectMetadata
	grantsIn  map[string][]*gwv1.ReferenceGrant
	secret    map[string]bool
	parent    map[string][]*gwv1.ListenerSet // by ParentKey
	rivals    map[string][]*gwv1.ListenerSet // by RivalKeys
	routesOf  map[string][]*gwv1.HTTPRoute   // by RouteKeys
	routesAt  map[string][]*gwv1.HTTPRoute   // by RouteClaimKeys
	byName    map[string]*gwv1.ListenerSet   // by ListenerSetKey, the first
}

// listHead identifies a list: where its elements are, and how many.
type listHead struct {
	data unsafe.Pointer
	n    int
}

func headOf[T any](list []T) listHead {
	return listHead{unsafe.Pointer(unsafe.SliceData(list)), len(list)}
}

// indexed returns o's index, brought up to date with o's lists; the caller
// holds objectsMu.
func (o *Objects) indexed() *objectsIndex {
	x := o.index
	if x == nil || headOf(o.Gateways) != x.gateways || headOf(o.Classes) != x.classes || headOf(o.Namespaces) != x.namespaces ||
		headOf(o.Grants) != x.grants || headOf(o.Secrets) != x.secrets || headOf(o.Routes) != x.routes {
		x = o.buildIndex()
	}
	// ListenerSets are appended as the offline command admits them: index
	// the new ones, unless the indexed ones are no longer the list's start.
	if len(o.Sets) < len(x.sets) || (len(x.sets) > 0 && unsafe.SliceData(o.Sets) != unsafe.SliceData(x.sets) && !slices.Equal(o.Sets[:len(x.sets)], x.sets)) {
		x.sets, x.parent, x.rivals, x.byName = nil, map[string][]*gwv1.ListenerSet{}, map[string][]*gwv1.ListenerSet{}, map[string]*gwv1.ListenerSet{}
	}
	for _, ls := range o.Sets[len(x.sets):] {
		if k := ListenerSetKey(ls.Namespace, ls.Name); x.byName[k] == nil {
			x.byName[k] = ls
		}
		if key, ok := ParentKey(ls); ok {
			x.parent[key] = append(x.parent[key], ls)
		}
		for _, key := range RivalKeys(ls) {
			x.rivals[key] = append(x.rivals[key], ls)
		}
	}
	x.sets = o.Sets
	o.index = x
	return x
}

// buildIndex indexes every list but Sets, which indexed adds.
func (o *Objects) buildIndex() *objectsIndex {
	x := &objectsIndex{
		gateways: headOf(o.Gateways), classes: headOf(o.Classes), namespaces: headOf(o.Namespaces), grants: headOf(o.Grants), secrets: headOf(o.Secrets),
		routes: headOf(o.Routes), routesOf: map[string][]*gwv1.HTTPRoute{}, routesAt: map[string][]*gwv1.HTTPRoute{},
		gateway: map[string]*gwv1.Gateway{}, class: map[string]*gwv1.GatewayClass{}, namespace: map[string]*metav1.PartialObjectMetadata{},
		grantsIn: map[string][]*gwv1.ReferenceGrant{}, secret: map[string]bool{},
		parent: map[string][]*gwv1.ListenerSet{}, rivals: map[string][]*gwv1.ListenerSet{}, byName: map[string]*gwv1.ListenerSet{},
	}
	for _, g := range o.Gateways {
		if k := GatewayKey(g.Namespace, g.Name); x.gateway[k] == nil {
			x.gateway[k] = g
		}
	}
	for _, gc := range o.Classes {
		if x.class[gc.Name] == nil {
			x.class[gc.Name] = gc
		}
	}
	for _, n := range o.Namespaces {
		if x.namespace[n.Name] == nil {
			x.namespace[n.Name] = n
		}
	}
	for _, g := range o.Grants {
		x.grantsIn[g.Namespace] = append(x.grantsIn[g.Namespace], g)
	}
	for _, s := range o.Secrets {
		x.secret[s.Namespace+"/"+s.Name] = true
	}
	for _, r := range o.Routes {
		for _, k := range RouteKeys(r) {
			x.routesOf[k] = append(x.routesOf[k], r)
		}
		for _, k := range RouteClaimKeys(r) {
			x.routesAt[k] = append(x.routesAt[k], r)
		}
	}
	// A new index of the other lists starts Sets' again too: the old one
	// may be another copy's.
	return x
}

// read runs f on o's index, up to date, under objectsMu.
func read[T any](o *Objects, f func(*objectsIndex) T) T {
	objectsMu.Lock()
	defer objectsMu.Unlock()
	return f(o.indexed())
}

// capped is list without room to append into: the index appends to its own
// lists, which a caller's append must not overwrite.
func capped[T any](list []T) []T { return list[:len(list):len(list)] }

// Gateway implements Cluster.
func (o *Objects) Gateway(namespace, name string) (*gwv1.Gateway, bool) {
	gw := read(o, func(x *objectsIndex) *gwv1.Gateway { return x.gateway[GatewayKey(namespace, name)] })
	return gw, gw != nil || o.Gateways != nil
}

// GatewayClass implements Classes.
func (o *Objects) GatewayClass(name string) (*gwv1.GatewayClass, bool) {
	gc := read(o, func(x *objectsIndex) *gwv1.GatewayClass { return x.class[name] })
	return gc, gc != nil || o.Classes != nil
}

// ListenerSetsOf implements Cluster from the index by ParentKey, in the
// order of Sets.
func (o *Objects) ListenerSetsOf(gatewayNamespace, gatewayName string) ([]*gwv1.ListenerSet, bool) {
	sets := read(o, func(x *objectsIndex) []*gwv1.ListenerSet {
		return capped(x.parent[GatewayKey(gatewayNamespace, gatewayName)])
	})
	return sets, o.Sets != nil
}

// ListenerSetsAt implements Cluster from the index by RivalKeys, in the
// order of Sets.
func (o *Objects) ListenerSetsAt(key string) ([]*gwv1.ListenerSet, bool) {
	sets := read(o, func(x *objectsIndex) []*gwv1.ListenerSet { return capped(x.rivals[key]) })
	return sets, o.Sets != nil
}

// NamespaceLabels implements Cluster.
func (o *Objects) NamespaceLabels(name string) (map[string]string, bool) {
	ns := read(o, func(x *objectsIndex) *metav1.PartialObjectMetadata { return x.namespace[name] })
	if ns == nil {
		return nil, false
	}
	return ns.Labels, true
}

// NamespaceAnnotations implements Cluster.
func (o *Objects) NamespaceAnnotations(name string) (map[string]string, bool) {
	ns := read(o, func(x *objectsIndex) *metav1.PartialObjectMetadata { return x.namespace[name] })
	if ns == nil {
		return nil, false
	}
	return ns.Annotations, true
}

// ReferenceGrants implements Cluster.
func (o *Objects) ReferenceGrants(namespace string) ([]*gwv1.ReferenceGrant, bool) {
	grants := read(o, func(x *objectsIndex) []*gwv1.ReferenceGrant { return capped(x.grantsIn[namespace]) })
	return grants, o.Grants != nil
}

// SecretExists implements Cluster.
func (o *Objects) SecretExists(namespace, name string) (bool, bool) {
	exists := read(o, func(x *objectsIndex) bool { return x.secret[namespace+"/"+name] })
	return exists, o.Secrets != nil
}

// RoutesOf implements Routes from the index by RouteKeys, in the order of
// Routes.
func (o *Objects) RoutesOf(namespace, name string) ([]*gwv1.HTTPRoute, bool) {
	routes := read(o, func(x *objectsIndex) []*gwv1.HTTPRoute { return capped(x.routesOf[ListenerSetKey(namespace, name)]) })
	return routes, o.Routes != nil
}

// RoutesAt implements Routes from the index by RouteClaimKeys, in the
// order of Routes.
func (o *Objects) RoutesAt(key string) ([]*gwv1.HTTPRoute, bool) {
	routes := read(o, func(x *objectsIndex) []*gwv1.HTTPRoute { return capped(x.routesAt[key]) })
	return routes, o.Routes != nil
}

// ListenerSet implements Cluster and RouteParents from the index by ListenerSetKey.
func (o *Objects) ListenerSet(namespace, name string) (*gwv1.ListenerSet, bool) {
	ls := read(o, func(x *objectsIndex) *gwv1.ListenerSet { return x.byName[ListenerSetKey(namespace, name)] })
	return ls, ls != nil || o.Sets != nil
}
