package incluster

import (
	"slices"
	"strings"

	"k8s.io/utils/ptr"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/validation/internal/object"
	"github.com/airlock/listenerset-webhook/validation/internal/views"
)

// Rival pruning: the cluster-aware rules judge a ListenerSet by its rows of
// its Gateway's merged list (MergedListeners), merged not from every
// ListenerSet of the Gateway but from the few stored ones that can decide
// its rows (decisive) and the first each of its listeners overlaps
// (overlapRivals), read from the view's index by the keys of keys.go, so
// that a request costs what shares its ports and hostnames, not what its
// Gateway has.

// ListenersInMerge returns ls's rows of gw's merged list (MergedListeners):
// the list built from gw's own listeners, gw's ListenerSets in the cluster
// and ls in the place its creation time gives it (a new object, without
// one, comes last). The stored ListenerSets are taken as valid (the webhook
// admitted them); ls's own errors are judged by its own rules, not here.
//
// The list is merged from the few rivals that decide ls's rows (decisive)
// and the first rival each of ls's listeners overlaps with
// (overlapRivals), not from every ListenerSet of gw: the rows are the full
// list's in all but Precedence, which counts only the listeners merged.
func ListenersInMerge(ls *gwv1.ListenerSet, gw *gwv1.Gateway, admission *GatewayAdmission, c views.Cluster) []MergedListener {
	sets := Decisive(ls, gw, admission, c)
	for _, o := range overlapRivals(ls, gw, admission, c) {
		if !slices.Contains(sets, o) {
			sets = append(sets, o)
		}
	}
	sets = append(sets, ls)
	var rows []MergedListener
	first := -1
	mergeListeners(gw, sets, admission, false, func(row MergedListener, from *gwv1.ListenerSet) bool {
		if from == ls && first < 0 {
			first = len(rows)
		}
		rows = append(rows, row)
		return true
	})
	if first < 0 {
		return nil // ls has no listeners
	}
	markOverlaps(rows)
	return rows[first : first+len(ls.Spec.Listeners)]
}

// overlapRivals returns, for each listener of ls that may have
// OverlappingTLSConfig (HTTPS or HTTP/3), the first stored ListenerSet of
// gw, before or after ls, with a listener on its port and protocol whose
// hostname overlaps (overlap.go), among those gw admits; merged with ls,
// it is the first listener of another ListenerSet the listener overlaps
// with, and it is Accepted whenever ls's listener is: it shares its port
// and protocol, and is the first at its own endpoint (endpoints where gw or
// ls has a listener are skipped: the first there is gw's, ls's, or the
// rival decisive merges for ls's listener there).
//
// A listener's covering hostnames (the wildcards above its hostname, and
// none) are read by EndpointKey, as many keys as its hostname has labels.
// The hostnames under a wildcard, or under none, are not keys of the index:
// for such a listener every rival on its port and protocol (PortKey) is
// read, so the cost is bounded by the rivals on that port, as a
// ProtocolConflict on a port is (decisive); a listener with an exact
// hostname, the usual tenant's, reads only its covering keys.
func overlapRivals(ls *gwv1.ListenerSet, gw *gwv1.Gateway, admission *GatewayAdmission, c views.Cluster) []*gwv1.ListenerSet {
	var picked []*gwv1.ListenerSet
	// The endpoints gw or ls has a listener at: a rival's listener there
	// is not the first there; the one that is, gw's, ls's or the rival
	// decisive finds there, is merged anyway.
	held := make(map[object.Endpoint]bool, len(gw.Spec.Listeners)+len(ls.Spec.Listeners))
	for i := range gw.Spec.Listeners {
		l := &gw.Spec.Listeners[i]
		held[object.EndpointOf(l.Port, l.Protocol, l.Hostname)] = true
	}
	for i := range ls.Spec.Listeners {
		l := &ls.Spec.Listeners[i]
		held[object.EndpointOf(l.Port, l.Protocol, l.Hostname)] = true
	}
	for i := range ls.Spec.Listeners {
		l := &ls.Spec.Listeners[i]
		if !object.TerminatesTLS(l.Protocol) {
			continue
		}
		own := string(object.EndpointOf(l.Port, l.Protocol, l.Hostname).Hostname)
		overlaps := func(e *gwv1.ListenerEntry) bool {
			at := object.EndpointOf(e.Port, e.Protocol, e.Hostname)
			return e.Port == l.Port && e.Protocol == l.Protocol && !held[at] &&
				(object.Covers(string(at.Hostname), own) || object.Covers(own, string(at.Hostname)))
		}
		var lists [][]*gwv1.ListenerSet
		for _, h := range object.CoveringHostnames(own) {
			var hostname *gwv1.Hostname
			if h != "" {
				hostname = ptr.To(gwv1.Hostname(h))
			}
			if sets, _ := c.ListenerSetsAt(EndpointKey(gw.Namespace, gw.Name, l.Port, l.Protocol, hostname)); len(sets) > 0 {
				lists = append(lists, sets)
			}
		}
		if own == "" || strings.HasPrefix(own, object.WildcardPrefix) {
			sets, _ := c.ListenerSetsAt(PortKey(gw.Namespace, gw.Name, l.Port, l.Protocol))
			lists = append(lists, sets)
		}
		var first *gwv1.ListenerSet
		for _, sets := range lists {
			for _, o := range sets {
				if (first == nil || ComparePrecedence(o, first) < 0) && !(o.Namespace == ls.Namespace && o.Name == ls.Name) &&
					hasListener(o, overlaps) && admitsSet(admission, o) {
					first = o
				}
			}
		}
		if first != nil && !slices.Contains(picked, first) {
			picked = append(picked, first)
		}
	}
	return picked
}

