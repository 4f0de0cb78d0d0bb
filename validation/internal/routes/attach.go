package routes

import (
	"fmt"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/validation/internal/object"
	"github.com/airlock/listenerset-webhook/validation/internal/views"
)

// Route attachment: the one decision of whether an HTTPRoute's parentRef
// attaches to a ListenerSet's listeners, which the webhook (the routes an
// update or a deletion detaches), the listeners command (each listener's
// attachedRoutes) and the audit (routes that attach to nothing) all call.
//
// Gateway API's rules, as the ListenerSet reference and HTTPRoute's
// parentRefs and hostnames state them: a parentRef of group
// gateway.networking.k8s.io and kind ListenerSet names the set (its
// namespace defaults to the route's); sectionName names one listener,
// port one port, and without either every listener that admits the route
// is a candidate ("For the purpose of status, an attachment is considered
// successful if at least one section in the parent resource accepts it").
// A listener admits the route when its allowedRoutes admits the route's
// namespace (from Same: the ListenerSet's namespace; All; Selector: the
// namespace's labels) and kind (kinds, or when empty the protocol's: HTTP,
// HTTPS and HTTP/3 take HTTPRoutes), and, where both the listener and the
// route set hostnames, one of the route's hostnames intersects the
// listener's: "If both the Listener and HTTPRoute have specified
// hostnames, and none match ..., then the HTTPRoute is not accepted."
//
// Routes whose parentRef is a Gateway itself are not judged here: they
// attach to the Gateway's own listeners, which are not a ListenerSet's.

// Attachment is what Attacher.Attach decides for one parentRef.
type Attachment struct {
	// Listeners are the names of the listeners the parentRef attaches to,
	// in the set's order.
	Listeners []gwv1.SectionName
	// Known is false when it attaches to none that is known, and some
	// listener's answer needs a namespace's labels the view does not know:
	// nothing is said then, never a guessed detach.
	Known bool
	// Reason, when it attaches to none and Known, is the reason the
	// route's parent status will carry: NoMatchingParent (no listener
	// has the sectionName or port), NotAllowedByListeners (every candidate
	// refuses the namespace or kind), NoMatchingListenerHostname (the
	// others' hostnames do not intersect the route's). Detail says which.
	Reason gwv1.RouteConditionReason
	Detail string
}

// Attached tells whether the parentRef attaches to at least one listener.
func (a Attachment) Attached() bool { return len(a.Listeners) > 0 }

// Details of an attachment to nothing.
const (
	detailNoSection           = "no listener named %q"
	detailNoPort              = "no listener on port %d"
	detailNoSectionOnPort     = "no listener named %q on port %d"
	detailNoListenerAttaches  = "the ListenerSet has no listeners"
	detailNamespaceNotAllowed = "namespace %q not allowed by listener %q (allowedRoutes.namespaces.from: %s)"
	detailKindNotAllowed      = "kind HTTPRoute not allowed by listener %q (allowedRoutes.kinds, protocol %s)"
	detailNoHostname          = "no hostname of the route intersects hostname %s of listener %q"
)

// Attacher decides attachments to one ListenerSet's listeners: each
// listener's selector is parsed once and each namespace's labels read
// once, however many routes are judged.
type Attacher struct {
	ls        *gwv1.ListenerSet
	labels    views.NamespaceLabelsFunc
	selectors []labels.Selector // per listener; nil when not from Selector or invalid
	nsLabels  map[string]nsLabels
}

type nsLabels struct {
	set   labels.Set
	known bool
}

// NewAttacher is the Attacher of ls, judged as defaults.ListenerSet
// defaults it; nsLabels answers for from: Selector (nil: unknown).
func NewAttacher(ls *gwv1.ListenerSet, nsLabels views.NamespaceLabelsFunc) *Attacher {
	ls = object.Defaulted(ls)
	a := &Attacher{ls: ls, labels: nsLabels, selectors: make([]labels.Selector, len(ls.Spec.Listeners))}
	for i := range ls.Spec.Listeners {
		if ns := routeNamespaces(&ls.Spec.Listeners[i]); ns != nil && ns.From != nil && *ns.From == gwv1.NamespacesFromSelector && ns.Selector != nil {
			if sel, err := metav1.LabelSelectorAsSelector(ns.Selector); err == nil {
				a.selectors[i] = sel
			}
		}
	}
	return a
}

func routeNamespaces(l *gwv1.ListenerEntry) *gwv1.RouteNamespaces {
	if l.AllowedRoutes == nil {
		return nil
	}
	return l.AllowedRoutes.Namespaces
}

// Attach decides route's parentRef ref, which names the Attacher's
// ListenerSet (NamesListenerSet), against its listeners.
func (a *Attacher) Attach(route *gwv1.HTTPRoute, ref *gwv1.ParentReference) Attachment {
	return a.attach(route, ref, true)
}

