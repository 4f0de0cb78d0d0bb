package routes

import (
	"slices"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/airlock/listenerset-webhook/validation/findings"
	"github.com/airlock/listenerset-webhook/validation/object"
)

// The codes of the findings about routes.
const (
	CodeRoutesDetached        findings.Code = "LS310"
	CodeRouteNoMatchingParent findings.Code = "LS311"
	CodeRouteNotAllowed       findings.Code = "LS312"
	CodeRouteNoHostname       findings.Code = "LS313"
)

// routeCodeDocs describes the codes of the findings about routes.
var routeCodeDocs = []findings.CodeDoc{
	{Code: CodeRoutesDetached, Kind: findings.CodeKindCluster, Title: "HTTPRoutes the change detaches", Paths: []string{"spec.listeners", object.ListenerPathPattern}, WarningKind: KindRoutesDetached,
		Cause: "HTTPRoutes attach to the ListenerSet through this listener (by sectionName, by port, or to the whole set) and, after the update or the deletion, would attach to none of its listeners: the listener is renamed or removed, its port or hostname changes, or its allowedRoutes no longer admits them. The routes stop serving, and their status says so only afterwards. Routes whose parent is the Gateway itself are not looked at. A warning only, also under strict.",
		Fix:   "Nothing, if that is meant; otherwise keep the listener as it was, or change the routes' parentRefs (sectionName, port) or hostnames first."},
	{Code: CodeRouteNoMatchingParent, Kind: findings.CodeKindCluster, Title: "Route names no such ListenerSet or listener", Paths: []string{"spec.parentRefs[*]"}, WarningKind: KindRouteNoMatchingParent,
		Cause: causeRouteNoMatchingParent,
		Fix:   "Correct the parentRef's name, sectionName or port; the listeners command shows the set's listeners."},
	{Code: CodeRouteNotAllowed, Kind: findings.CodeKindCluster, Title: "Route not allowed by the listeners", Paths: []string{"spec.parentRefs[*]"}, WarningKind: KindRouteNotAllowedByListeners,
		Cause: causeRouteNotAllowed,
		Fix:   "Ask the ListenerSet's owner to admit the route's namespace, or attach to a listener that does."},
	{Code: CodeRouteNoHostname, Kind: findings.CodeKindCluster, Title: "No listener hostname intersects the route's", Paths: []string{"spec.parentRefs[*]"}, WarningKind: KindRouteNoMatchingListenerHostname,
		Cause: causeRouteNoHostname,
		Fix:   "Use a hostname the listener serves, or attach to the listener that serves the route's hostname."},
}

// routeKindCodes is the code of each warning kind about routes.
var routeKindCodes = findings.CodesByKind(routeCodeDocs)

// routeWarn records a warning of kind k on p in w, with k's code
// (routeKindCodes), its message format with args.
func routeWarn(w *findings.WarningReport, p *field.Path, k findings.WarningKind, format string, args ...any) {
	w.Addf(p, k, routeKindCodes[k], format, args...)
}

// RouteCodes are the codes of the findings about routes, for the catalog.
func RouteCodes() []findings.CodeDoc { return slices.Clone(routeCodeDocs) }
