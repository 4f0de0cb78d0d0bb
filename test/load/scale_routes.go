package main

// The route-creates shape (-scale-shape=route-creates): what an HTTPRoute
// create costs the webhook (validation.JudgeRoute: the route claims and
// the parents) as the Gateway fills with ListenerSets and routes. The
// cluster is the owners shape's (1 000 owner namespaces declaring their
// domains, every set on the first Gateway), and: each owner's first set
// has a listener without a hostname on a port of its own, and as many
// HTTPRoutes as sets, each of its owner's namespace, with hostnames under
// its owner's domain, attached to its owner's listener without a hostname
// or to its owner's wildcard, so that each holds claims. The measured
// creates are owner 1's routes on its set "route-side" (a listener without
// a hostname, there at every size, as routedCluster is in
// validation/routeclaims_scale_test.go); alone, on the same set's twin on
// the Gateway without sets. After them the worst route
// (validationtest.WorstRoute) goes to the webhook directly, as
// -scale-worst's requests do (docs/performance.md, "Worst objects").

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"time"

	"github.com/airlock/listenerset-webhook/validation"

	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/test/load/fixtures"
	"github.com/airlock/listenerset-webhook/validation/validationtest"
	"github.com/airlock/listenerset-webhook/webhook/admission"
)

const shapeRouteCreates = "route-creates"

// ownedShape tells whether the shape's sets are in the owner namespaces.
func ownedShape(shape string) bool { return shape == shapeOwners || shape == shapeRouteCreates }

// The route-creates shape's sets besides the populated ones, there at
// every size: the measured routes' parent on the first Gateway and its
// twin on the Gateway without sets (owner 1's), and the probes' parent
// (in the second team namespace, which declares nothing), each with one
// HTTP listener "open" without a hostname.
const (
	routeSideSet      = "route-side"
	routeSideAloneSet = "route-side-alone"
	routeProbeSet     = "route-probe"
	routeOpenListener = "open"
	routeSidePort     = 9090
	routeProbePort    = 9191
	// routeOpenPorts: owner o's listener without a hostname is on
	// routeOpenPorts+o, apart from every other owner's.
	routeOpenPorts = 10000
)

// openListener is an HTTP listener without a hostname on port.
func openListener(port int) gwv1.ListenerEntry {
	return gwv1.ListenerEntry{Name: routeOpenListener, Port: gwv1.PortNumber(port), Protocol: gwv1.HTTPProtocolType}
}

// openSet is a set of namespace on Gateway gwNamespace/gwName with one
// listener without a hostname.
func openSet(namespace, name, gwNamespace, gwName string, port int) *gwv1.ListenerSet {
	return &gwv1.ListenerSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name, Labels: map[string]string{"app.kubernetes.io/part-of": "scale"}},
		Spec: gwv1.ListenerSetSpec{
			ParentRef: gwv1.ParentGatewayReference{Name: gwv1.ObjectName(gwName), Namespace: ptr.To(gwv1.Namespace(gwNamespace))},
			Listeners: []gwv1.ListenerEntry{openListener(port)},
		},
	}
}

// routeBaseSets are what base creates for the route-creates shape: the
// measured routes' parents, the probes' and the worst route's
// (validationtest.WorstRouteSets, owner 1's, on the first Gateway).
func routeBaseSets() []*gwv1.ListenerSet {
	own := validationtest.OwnerNamespace(scaleMeasuredOwner)
	sets := []*gwv1.ListenerSet{
		openSet(own, routeSideSet, scaleNS(0), scaleGateway, routeSidePort),
		openSet(own, routeSideAloneSet, scaleNS(0), scaleAloneGateway, routeSidePort),
		openSet(scaleNS(1), routeProbeSet, scaleNS(0), scaleGateway, routeProbePort),
	}
	for _, ls := range validationtest.WorstRouteSets(own, validationtest.WorstRouteParents) {
		ls.TypeMeta = metav1.TypeMeta{}
		ls.Spec.ParentRef = gwv1.ParentGatewayReference{Name: scaleGateway, Namespace: ptr.To(gwv1.Namespace(scaleNS(0)))}
		sets = append(sets, ls)
	}
	return sets
}

// routeTo is an HTTPRoute of namespace attached to its ListenerSet set's
// listener section, with hostnames.
func routeTo(namespace, name, set, section string, hostnames ...string) *gwv1.HTTPRoute {
	r := &gwv1.HTTPRoute{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name, Labels: map[string]string{"app.kubernetes.io/part-of": "scale"}}}
	r.Spec.ParentRefs = []gwv1.ParentReference{{Group: ptr.To[gwv1.Group](gwv1.GroupName), Kind: ptr.To[gwv1.Kind](validation.ListenerSetKind),
		Name: gwv1.ObjectName(set), SectionName: ptr.To(gwv1.SectionName(section))}}
	for _, h := range hostnames {
		r.Spec.Hostnames = append(r.Spec.Hostnames, gwv1.Hostname(h))
	}
	return r
}

// claimRoute is route j of the route-creates shape, owner j mod Owners's:
// on its owner's listener without a hostname (set j mod Owners, when
// j / Owners is even) or its owner's wildcard (set Owners + j mod Owners,
// when odd), both there when j sets are, with the name r-<j> under its
// owner's domain; the first route of each owner holds its owner's domain
// itself too, which no wildcard covers (the probes' route holder).
func claimRoute(j int) *gwv1.HTTPRoute {
	o := j % validationtest.Owners
	domain := validationtest.OwnerDomain(o)
	set, section := fmt.Sprintf("ls-%05d", o), routeOpenListener
	if j/validationtest.Owners%2 == 1 {
		set, section = fmt.Sprintf("ls-%05d", validationtest.Owners+o), "http"
	}
	hostnames := []string{fmt.Sprintf("r-%05d.%s", j, domain)}
	if j < validationtest.Owners {
		hostnames = append(hostnames, domain)
	}
	return routeTo(validationtest.OwnerNamespace(o), fmt.Sprintf("route-%05d", j), set, section, hostnames...)
}

