package routes

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// TestAttach: a parentRef attaches to the listeners its sectionName or
// port names, where the listener admits the route's namespace; else to
// none, with the reason the route's status would carry.
func TestAttach(t *testing.T) {
	same := gwv1.NamespacesFromSame
	ls := &gwv1.ListenerSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "shop"},
		Spec: gwv1.ListenerSetSpec{Listeners: []gwv1.ListenerEntry{
			{Name: "web", Port: 80, Protocol: gwv1.HTTPProtocolType,
				AllowedRoutes: &gwv1.AllowedRoutes{Namespaces: &gwv1.RouteNamespaces{From: &same}}},
			{Name: "web2", Port: 8080, Protocol: gwv1.HTTPProtocolType, Hostname: ptr.To[gwv1.Hostname]("shop.example.com")},
		}},
	}
	route := func(namespace string, hostnames ...gwv1.Hostname) *gwv1.HTTPRoute {
		return &gwv1.HTTPRoute{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "r"},
			Spec: gwv1.HTTPRouteSpec{Hostnames: hostnames}}
	}
	ref := func(section string, port gwv1.PortNumber) *gwv1.ParentReference {
		r := &gwv1.ParentReference{Group: ptr.To[gwv1.Group](gwv1.GroupName), Kind: ptr.To[gwv1.Kind]("ListenerSet"), Name: "shop"}
		if section != "" {
			r.SectionName = ptr.To(gwv1.SectionName(section))
		}
		if port != 0 {
			r.Port = ptr.To(port)
		}
		return r
	}
	a := NewAttacher(ls, nil)
	for _, tc := range []struct {
		name   string
		route  *gwv1.HTTPRoute
		ref    *gwv1.ParentReference
		want   []gwv1.SectionName
		reason gwv1.RouteConditionReason
	}{
		{"every listener", route("team-a"), ref("", 0), []gwv1.SectionName{"web", "web2"}, ""},
		{"by section", route("team-a"), ref("web2", 0), []gwv1.SectionName{"web2"}, ""},
		{"by port", route("team-a"), ref("", 80), []gwv1.SectionName{"web"}, ""},
		{"no such section", route("team-a"), ref("api", 0), nil, gwv1.RouteReasonNoMatchingParent},
		{"another namespace, from Same", route("team-b"), ref("web", 0), nil, gwv1.RouteReasonNotAllowedByListeners},
		{"hostnames that do not meet", route("team-a", "other.example.com"), ref("web2", 0), nil, gwv1.RouteReasonNoMatchingListenerHostname},
	} {
		got := a.Attach(tc.route, tc.ref)
		if !got.Known || len(got.Listeners) != len(tc.want) || got.Reason != tc.reason {
			t.Errorf("%s: %+v, want listeners %v, reason %q", tc.name, got, tc.want, tc.reason)
			continue
		}
		for i := range tc.want {
			if got.Listeners[i] != tc.want[i] {
				t.Errorf("%s: listeners %v, want %v", tc.name, got.Listeners, tc.want)
			}
		}
	}
}
