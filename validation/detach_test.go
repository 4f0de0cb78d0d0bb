package validation

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/findings"
	"github.com/airlock/listenerset-webhook/validation/internal/fixture"
	"github.com/airlock/listenerset-webhook/validation/internal/incluster"
	"github.com/airlock/listenerset-webhook/validation/internal/object"
	"github.com/airlock/listenerset-webhook/validation/internal/routes"
)

// detachFixture: team-a/ls with listeners web (HTTP 80, shop.example.com)
// and api (HTTP 8080, no hostname), and routes attached by sectionName
// web (shop, cart), by port 8080 (orders) and to the whole set (all).
func detachFixture() (*gwv1.ListenerSet, []*gwv1.HTTPRoute) {
	ls := attachSet(httpListener("shop.example.com"))
	ls.Spec.Listeners = append(ls.Spec.Listeners, gwv1.ListenerEntry{Name: "api", Port: 8080, Protocol: object.ProtocolHTTP})
	named := func(name string, f func(*gwv1.ParentReference), hostnames ...gwv1.Hostname) *gwv1.HTTPRoute {
		r := route("team-a", hostnames...)
		r.Name = name
		if f != nil {
			f(&r.Spec.ParentRefs[0])
		}
		return r
	}
	web := func(p *gwv1.ParentReference) { p.SectionName = ptr.To[gwv1.SectionName]("web") }
	return ls, []*gwv1.HTTPRoute{
		named("shop", web, "shop.example.com"), named("cart", web),
		named("orders", func(p *gwv1.ParentReference) { p.Port = ptr.To[gwv1.PortNumber](8080) }),
		named("all", nil, "shop.example.com"),
	}
}

func routeWarnings(t *testing.T, ws findings.Warnings) []string {
	t.Helper()
	var out []string
	for _, w := range codedWarnings(t, ws) {
		if w.Kind == routes.KindRoutesDetached {
			out = append(out, w.String())
		}
	}
	return out
}

func TestRoutesDetachedByUpdate(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(*gwv1.ListenerSet)
		want   []string
	}{
		{"unchanged listeners: nothing read, nothing said", func(ls *gwv1.ListenerSet) { ls.Labels = map[string]string{"x": "y"} }, nil},
		{"a listener added", func(ls *gwv1.ListenerSet) {
			ls.Spec.Listeners = append(ls.Spec.Listeners, gwv1.ListenerEntry{Name: "more", Port: 9090, Protocol: object.ProtocolHTTP})
		}, nil},
		{"rename web to www", func(ls *gwv1.ListenerSet) { ls.Spec.Listeners[0].Name = "www" },
			// all moves to www (no sectionName): it keeps attaching.
			[]string{`spec.listeners: 2 HTTPRoutes attach to listener "web", which the update removes (team-a/cart, team-a/shop); they would no longer attach`}},
		{"web removed", func(ls *gwv1.ListenerSet) { ls.Spec.Listeners = ls.Spec.Listeners[1:] },
			// all has hostname shop.example.com, api has none: all moves to api.
			[]string{`spec.listeners: 2 HTTPRoutes attach to listener "web", which the update removes (team-a/cart, team-a/shop); they would no longer attach`}},
		{"hostname of web changed", func(ls *gwv1.ListenerSet) { ls.Spec.Listeners[0].Hostname = ptr.To[gwv1.Hostname]("cart.example.com") },
			[]string{`spec.listeners[0]: 1 HTTPRoute attaches to listener "web" (team-a/shop); it would no longer attach`}},
		{"api's port changed", func(ls *gwv1.ListenerSet) { ls.Spec.Listeners[1].Port = 8081 },
			[]string{`spec.listeners[1]: 1 HTTPRoute attaches to listener "api" (team-a/orders); it would no longer attach`}},
		{"allowedRoutes narrowed on both", func(ls *gwv1.ListenerSet) {
			for i := range ls.Spec.Listeners {
				ls.Spec.Listeners[i].AllowedRoutes = &gwv1.AllowedRoutes{Namespaces: &gwv1.RouteNamespaces{From: ptr.To(gwv1.NamespacesFromSelector),
					Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"edge": "yes"}}}}
			}
		}, []string{
			`spec.listeners[0]: 3 HTTPRoutes attach to listener "web" (team-a/all, team-a/cart, team-a/shop); they would no longer attach`,
			`spec.listeners[1]: 2 HTTPRoutes attach to listener "api" (team-a/all, team-a/orders); they would no longer attach`,
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stored, routes := detachFixture()
			updated := stored.DeepCopy()
			tc.change(updated)
			c := &incluster.Objects{Routes: routes, Namespaces: []*metav1.PartialObjectMetadata{fixture.Namespace("team-a", nil)}}
			for _, strict := range []bool{false, true} {
				errs, ws := Validate(updated, stored, Options{Cluster: c, Routes: c, Strict: strict})
				assert.Empty(t, errs, "never an error")
				assert.Equal(t, tc.want, routeWarnings(t, ws), "strict %v", strict)
			}
		})
	}
}

