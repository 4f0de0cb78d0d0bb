package validation

import (
	"testing"

	"github.com/stretchr/testify/assert"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/validation/internal/incluster"
	"github.com/airlock/listenerset-webhook/validation/internal/object"
	"github.com/airlock/listenerset-webhook/validation/internal/routes"
)

// attachSet is a ListenerSet in team-a with one listener l.
func attachSet(l gwv1.ListenerEntry) *gwv1.ListenerSet {
	return &gwv1.ListenerSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "ls"},
		Spec: gwv1.ListenerSetSpec{
			ParentRef: gwv1.ParentGatewayReference{Name: "gw"},
			Listeners: []gwv1.ListenerEntry{l},
		},
	}
}

func httpListener(hostname string) gwv1.ListenerEntry {
	l := gwv1.ListenerEntry{Name: "web", Port: 80, Protocol: object.ProtocolHTTP}
	if hostname != "" {
		l.Hostname = ptr.To(gwv1.Hostname(hostname))
	}
	return l
}

// lsRef is a parentRef naming team-a/ls.
func lsRef() gwv1.ParentReference {
	return gwv1.ParentReference{Group: ptr.To[gwv1.Group](gwv1.GroupName), Kind: ptr.To[gwv1.Kind]("ListenerSet"), Name: "ls"}
}

func route(namespace string, hostnames ...gwv1.Hostname) *gwv1.HTTPRoute {
	r := &gwv1.HTTPRoute{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "r"}}
	r.Spec.Hostnames = hostnames
	r.Spec.ParentRefs = []gwv1.ParentReference{lsRef()}
	return r
}

// TestHostnameIntersection holds the attachment decision to the examples
// of Gateway API's HTTPRoute hostnames documentation (apis/v1
// httproute_types.go, HTTPRouteSpec.Hostnames), one row each.
func TestHostnameIntersection(t *testing.T) {
	for _, tc := range []struct {
		name     string
		listener string
		route    []gwv1.Hostname
		attaches bool
	}{
		// "A Listener with test.example.com as the hostname matches
		// HTTPRoutes that have either not specified any hostnames, or have
		// specified at least one of test.example.com or *.example.com."
		{"exact listener, route without hostnames", "test.example.com", nil, true},
		{"exact listener, same hostname", "test.example.com", []gwv1.Hostname{"test.example.com"}, true},
		{"exact listener, wildcard route above it", "test.example.com", []gwv1.Hostname{"*.example.com"}, true},
		{"exact listener, one of several", "test.example.com", []gwv1.Hostname{"other.example.org", "*.example.com"}, true},
		{"exact listener, other hostname", "test.example.com", []gwv1.Hostname{"other.example.com"}, false},
		// "A Listener with *.example.com as the hostname matches HTTPRoutes
		// that have either not specified any hostnames or have specified
		// at least one hostname that matches the Listener hostname. For
		// example, *.example.com, test.example.com, and
		// foo.test.example.com would all match. On the other hand,
		// example.com and test.example.net would not match."
		{"wildcard listener, route without hostnames", "*.example.com", nil, true},
		{"wildcard listener, same wildcard", "*.example.com", []gwv1.Hostname{"*.example.com"}, true},
		{"wildcard listener, test.example.com", "*.example.com", []gwv1.Hostname{"test.example.com"}, true},
		{"wildcard listener, foo.test.example.com", "*.example.com", []gwv1.Hostname{"foo.test.example.com"}, true},
		{"wildcard listener, example.com", "*.example.com", []gwv1.Hostname{"example.com"}, false},
		{"wildcard listener, test.example.net", "*.example.com", []gwv1.Hostname{"test.example.net"}, false},
		// "if a Listener specified *.example.com, and the HTTPRoute
		// specified test.example.com and test.example.net,
		// test.example.net must not be considered for a match": the route
		// still attaches by test.example.com.
		{"wildcard listener, one matching of two", "*.example.com", []gwv1.Hostname{"test.example.com", "test.example.net"}, true},
		// Nested wildcards intersect; so does a wildcard route above the
		// listener's wildcard.
		{"wildcard listener, nested wildcard route", "*.example.com", []gwv1.Hostname{"*.test.example.com"}, true},
		{"nested wildcard listener, wildcard route above", "*.test.example.com", []gwv1.Hostname{"*.example.com"}, true},
		{"listener without hostname", "", []gwv1.Hostname{"anything.example.org"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := route("team-a", tc.route...)
			a := routes.NewAttacher(attachSet(httpListener(tc.listener)), nil).Attach(r, &r.Spec.ParentRefs[0])
			assert.Equal(t, tc.attaches, a.Attached(), "%+v", a)
			assert.True(t, a.Known)
			if !tc.attaches {
				assert.Equal(t, gwv1.RouteReasonNoMatchingListenerHostname, a.Reason)
			}
		})
	}
}