// attach is Attach; without detail, an attachment to nothing has its
// reason but no Detail, which costs nothing to build.
func (a *Attacher) attach(route *gwv1.HTTPRoute, ref *gwv1.ParentReference, detail bool) Attachment {
	listeners := a.ls.Spec.Listeners
	var out Attachment
	candidates, unknown, refused := 0, false, 0
	firstRefused, firstRefusal, firstHostname := -1, routeAdmitted, -1
	for i := range listeners {
		l := &listeners[i]
		if ref.SectionName != nil && *ref.SectionName != "" && *ref.SectionName != l.Name {
			continue
		}
		if ref.Port != nil && *ref.Port != l.Port {
			continue
		}
		candidates++
		switch r := a.admits(i, route.Namespace); r {
		case routeAdmitted:
		case routeUnknown:
			unknown = true
			continue
		default:
			refused++
			if firstRefused < 0 {
				firstRefused, firstRefusal = i, r
			}
			continue
		}
		if !hostnamesIntersect(l.Hostname, route.Spec.Hostnames) {
			if firstHostname < 0 {
				firstHostname = i
			}
			continue
		}
		out.Listeners = append(out.Listeners, l.Name)
	}
	switch {
	case out.Attached():
		out.Known = true
	case unknown:
		// Not known to attach to any: nothing to say.
	case candidates == 0:
		out.Known, out.Reason = true, gwv1.RouteReasonNoMatchingParent
		if detail {
			out.Detail = noCandidate(ref)
		}
	case refused == candidates:
		out.Known, out.Reason = true, gwv1.RouteReasonNotAllowedByListeners
		if detail {
			out.Detail = a.refusal(firstRefused, firstRefusal, route.Namespace)
		}
	default:
		out.Known, out.Reason = true, gwv1.RouteReasonNoMatchingListenerHostname
		if detail {
			l := &listeners[firstHostname]
			out.Detail = fmt.Sprintf(detailNoHostname, string(*l.Hostname), string(l.Name))
		}
	}
	return out
}

// noCandidate is the detail of a parentRef whose sectionName and port
// select no listener.
func noCandidate(ref *gwv1.ParentReference) string {
	section := ref.SectionName != nil && *ref.SectionName != ""
	switch {
	case section && ref.Port != nil:
		return fmt.Sprintf(detailNoSectionOnPort, string(*ref.SectionName), *ref.Port)
	case section:
		return fmt.Sprintf(detailNoSection, string(*ref.SectionName))
	case ref.Port != nil:
		return fmt.Sprintf(detailNoPort, *ref.Port)
	default:
		return detailNoListenerAttaches
	}
}

// routeAdmission is what a listener's allowedRoutes makes of a route.
type routeAdmission int

const (
	routeAdmitted routeAdmission = iota
	routeUnknown
	routeKindRefused
	routeNamespaceRefused
)

// refusal is the detail of listener i's refusal r of a route of namespace.
func (a *Attacher) refusal(i int, r routeAdmission, namespace string) string {
	l := &a.ls.Spec.Listeners[i]
	if r == routeKindRefused {
		return fmt.Sprintf(detailKindNotAllowed, string(l.Name), string(l.Protocol))
	}
	return fmt.Sprintf(detailNamespaceNotAllowed, namespace, string(l.Name), string(fromOf(l)))
}

// fromOf is a listener's allowedRoutes.namespaces.from, Same when unset.
func fromOf(l *gwv1.ListenerEntry) gwv1.FromNamespaces {
	if ns := routeNamespaces(l); ns != nil && ns.From != nil {
		return *ns.From
	}
	return gwv1.NamespacesFromSame
}

// Admits applies listener i's allowedRoutes to an HTTPRoute of namespace.
func (a *Attacher) admits(i int, namespace string) routeAdmission {
	l := &a.ls.Spec.Listeners[i]
	if !admitsHTTPRoute(l) {
		return routeKindRefused
	}
	switch fromOf(l) {
	case gwv1.NamespacesFromAll:
		return routeAdmitted
	case gwv1.NamespacesFromSame:
		if namespace == a.ls.Namespace {
			return routeAdmitted
		}
	case gwv1.NamespacesFromSelector:
		sel := a.selectors[i]
		if sel == nil {
			return routeNamespaceRefused // no selector, or an invalid one: the object's own error
		}
		set, known := a.namespaceLabels(namespace)
		if !known {
			return routeUnknown
		}
		if sel.Matches(set) {
			return routeAdmitted
		}
	}
	return routeNamespaceRefused
}

func (a *Attacher) namespaceLabels(namespace string) (labels.Set, bool) {
	if r, ok := a.nsLabels[namespace]; ok {
		return r.set, r.known
	}
	var r nsLabels
	if a.labels != nil {
		var m map[string]string
		m, r.known = a.labels(namespace)
		r.set = labels.Set(m)
	}
	if a.nsLabels == nil {
		a.nsLabels = map[string]nsLabels{}
	}
	a.nsLabels[namespace] = r
	return r.set, r.known
}

// admitsHTTPRoute: allowedRoutes.kinds, or when empty the kinds of the
// listener's protocol (Gateway API: "When unspecified or empty, the kinds
// of Routes selected are determined using the Listener protocol"): HTTP,
// HTTPS and Airlock's HTTP/3 take HTTPRoutes, no other protocol does.
func admitsHTTPRoute(l *gwv1.ListenerEntry) bool {
	if l.AllowedRoutes == nil || len(l.AllowedRoutes.Kinds) == 0 {
		return object.ServedProtocol(l.Protocol)
	}
	return slices.ContainsFunc(l.AllowedRoutes.Kinds, func(k gwv1.RouteGroupKind) bool {
		return (k.Group == nil || *k.Group == gwv1.GroupName) && k.Kind == object.HTTPRouteKind
	})
}

// hostnamesIntersect: a listener without a hostname, or a route without
// hostnames, matches every name; otherwise one of the route's hostnames
// must intersect the listener's: equal, or one a wildcard above the other
// ("*.example.com" matches test.example.com and foo.test.example.com, not
// example.com).
func hostnamesIntersect(listener *gwv1.Hostname, route []gwv1.Hostname) bool {
	if listener == nil || *listener == "" || len(route) == 0 {
		return true
	}
	lh := string(*listener)
	for _, h := range route {
		rh := string(h)
		if rh == lh || rh != "" && (object.Covers(lh, rh) || object.Covers(rh, lh)) {
			return true
		}
	}
	return false
}
