package routes

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation/field"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/findings"
	"github.com/airlock/listenerset-webhook/validation/internal/incluster"
	"github.com/airlock/listenerset-webhook/validation/internal/views"
)

// Routes that attach to nothing: what the audit and the offline commands
// say of an HTTPRoute whose parentRef names a ListenerSet but attaches to
// none of its listeners, with the reason its parent status will carry
// (Attacher.Attach, the one decision). Only ListenerSets the scope judges
// are looked at: one of another implementation's Gateway is not Airlock's
// to program. A ListenerSet that does not exist has no Gateway to tell
// whose it is: it is judged as the scope judges an unknown parent
// (Scope.Unknown). Routes whose parentRef is a Gateway are not looked at.

// Kinds of the route findings, one per reason.
const (
	// KindRouteNoMatchingParent: no such ListenerSet, or no listener of
	// the parentRef's sectionName or port.
	KindRouteNoMatchingParent findings.WarningKind = "RouteNoMatchingParent"
	// KindRouteNotAllowedByListeners: every listener it could attach to
	// refuses its namespace or kind.
	KindRouteNotAllowedByListeners findings.WarningKind = "RouteNotAllowedByListeners"
	// KindRouteNoMatchingListenerHostname: no listener's hostname
	// intersects the route's hostnames.
	KindRouteNoMatchingListenerHostname findings.WarningKind = "RouteNoMatchingListenerHostname"
)

// Texts of the route findings: the ListenerSet, the detail and the reason.
const (
	warnRouteNotAttached       = "attaches to no listener of ListenerSet %s/%s: %s (%s)"
	warnRouteListenerSetAbsent = "ListenerSet %s/%s not found (%s)"
)

var routeKinds = map[gwv1.RouteConditionReason]findings.WarningKind{
	gwv1.RouteReasonNoMatchingParent:           KindRouteNoMatchingParent,
	gwv1.RouteReasonNotAllowedByListeners:      KindRouteNotAllowedByListeners,
	gwv1.RouteReasonNoMatchingListenerHostname: KindRouteNoMatchingListenerHostname,
}

// JudgeParents gives a warning for each parentRef of route that names a
// ListenerSet scope judges (reading classes) and attaches to none of its
// listeners, at spec.parentRefs[i]. The report is bounded as every report
// is.
func JudgeParents(route *gwv1.HTTPRoute, c views.RouteParents, scope incluster.Scope, classes views.Classes) *findings.WarningReport {
	w := &findings.WarningReport{}
	refsPath := field.NewPath("spec", "parentRefs")
	attachers := map[*gwv1.ListenerSet]*Attacher{}
	for i := range route.Spec.ParentRefs {
		ref := &route.Spec.ParentRefs[i]
		ns, name, ok := incluster.NamesListenerSet(route.Namespace, ref)
		if !ok {
			continue
		}
		ls, known := c.ListenerSet(ns, name)
		switch {
		case !known:
			continue
		case ls == nil:
			if scope.On() && scope.Unknown == incluster.UnknownAdmit {
				continue // whose it would be cannot be told
			}
			routeWarn(w, refsPath.Index(i), KindRouteNoMatchingParent, warnRouteListenerSetAbsent, ns, name, gwv1.RouteReasonNoMatchingParent)
			continue
		}
		if !scope.Decide(ls, classes).Judge {
			continue
		}
		a := attachers[ls]
		if a == nil {
			a = NewAttacher(ls, c.NamespaceLabels)
			attachers[ls] = a
		}
		if at := a.Attach(route, ref); !at.Attached() && at.Known {
			routeWarn(w, refsPath.Index(i), routeKinds[at.Reason], warnRouteNotAttached, ns, name, at.Detail, at.Reason)
		}
	}
	return w
}

// The catalog's causes of the route findings.
var (
	causeRouteNoMatchingParent = routeFindingCause(gwv1.RouteReasonNoMatchingParent,
		"the ListenerSet does not exist, or has no listener of the parentRef's sectionName or port")
	causeRouteNotAllowed = routeFindingCause(gwv1.RouteReasonNotAllowedByListeners,
		"every listener it could attach to refuses the route's namespace (allowedRoutes.namespaces) or kind (allowedRoutes.kinds, or the protocol's)")
	causeRouteNoHostname = routeFindingCause(gwv1.RouteReasonNoMatchingListenerHostname,
		"no hostname of the route intersects the hostname of a listener it could attach to (a wildcard matches by suffix)")
)

// routeFindingCause is the catalog's cause of a route finding.
func routeFindingCause(reason gwv1.RouteConditionReason, what string) string {
	return fmt.Sprintf("An HTTPRoute's parentRef names a ListenerSet of Airlock Microgateway but attaches to none of its listeners: %s. The route's parent status will say Accepted=False, reason %s. Routes whose parent is a Gateway are not looked at. A warning, found by the audit and the offline commands.", what, reason)
}