// TestAttach holds the rest of the decision: the parentRef's sectionName
// and port, allowedRoutes' namespaces and kinds, and what it leaves unknown.
func TestAttach(t *testing.T) {
	labels := func(ns string) (map[string]string, bool) {
		switch ns {
		case "team-b":
			return map[string]string{"tenant": "yes"}, true
		case "team-c":
			return map[string]string{}, true
		}
		return nil, false
	}
	twoListeners := func() *gwv1.ListenerSet {
		ls := attachSet(httpListener("a.example.com"))
		ls.Spec.Listeners = append(ls.Spec.Listeners, gwv1.ListenerEntry{Name: "api", Port: 8080, Protocol: object.ProtocolHTTP})
		return ls
	}
	fromSelector := func() *gwv1.ListenerSet {
		ls := attachSet(httpListener(""))
		ls.Spec.Listeners[0].AllowedRoutes = &gwv1.AllowedRoutes{Namespaces: &gwv1.RouteNamespaces{
			From: ptr.To(gwv1.NamespacesFromSelector), Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"tenant": "yes"}}}}
		return ls
	}
	withRef := func(r *gwv1.HTTPRoute, f func(*gwv1.ParentReference)) *gwv1.HTTPRoute {
		f(&r.Spec.ParentRefs[0])
		return r
	}
	for _, tc := range []struct {
		name      string
		ls        *gwv1.ListenerSet
		route     *gwv1.HTTPRoute
		listeners []gwv1.SectionName
		known     bool
		reason    gwv1.RouteConditionReason
		detail    string
	}{
		{name: "whole set: every listener that admits it", ls: twoListeners(), route: route("team-a"),
			listeners: []gwv1.SectionName{"web", "api"}, known: true},
		{name: "whole set: hostname picks one", ls: twoListeners(), route: route("team-a", "b.example.com"),
			listeners: []gwv1.SectionName{"api"}, known: true},
		{name: "sectionName", ls: twoListeners(), route: withRef(route("team-a"), func(p *gwv1.ParentReference) { p.SectionName = ptr.To[gwv1.SectionName]("api") }),
			listeners: []gwv1.SectionName{"api"}, known: true},
		{name: "sectionName of no listener", ls: twoListeners(), route: withRef(route("team-a"), func(p *gwv1.ParentReference) { p.SectionName = ptr.To[gwv1.SectionName]("www") }),
			known: true, reason: gwv1.RouteReasonNoMatchingParent, detail: `no listener named "www"`},
		{name: "port", ls: twoListeners(), route: withRef(route("team-a"), func(p *gwv1.ParentReference) { p.Port = ptr.To[gwv1.PortNumber](80) }),
			listeners: []gwv1.SectionName{"web"}, known: true},
		{name: "port of no listener", ls: twoListeners(), route: withRef(route("team-a"), func(p *gwv1.ParentReference) { p.Port = ptr.To[gwv1.PortNumber](81) }),
			known: true, reason: gwv1.RouteReasonNoMatchingParent, detail: "no listener on port 81"},
		{name: "sectionName and port must both match", ls: twoListeners(), route: withRef(route("team-a"), func(p *gwv1.ParentReference) {
			p.SectionName, p.Port = ptr.To[gwv1.SectionName]("web"), ptr.To[gwv1.PortNumber](8080)
		}), known: true, reason: gwv1.RouteReasonNoMatchingParent, detail: `no listener named "web" on port 8080`},
		{name: "sectionName with a hostname that does not intersect", ls: twoListeners(), route: withRef(route("team-a", "b.example.com"), func(p *gwv1.ParentReference) { p.SectionName = ptr.To[gwv1.SectionName]("web") }),
			known: true, reason: gwv1.RouteReasonNoMatchingListenerHostname, detail: `no hostname of the route intersects hostname a.example.com of listener "web"`},
		{name: "from Same (the default) refuses another namespace", ls: twoListeners(), route: route("team-b"),
			known: true, reason: gwv1.RouteReasonNotAllowedByListeners, detail: `namespace "team-b" not allowed by listener "web" (allowedRoutes.namespaces.from: Same)`},
		{name: "from All", ls: func() *gwv1.ListenerSet {
			ls := attachSet(httpListener(""))
			ls.Spec.Listeners[0].AllowedRoutes = &gwv1.AllowedRoutes{Namespaces: &gwv1.RouteNamespaces{From: ptr.To(gwv1.NamespacesFromAll)}}
			return ls
		}(), route: route("team-b"), listeners: []gwv1.SectionName{"web"}, known: true},
		{name: "from Selector, labels match", ls: fromSelector(), route: route("team-b"), listeners: []gwv1.SectionName{"web"}, known: true},
		{name: "from Selector, labels do not match", ls: fromSelector(), route: route("team-c"),
			known: true, reason: gwv1.RouteReasonNotAllowedByListeners, detail: `namespace "team-c" not allowed by listener "web" (allowedRoutes.namespaces.from: Selector)`},
		{name: "from Selector, labels unknown: nothing said", ls: fromSelector(), route: route("team-d"), known: false},
		{name: "kinds without HTTPRoute", ls: func() *gwv1.ListenerSet {
			ls := attachSet(httpListener(""))
			ls.Spec.Listeners[0].AllowedRoutes = &gwv1.AllowedRoutes{Kinds: []gwv1.RouteGroupKind{{Kind: "GRPCRoute"}}}
			return ls
		}(), route: route("team-a"), known: true, reason: gwv1.RouteReasonNotAllowedByListeners, detail: `kind HTTPRoute not allowed by listener "web" (allowedRoutes.kinds, protocol HTTP)`},
		{name: "a protocol without HTTPRoutes", ls: attachSet(gwv1.ListenerEntry{Name: "tcp", Port: 9000, Protocol: gwv1.TCPProtocolType}), route: route("team-a"),
			known: true, reason: gwv1.RouteReasonNotAllowedByListeners, detail: `kind HTTPRoute not allowed by listener "tcp" (allowedRoutes.kinds, protocol TCP)`},
		{name: "HTTP/3 takes HTTPRoutes", ls: attachSet(gwv1.ListenerEntry{Name: "quic", Port: 443, Protocol: object.ProtocolHTTP3}), route: route("team-a"),
			listeners: []gwv1.SectionName{"quic"}, known: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := routes.NewAttacher(tc.ls, labels).Attach(tc.route, &tc.route.Spec.ParentRefs[0])
			assert.Equal(t, tc.listeners, a.Listeners)
			assert.Equal(t, tc.known, a.Known)
			assert.Equal(t, tc.reason, a.Reason)
			assert.Equal(t, tc.detail, a.Detail)
		})
	}
}

func TestNamesListenerSet(t *testing.T) {
	ref := lsRef()
	ns, name, ok := incluster.NamesListenerSet("team-a", &ref)
	assert.True(t, ok)
	assert.Equal(t, "team-a/ls", ns+"/"+name)
	ref.Namespace = ptr.To[gwv1.Namespace]("other")
	ns, _, _ = incluster.NamesListenerSet("team-a", &ref)
	assert.Equal(t, "other", ns)
	gw := gwv1.ParentReference{Name: "gw"} // kind defaults to Gateway
	_, _, ok = incluster.NamesListenerSet("team-a", &gw)
	assert.False(t, ok, "a Gateway parent is out of scope")
	svc := lsRef()
	svc.Group = ptr.To[gwv1.Group]("")
	_, _, ok = incluster.NamesListenerSet("team-a", &svc)
	assert.False(t, ok)

	r := route("team-a")
	r.Spec.ParentRefs = append(r.Spec.ParentRefs, lsRef(), gw)
	assert.Equal(t, []string{"team-a/ls"}, incluster.RouteKeys(r), "each set once, Gateways not at all")
}