// admitsSet tells whether gw (admission) admits ListenerSet o's namespace.
func admitsSet(admission *GatewayAdmission, o *gwv1.ListenerSet) bool {
	allowed, known, _ := admission.admitsSetting(o.Namespace)
	return allowed && known
}

// Decisive returns the stored ListenerSets of gw that decide ls's rows of
// gw's merged list, found through Cluster.ListenerSetsAt, so that a request
// costs what shares ls's ports, not what its Gateway has.
//
// In mergeListeners a listener's state depends only on the listeners before
// it on the same port: the first of them fixes the port's protocol (a
// listener with another one is ProtocolConflict), and the first at the same
// port, protocol and hostname wins a HostnameConflict. Listeners of a
// protocol Airlock does not serve hold no port and are never judged
// against: they count nowhere. A rival counts only
// when it comes before ls (ComparePrecedence; not ls's own stored copy) and
// gw admits its namespace (the others take no place). So for each port of
// ls, the rows need:
//   - at each of ls's endpoints (port, protocol, hostname), the first rival
//     there (EndpointKey): the winner of a HostnameConflict;
//   - the first rival on the port (PortKey), whose protocol is the port's,
//     unless gw has a listener there (gw's own come first) or every listener
//     on the port before ls's has the one protocol ls's listeners there
//     have: then no listener on the port is ProtocolConflict. Telling that
//     needs only the rivals on the port with another protocol, found by
//     protocol; only when some come before ls (a port where some listener
//     is Conflicted already) are all of the port's rivals read, to find the
//     first.
//
// Merging gw, those rivals and ls gives ls's listeners the states, reasons
// and winners the full merge gives them (TestDecisiveRivalsAreTheFullMerge).
func Decisive(ls *gwv1.ListenerSet, gw *gwv1.Gateway, admission *GatewayAdmission, c views.Cluster) []*gwv1.ListenerSet {
	gwNS, gwName := gw.Namespace, gw.Name
	before := func(o *gwv1.ListenerSet) bool {
		if o.Namespace == ls.Namespace && o.Name == ls.Name {
			return false // the stored copy of ls itself (an update)
		}
		if ComparePrecedence(o, ls) >= 0 {
			return false
		}
		return admitsSet(admission, o)
	}
	var picked []*gwv1.ListenerSet
	// pick adds the first set of the lists (in precedence order) that
	// comes before ls and has a listener has accepts.
	pick := func(lists [][]*gwv1.ListenerSet, has func(*gwv1.ListenerEntry) bool) {
		var first *gwv1.ListenerSet
		for _, sets := range lists {
			for _, o := range sets {
				if (first == nil || ComparePrecedence(o, first) < 0) && hasListener(o, has) && before(o) {
					first = o
				}
			}
		}
		if first != nil && !slices.Contains(picked, first) {
			picked = append(picked, first)
		}
	}
	listeners := ls.Spec.Listeners
	for i := range listeners {
		l := &listeners[i]
		if !object.ServedProtocol(l.Protocol) {
			continue // holds no port and conflicts with nothing
		}
		at := object.EndpointOf(l.Port, l.Protocol, l.Hostname)
		if slices.ContainsFunc(listeners[:i], func(e gwv1.ListenerEntry) bool { return object.EndpointOf(e.Port, e.Protocol, e.Hostname) == at }) {
			continue // judged with the earlier listener there
		}
		sets, _ := c.ListenerSetsAt(EndpointKey(gwNS, gwName, l.Port, l.Protocol, l.Hostname))
		pick([][]*gwv1.ListenerSet{sets}, func(e *gwv1.ListenerEntry) bool { return object.EndpointOf(e.Port, e.Protocol, e.Hostname) == at })
	}
	// Only listeners of protocols Airlock serves hold a port.
	served := func(e gwv1.ListenerEntry) bool { return object.ServedProtocol(e.Protocol) }
	for i := range listeners {
		port := listeners[i].Port
		if !served(listeners[i]) {
			continue
		}
		if slices.ContainsFunc(listeners[:i], func(e gwv1.ListenerEntry) bool { return e.Port == port && served(e) }) {
			continue // judged with the earlier listener on the port
		}
		if slices.ContainsFunc(gw.Spec.Listeners, func(l gwv1.Listener) bool { return l.Port == port && object.ServedProtocol(l.Protocol) }) {
			continue // gw's own listeners fix the port's protocol
		}
		var protocols []gwv1.ProtocolType // ls's on the port
		for _, e := range listeners[i:] {
			if e.Port == port && served(e) && !slices.Contains(protocols, e.Protocol) {
				protocols = append(protocols, e.Protocol)
			}
		}
		onPort := func(e *gwv1.ListenerEntry) bool { return e.Port == port && served(*e) }
		otherProtocol := func(e *gwv1.ListenerEntry) bool { return onPort(e) && !slices.Contains(protocols, e.Protocol) }
		var onPortSets [][]*gwv1.ListenerSet // by protocol
		mixed := len(protocols) > 1
		for _, key := range portKeys(gwNS, gwName, port, protocols, false) {
			sets, _ := c.ListenerSetsAt(key)
			if len(sets) > 0 {
				onPortSets = append(onPortSets, sets)
				mixed = mixed || slices.ContainsFunc(sets, func(o *gwv1.ListenerSet) bool { return hasListener(o, otherProtocol) && before(o) })
			}
		}
		if !mixed {
			continue
		}
		for _, key := range portKeys(gwNS, gwName, port, protocols, true) {
			sets, _ := c.ListenerSetsAt(key)
			onPortSets = append(onPortSets, sets)
		}
		pick(onPortSets, onPort)
	}
	return picked
}

// hasListener tells whether one of ls's listeners has has.
func hasListener(ls *gwv1.ListenerSet, has func(*gwv1.ListenerEntry) bool) bool {
	for i := range ls.Spec.Listeners {
		if has(&ls.Spec.Listeners[i]) {
			return true
		}
	}
	return false
}
