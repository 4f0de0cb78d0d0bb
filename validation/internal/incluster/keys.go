package incluster

import (
	"slices"
	"strconv"
	"strings"

	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/validation/internal/object"
)

// The index keys: what a view of the cluster (Objects, the webhook's
// clusterview) files ListenerSets and HTTPRoutes under, and what the rules
// ask it for. Each key is computed by one function here, used by the index
// and the rules alike, so the two cannot drift apart: ParentKey and
// GatewayKey (a Gateway's ListenerSets, Cluster.ListenerSetsOf), RivalKeys
// with PortKey, EndpointKey, ClaimKey and UnderKey (the few rivals that can
// decide a listener, Cluster.ListenerSetsAt), RouteKeys and ListenerSetKey
// (the routes naming a ListenerSet, Routes.RoutesOf).

// ParentKey is the key of the Gateway ls's parentRef names, as
// Cluster.ListenerSetsOf answers by (GatewayKey of that Gateway); ok=false
// when it names no Gateway. An index of ListenerSets by parent must compute
// its keys with this function, not a copy of the decision.
func ParentKey(ls *gwv1.ListenerSet) (key string, ok bool) {
	ns, name, ok := object.ParentOf(ls)
	if !ok {
		return "", false
	}
	return GatewayKey(ns, name), true
}

// GatewayKey is the ParentKey of the ListenerSets of Gateway
// namespace/name: what an index by ParentKey is asked for.
func GatewayKey(namespace, name string) string { return namespace + "/" + name }

// RivalKeys are the keys an index of ListenerSets files ls under, for
// Cluster.ListenerSetsAt: for each of its listeners the PortKey of its port
// and protocol, the EndpointKey of its port, protocol and hostname and, for a
// listener that claims a hostname, its claimKeys (ClaimKey, UnderKey), under
// the Gateway its parentRef names (ParentKey); none when it names no Gateway.
// An index must compute its keys with this function, and the rules ask with
// PortKey and EndpointKey, so the two cannot drift apart.
func RivalKeys(ls *gwv1.ListenerSet) []string {
	ns, name, ok := object.ParentOf(ls)
	if !ok {
		return nil
	}
	keys := make([]string, 0, 3*len(ls.Spec.Listeners))
	seen := make(map[string]bool, 3*len(ls.Spec.Listeners))
	add := func(k string) {
		if !seen[k] {
			seen[k] = true
			keys = append(keys, k)
		}
	}
	for i := range ls.Spec.Listeners {
		l := &ls.Spec.Listeners[i]
		add(PortKey(ns, name, l.Port, l.Protocol))
		add(EndpointKey(ns, name, l.Port, l.Protocol, l.Hostname))
		if claims(l) {
			claimKeys(ns, name, string(*l.Hostname), add)
		}
	}
	return keys
}

// keyedProtocols are the protocols PortKey files under their own name:
// Gateway API's core and extended ones and Airlock's. Any other protocol is
// filed under otherProtocols, so that the rules can ask for "every protocol
// but these" with a fixed number of keys.
var keyedProtocols = []gwv1.ProtocolType{
	gwv1.HTTPProtocolType, gwv1.HTTPSProtocolType, gwv1.TLSProtocolType, gwv1.TCPProtocolType, gwv1.UDPProtocolType, object.ProtocolHTTP3,
}

// otherProtocols is PortKey's name for the protocols keyedProtocols does not list.
const otherProtocols = "*"

// PortKey is the key of Gateway namespace/name's ListenerSets with a
// listener on port with protocol (RivalKeys).
func PortKey(namespace, name string, port gwv1.PortNumber, protocol gwv1.ProtocolType) string {
	p := otherProtocols
	if slices.Contains(keyedProtocols, protocol) {
		p = string(protocol)
	}
	return "port " + GatewayKey(namespace, name) + " " + strconv.Itoa(int(port)) + " " + p
}

// EndpointKey is the key of Gateway namespace/name's ListenerSets with a
// listener on port with protocol and hostname (nil: none) (RivalKeys).
func EndpointKey(namespace, name string, port gwv1.PortNumber, protocol gwv1.ProtocolType, hostname *gwv1.Hostname) string {
	e := object.EndpointOf(port, protocol, hostname)
	return "endpoint " + GatewayKey(namespace, name) + " " + strconv.Itoa(int(port)) + " " + string(e.Protocol) + " " + string(e.Hostname)
}