// measuredRoute is what the route-creates shape creates and deletes:
// owner 1's route on route-side, with a name under its domain. No check
// warns about it.
func measuredRoute(name string) *gwv1.HTTPRoute {
	return routeTo(validationtest.OwnerNamespace(scaleMeasuredOwner), name, routeSideSet, routeOpenListener, name+"."+validationtest.OwnerDomain(scaleMeasuredOwner))
}

// measuredKind names the shape's measured creates.
func measuredKind(shape string) string {
	if shape == shapeRouteCreates {
		return "HTTPRoute creates (owner 1's, on its set " + routeSideSet + ")"
	}
	return "ListenerSet creates"
}

// createsFor is the shape's measured create and its twin on the Gateway
// without sets.
func createsFor(shape string) (measured, alone func(string) client.Object) {
	if shape == shapeRouteCreates {
		return func(name string) client.Object { return measuredRoute(name) },
			func(name string) client.Object {
				r := measuredRoute(name)
				r.Spec.ParentRefs[0].Name = routeSideAloneSet
				return r
			}
	}
	m, a := measuredFor(shape), aloneFor(shape)
	return func(name string) client.Object { return m(name) }, func(name string) client.Object { return a(name) }
}

// routeProbes are the route-creates shape's probes (scaleCluster.probes):
// the measured route earns nothing; one outside its owner's declaration
// is denied (LS319); at a size with routes, a route of the probes'
// namespace on a populated set's hostname and on owner 0's domain, which
// only owner 0's first route holds, is warned of that holder (LS320).
func routeProbes(n int) []probe {
	undeclared := measuredRoute("probe-undeclared")
	h := "probe." + validationtest.OwnerDomain(scaleMeasuredOwner+1)
	undeclared.Spec.Hostnames = []gwv1.Hostname{gwv1.Hostname(h)}
	ps := []probe{
		{name: "control route (as measured)", obj: measuredRoute("probe-route-control")},
		{name: "route: undeclared hostname", obj: undeclared, denied: true,
			want: []string{fmt.Sprintf("hostname %q is not among", h), validation.DefaultAllowedHostnamesAnnotation}},
	}
	if n > 0 {
		ls, _ := scaleListenerSet(shapeRouteCreates, 0)
		set := string(*ls.Spec.Listeners[0].Hostname)
		held := claimRoute(0)
		domain := validationtest.OwnerDomain(0)
		ps = append(ps,
			probe{name: "route on another owner's listener", obj: routeTo(scaleNS(1), "probe-route-set", routeProbeSet, routeOpenListener, set),
				want:    []string{strconv.Quote(ls.Namespace)},
				wantAny: []*regexp.Regexp{claimPattern(validation.DetailHostnameHeld, set), claimPattern(validation.DetailHostnameClaimed, set)}},
			probe{name: "route on another owner's route", obj: routeTo(scaleNS(1), "probe-route-route", routeProbeSet, routeOpenListener, domain),
				want:    []string{fmt.Sprintf("HTTPRoute %s/%s", held.Namespace, held.Name)},
				wantAny: []*regexp.Regexp{claimPattern(validation.DetailHeldByRoute, domain)}})
	}
	return ps
}

// worstRouteResult sends the worst route (owner 1's, on the 64 sets
// routeBaseSets made, its hostnames under owner 2's domain: each refused,
// LS319, and, where owner 2's wildcard set is, warned, LS320) to the
// webhook's HTTPRoute path worstRepeats times, as worst does the
// declarations.
func (c *scaleCluster) worstRouteResult(ctx context.Context, srv *server) (worstResult, error) {
	own := validationtest.OwnerNamespace(scaleMeasuredOwner)
	route := validationtest.WorstRoute(own, "worst-route", validationtest.OwnerDomain(scaleMeasuredOwner+1), validationtest.WorstRouteParents)
	route.CreationTimestamp = metav1.NewTime(time.Now().Truncate(time.Second))
	body := fixtures.RouteReview("worst-route", admissionv1.Create, route, nil)
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(c.ca)
	hc := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{RootCAs: pool, ServerName: "127.0.0.1", MinVersion: tls.VersionTLS12}}}
	defer hc.CloseIdleConnections()
	r := worstResult{Shape: "worst-route", DeclarationBytes: len(validationtest.OwnerDeclaration(scaleMeasuredOwner)), RequestBytes: len(body)}
	resp, err := timeWorst(ctx, srv, hc, srv.baseURL()+admission.ValidateRoutePath, body, &r)
	if err != nil {
		return r, fmt.Errorf("worst route: %w", err)
	}
	r.Problem = worstProblem(r.Shape, resp)
	if r.Problem == "" && r.Causes != validationtest.WorstRouteHostnames {
		r.Problem = fmt.Sprintf("%d causes, want one per hostname (%d)", r.Causes, validationtest.WorstRouteHostnames)
	}
	say("scale: worst route: median %.1f ms, CPU %.0f ms, answer %d bytes, peak RSS +%.1f MiB", r.Ms, r.CPUMs, r.ResponseBytes, r.PeakRSSGrowthMiB)
	return r, nil
}