func TestRoutesDetachedUnknown(t *testing.T) {
	stored, routes := detachFixture()
	updated := stored.DeepCopy()
	updated.Spec.Listeners[0].AllowedRoutes = &gwv1.AllowedRoutes{Namespaces: &gwv1.RouteNamespaces{From: ptr.To(gwv1.NamespacesFromSelector),
		Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"edge": "yes"}}}}
	// team-a's labels unknown: whether shop and cart still attach cannot
	// be told, so they are not named.
	_, ws := Validate(updated, stored, withRoutes(&incluster.Objects{Routes: routes}))
	assert.Empty(t, routeWarnings(t, ws))
	// Routes unknown: nothing either.
	updated.Spec.Listeners[0].Name = "www"
	_, ws = Validate(updated, stored, withRoutes(&incluster.Objects{}))
	assert.Empty(t, routeWarnings(t, ws))
}

func TestRoutesDetachedByDelete(t *testing.T) {
	stored, routes := detachFixture()
	r := JudgeDelete(stored, withRoutes(&incluster.Objects{Routes: routes}))
	assert.Zero(t, r.Errors.Total())
	assert.Equal(t, []string{
		`spec.listeners[0]: 3 HTTPRoutes attach to listener "web" (team-a/all, team-a/cart, team-a/shop); they would no longer attach`,
		`spec.listeners[1]: 2 HTTPRoutes attach to listener "api" (team-a/all, team-a/orders); they would no longer attach`,
	}, routeWarnings(t, r.Warnings.List()))

	// Another implementation's ListenerSet: nothing.
	scope := incluster.Scope{ControllerNames: []gwv1.GatewayController{incluster.AirlockControllerName}}
	c := &incluster.Objects{Routes: routes,
		Gateways: []*gwv1.Gateway{{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "gw"}, Spec: gwv1.GatewaySpec{GatewayClassName: "other"}}},
		Classes:  []*gwv1.GatewayClass{{ObjectMeta: metav1.ObjectMeta{Name: "other"}, Spec: gwv1.GatewayClassSpec{ControllerName: "example.com/other"}}}}
	r = JudgeDelete(stored, Options{Cluster: c, Routes: c, Scope: scope, Classes: c})
	assert.Empty(t, r.Warnings.List())
}

// TestRoutesDetachedBounded: many routes make one warning per listener,
// naming the first three by namespace/name and the count, within the
// warning's length.
func TestRoutesDetachedBounded(t *testing.T) {
	stored, _ := detachFixture()
	var routes []*gwv1.HTTPRoute
	for i := range 1000 {
		r := route("team-a")
		r.Name = fmt.Sprintf("r%04d-%s", 999-i, strings.Repeat("x", 200))
		r.Spec.ParentRefs[0].SectionName = ptr.To[gwv1.SectionName]("web")
		routes = append(routes, r)
	}
	r := JudgeDelete(stored, withRoutes(&incluster.Objects{Routes: routes}))
	ws := routeWarnings(t, r.Warnings.List())
	require.Len(t, ws, 1)
	assert.LessOrEqual(t, len([]rune(ws[0])), findings.MaxWarningRunes)
	assert.True(t, strings.HasPrefix(ws[0], `spec.listeners[0]: 1000 HTTPRoutes attach to listener "web" (team-a/r0000-xxx`), ws[0])
}

// TestMostRoutesWithinBudgets: a set of the CRD's 64 listeners, each with
// 100 routes of the longest names attached, deleted: one warning per
// listener would be far over kube-apiserver's 4 096 runes; the report
// shows what fits its budget and ends with the count of the rest.
func TestMostRoutesWithinBudgets(t *testing.T) {
	ls := attachSet(httpListener(""))
	ls.Spec.Listeners = nil
	var routes []*gwv1.HTTPRoute
	for i := range object.MaxListeners {
		name := fmt.Sprintf("l%02d-%s", i, strings.Repeat("n", 59))
		ls.Spec.Listeners = append(ls.Spec.Listeners, gwv1.ListenerEntry{Name: gwv1.SectionName(name), Port: gwv1.PortNumber(1000 + i), Protocol: object.ProtocolHTTP})
		for j := range 100 {
			r := route("team-a")
			r.Name = fmt.Sprintf("r%02d-%03d-%s", i, j, strings.Repeat("x", 240))
			r.Spec.ParentRefs[0].SectionName = ptr.To(gwv1.SectionName(name))
			routes = append(routes, r)
		}
	}
	r := JudgeDelete(ls, withRoutes(&incluster.Objects{Routes: routes}))
	assert.Equal(t, object.MaxListeners, r.Warnings.Total())
	ws := r.Warnings.List()
	runes := 0
	for _, w := range ws {
		runes += len([]rune(w.String()))
		assert.LessOrEqual(t, len([]rune(w.String())), findings.MaxWarningRunes)
	}
	assert.LessOrEqual(t, runes, findings.MaxWarningsRunes)
	assert.Equal(t, findings.KindMoreWarnings, ws[len(ws)-1].Kind, "the last says how many more")
}

// withRoutes are the Options of a view that also answers the routes.
func withRoutes(o *incluster.Objects) Options { return Options{Cluster: o, Routes: o} }