// portKeys are the PortKeys on port of the protocols Airlock serves other
// than protocols, or, with same, of protocols themselves: a listener of
// another protocol holds no port, so its key is never read.
func portKeys(namespace, name string, port gwv1.PortNumber, protocols []gwv1.ProtocolType, same bool) []string {
	var keys []string
	for _, p := range object.SupportedProtocols {
		if slices.Contains(protocols, p) == same {
			keys = append(keys, PortKey(namespace, name, port, p))
		}
	}
	return keys
}

// ClaimKey is the key of Gateway namespace/name's ListenerSets with a
// listener claiming hostname h (RivalKeys), UnderKey that of those with a
// listener claiming a hostname under wildcard w: the first-claim rule
// finds a hostname's overlaps, above, equal and below, by its covering
// hostnames (coveringHostnames), in as many reads as it has labels.
func ClaimKey(namespace, name, h string) string {
	return "claim " + GatewayKey(namespace, name) + " " + h
}

// underKey: see ClaimKey.
func underKey(namespace, name, w string) string {
	return "under " + GatewayKey(namespace, name) + " " + w
}

// claimKeys are the ClaimKey and UnderKeys a listener with hostname h is
// filed under, on Gateway namespace/name.
func claimKeys(namespace, name, h string, add func(string)) {
	add(ClaimKey(namespace, name, h))
	for _, w := range object.CoveringHostnames(h) {
		if w != "" {
			add(underKey(namespace, name, w))
		}
	}
}

// overlapKeys hands read the keys under which claimKeys files the listeners
// whose hostname overlaps h on Gateway namespace/name: h itself
// (ClaimKey), the wildcards above it (ClaimKey of each covering hostname)
// and, for a wildcard, the names under it (UnderKey). The first-claim rule
// reads the index by them, markClaims its own map.
func overlapKeys(namespace, name, h string, read func(string)) {
	read(ClaimKey(namespace, name, h))
	for _, w := range object.CoveringHostnames(h) {
		if w != "" {
			read(ClaimKey(namespace, name, w))
		}
	}
	if strings.HasPrefix(h, object.WildcardPrefix) {
		read(underKey(namespace, name, h))
	}
}

// RouteKeys are the ListenerSetKeys of the ListenerSets route's parentRefs
// name, each once: what an index of routes files a route under, so that a
// view answers Routes.RoutesOf by it.
func RouteKeys(route *gwv1.HTTPRoute) []string {
	var keys []string
	for i := range route.Spec.ParentRefs {
		if ns, name, ok := NamesListenerSet(route.Namespace, &route.Spec.ParentRefs[i]); ok {
			if k := ListenerSetKey(ns, name); !slices.Contains(keys, k) {
				keys = append(keys, k)
			}
		}
	}
	return keys
}

// ListenerSetKey is the key RouteKeys files the routes naming ListenerSet
// namespace/name under.
func ListenerSetKey(namespace, name string) string { return namespace + "/" + name }

// NamesListenerSet tells whether ref, a parentRef of an HTTPRoute in
// namespace routeNamespace, names a ListenerSet, and which. Group and kind
// are read as the CRD defaults them (gateway.networking.k8s.io, Gateway).
func NamesListenerSet(routeNamespace string, ref *gwv1.ParentReference) (namespace, name string, ok bool) {
	if ref.Group != nil && *ref.Group != gwv1.GroupName || ref.Kind == nil || *ref.Kind != object.ListenerSetKind || ref.Name == "" {
		return "", "", false
	}
	namespace = routeNamespace
	if ref.Namespace != nil && *ref.Namespace != "" {
		namespace = string(*ref.Namespace)
	}
	return namespace, string(ref.Name), true
}

// RouteClaimKeys are the keys an index of HTTPRoutes files route under,
// for Routes.RoutesAt: the claimKeys of each of its hostnames, under no
// Gateway (a route names ListenerSets, and which Gateway each is on can
// change without the route: the claim rules read the parents anew). A
// route without hostnames claims no name of its own.
func RouteClaimKeys(route *gwv1.HTTPRoute) []string {
	var keys []string
	for _, h := range route.Spec.Hostnames {
		claimKeys("", "", string(h), func(k string) {
			if !slices.Contains(keys, k) {
				keys = append(keys, k)
			}
		})
	}
	return keys
}

// RouteOverlapKeys hands read the keys under which RouteClaimKeys files
// the routes with a hostname overlapping h (overlapKeys).
func RouteOverlapKeys(h string, read func(string)) { overlapKeys("", "", h, read) }
