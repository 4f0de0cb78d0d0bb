package views

import (
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// The read-only views the rules read the cluster through, each passed
// explicitly (Options.Cluster, Options.Classes, Options.Routes, JudgeRoute's
// parents, a NamespaceLabelsFunc). Every method says known=false when the
// view cannot tell (a cache that has not synced, an offline input without
// objects of that kind); the rule that needs the answer is then skipped,
// never guessed. merged.Objects implements them all over plain
// objects, the webhook's clusterview over its informer caches.

// Cluster is a read-only view of the objects around a ListenerSet: its parent
// Gateway, that Gateway's other ListenerSets, namespaces, ReferenceGrants and
// Secrets. Each method says known=false when the view cannot tell (a cache
// that has not synced, an offline input without objects of that kind); the
// rule that needs the answer is then skipped, never guessed.
type Cluster interface {
	// Gateway returns the Gateway, or nil when it does not exist.
	Gateway(namespace, name string) (gw *gwv1.Gateway, known bool)
	// ListenerSetsOf returns the ListenerSets whose parentRef names the
	// Gateway gatewayNamespace/gatewayName, in any order: those whose
	// ParentKey is GatewayKey(gatewayNamespace, gatewayName), and no others.
	// A view answers from an index by ParentKey (or filters by it), so that
	// it costs what that Gateway has, not what the cluster has; the
	// ListenerSet being validated may be among them (its stored copy). The
	// merged list of a whole Gateway (MergedListeners, the listeners
	// command) is built from them; the rules read ListenerSetsAt.
	ListenerSetsOf(gatewayNamespace, gatewayName string) (sets []*gwv1.ListenerSet, known bool)
	// ListenerSetsAt returns the ListenerSets RivalKeys files under key, in
	// any order: a Gateway's ListenerSets with a listener on a port with a
	// protocol (PortKey), or at a port, protocol and hostname
	// (EndpointKey). A view answers from an index whose keys RivalKeys
	// computes, so that the conflict rule reads the few rivals that can
	// decide a ListenerSet's listeners, not all of its Gateway's
	// (listenersInMerge). It may return more (the rule looks at the
	// listeners again), never fewer.
	ListenerSetsAt(key string) (sets []*gwv1.ListenerSet, known bool)
	// NamespaceLabels returns a namespace's labels (nil when it does not exist).
	NamespaceLabels(name string) (labels map[string]string, known bool)
	// ListenerSet returns a ListenerSet by name, nil when it does not
	// exist: the parent an HTTPRoute names (RouteParents).
	ListenerSet(namespace, name string) (ls *gwv1.ListenerSet, known bool)
	// NamespaceAnnotations returns a namespace's annotations, at least
	// the declarations' (Tenancy.Annotation); nil when it does not exist.
	NamespaceAnnotations(name string) (annotations map[string]string, known bool)
	// ReferenceGrants returns the ReferenceGrants of a namespace.
	ReferenceGrants(namespace string) (grants []*gwv1.ReferenceGrant, known bool)
	// SecretExists tells whether a Secret exists, from its metadata only.
	SecretExists(namespace, name string) (exists, known bool)
}

// Classes is the read-only view the scope decision needs: a Gateway by
// name, a GatewayClass by name. known=false when the view cannot tell.
type Classes interface {
	// Gateway returns the Gateway, or nil when it does not exist.
	Gateway(namespace, name string) (gw *gwv1.Gateway, known bool)
	// GatewayClass returns the GatewayClass, or nil when it does not exist.
	GatewayClass(name string) (gc *gwv1.GatewayClass, known bool)
}

// Routes is the read-only view of the HTTPRoutes that name ListenerSets:
// Options.Routes, from which an update or deletion is told the routes it
// detaches (detach.go); nil gives no such warning.
type Routes interface {
	// RoutesOf returns the HTTPRoutes with a parentRef naming ListenerSet
	// namespace/name (RouteKeys), in any order; known=false when the view
	// cannot tell.
	RoutesOf(namespace, name string) (routes []*gwv1.HTTPRoute, known bool)
	// RoutesAt returns the HTTPRoutes RouteClaimKeys files under key, in
	// any order: the routes with a hostname key overlaps, whichever
	// Gateway they reach (the claim rules filter them by their parents),
	// so that a claim reads the routes whose names may overlap it, not
	// every route of its Gateway. It may return more, never fewer.
	RoutesAt(key string) (routes []*gwv1.HTTPRoute, known bool)
}

// RouteParents is what JudgeRoute reads: the ListenerSets a route names and
// namespaces' labels. known=false when the view cannot tell.
type RouteParents interface {
	// ListenerSet returns the ListenerSet, nil when it does not exist.
	ListenerSet(namespace, name string) (ls *gwv1.ListenerSet, known bool)
	NamespaceLabels(name string) (labels map[string]string, known bool)
}

// NamespaceLabelsFunc reads a namespace's labels, known=false when the
// view cannot tell (Cluster.NamespaceLabels).
type NamespaceLabelsFunc func(name string) (labels map[string]string, known bool)
