package routes

import (
	"slices"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/airlock/listenerset-webhook/findings"
	"github.com/airlock/listenerset-webhook/validation/internal/incluster"
	"github.com/airlock/listenerset-webhook/validation/internal/object"
)

// The codes of the findings about routes.
const (
	CodeRoutesDetached        findings.Code = "LS310"
	CodeRouteNoMatchingParent findings.Code = "LS311"
	CodeRouteNotAllowed       findings.Code = "LS312"
	CodeRouteNoHostname       findings.Code = "LS313"
	// The route claims (routeclaims.go).
	CodeRouteHostnameNotDeclared findings.Code = "LS319"
	CodeRouteHostnameClaimed     findings.Code = "LS320"
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
	{Code: CodeRouteHostnameNotDeclared, Kind: findings.CodeKindCluster, Title: "Route hostname not declared for the namespace", Paths: []string{"spec.hostnames", "spec.hostnames[*]", "spec.listeners", object.ListenerPathPattern},
		Cause: "The HTTPRoute attaches to a listener of an Airlock ListenerSet that has no hostname, or a wildcard, so it claims the names of its spec.hostnames on that listener's Gateway (on another port too: cookies are shared across the ports of a host, RFC 6265 §8.5). Its Namespace declares the hostnames it may claim (the annotation " + incluster.DefaultAllowedHostnamesAnnotation + ", or the key the webhook is configured with), as for its ListenerSets, and this hostname is not covered; a route without hostnames on a listener without one claims every name and needs \"*\". An error in every mode, judged when the route is created or updated (a hostname the stored route had on the same Gateway is ratcheted), and when a ListenerSet's write gives a stored route the claim (the set created or moved with routes attached, a listener without a hostname or with a wildcard added or changed under them): then at that listener, naming the route.",
		Fix:   "Use a hostname the Namespace declares, or ask the platform team to declare it on the Namespace; for a ListenerSet's write, give the listener a hostname of its own, or change the route's hostnames or parentRefs first."},
	{Code: CodeRouteHostnameClaimed, Kind: findings.CodeKindCluster, Title: "Route hostname held by another owner", Paths: []string{"spec.hostnames[*]", "spec.listeners", object.ListenerPathPattern},
		Cause: "The HTTPRoute claims a name on a Gateway through a listener without a hostname, or a wildcard (as LS319 says), and on the same Gateway another owner's listener or HTTPRoute holds an overlapping name, on any port: the first claim keeps it (who came to the Gateway first: a route's creation, or when its parentRefs were written). Judged when the route is written, and when a ListenerSet's write gives a stored route the claim (as LS319 says: then at that listener, naming the route). A warning by default, an error with --first-claim=deny, nothing with off.",
		Fix:   "Use a hostname of your own; if the name is yours, ask the holder's owner to release it; the listeners command shows who holds what. For a ListenerSet's write, give the listener a hostname of its own, or change the route first."},
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
