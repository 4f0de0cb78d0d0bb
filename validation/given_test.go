package validation

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/validation/internal/fixture"
	"github.com/airlock/listenerset-webhook/validation/internal/incluster"
	"github.com/airlock/listenerset-webhook/validation/internal/routes"
)

// TestClaimsGivenToRoutes: a ListenerSet's write that makes a stored
// HTTPRoute claim names (the set created or moved with the route attached,
// a listener without a hostname added under it) judges those claims as
// the route's write would (LS319 in every mode, LS320 by --first-claim),
// at the listener, naming the route; a write that leaves the route's
// claims as they were judges nothing of them again.
func TestClaimsGivenToRoutes(t *testing.T) {
	key := incluster.DefaultAllowedHostnamesAnnotation
	listeners := field.NewPath("spec", "listeners")
	// team-b's route names team-b/b, which does not exist yet, and
	// team-a's name; team-c's names team-b/b too.
	routeB := claimRoute("team-b", "r", "team-b", "b", "", 20, "login.a.example.com", "x.b.example.com")
	routeC := claimRoute("team-c", "rc", "team-b", "b", "", 21, "login.a.example.com")
	cluster := func(declB string, sets ...*gwv1.ListenerSet) *incluster.Objects {
		return &incluster.Objects{
			Gateways:   []*gwv1.Gateway{fixture.Gateway(gwv1.NamespacesFromAll)},
			Namespaces: teamNamespaces(declB),
			Sets: append([]*gwv1.ListenerSet{
				fixture.Attached("team-a", "a", 5, fixture.Entry("https", 443, "HTTPS", "*.a.example.com")),
				fixture.Attached("team-c", "c", 6, fixture.Entry("https", 443, "HTTPS", "shop.c.example.com")),
			}, sets...),
			Routes: []*gwv1.HTTPRoute{routeB},
		}
	}
	open := fixture.Entry("open", 9090, "HTTP", "")
	exact := fixture.Entry("exact", 9092, "HTTP", "shop.b.example.com")
	create := func(ls ...gwv1.ListenerEntry) *gwv1.ListenerSet {
		s := fixture.Attached("team-b", "b", 0, ls...)
		s.CreationTimestamp = metav1.Time{}
		return s
	}
	stored := func(ls ...gwv1.ListenerEntry) *gwv1.ListenerSet { return fixture.Attached("team-b", "b", 30, ls...) }
	elsewhere := stored(open)
	elsewhere.Spec.ParentRef.Name = "missing"
	given := func(route, detail string) string {
		return fmt.Sprintf(routes.DetailGivenToRoute, "team-b", route, detail)
	}
	heldByA := given("r", fmt.Sprintf(incluster.DetailHostnameClaimed, "login.a.example.com", "*.a.example.com", `namespace "team-a"`, "team-a/a listener https", 443))
	warnA := "spec.listeners[0]: " + heldByA
	for _, tc := range []struct {
		name     string
		ls, old  *gwv1.ListenerSet
		cluster  *incluster.Objects
		routes   []*gwv1.HTTPRoute
		mode     incluster.ClaimMode
		want     field.ErrorList
		warnings []string
	}{
		{name: "created under a stored route: its claim of another owner's name warned at the listener",
			ls: create(open), cluster: cluster(""), warnings: []string{warnA}},
		{name: "the same under deny: denied", mode: incluster.ClaimDeny,
			ls: create(open), cluster: cluster(""), want: field.ErrorList{field.Forbidden(listeners.Index(0), heldByA)}},
		{name: "the rule off: nothing", mode: incluster.ClaimOff, ls: create(open), cluster: cluster("")},
		{name: "outside the route's Namespace's declaration: denied in every mode", mode: incluster.ClaimOff,
			ls: create(open), cluster: cluster("*.b.example.com,b.example.com"),
			want: field.ErrorList{
				field.Required(listeners.Index(0).Child("hostname"), fmt.Sprintf(incluster.DetailNoHostnameDeclared, "team-b", "*", key, `"*.b.example.com,b.example.com"`)),
				field.Forbidden(listeners.Index(0), given("r", fmt.Sprintf(incluster.DetailHostnameNotDeclared, "login.a.example.com", "team-b", key, `"*.b.example.com,b.example.com"`))),
			}},
		{name: "a route without hostnames on a listener without one: every name, in the route's words", mode: incluster.ClaimOff,
			ls: create(open), cluster: cluster("*.b.example.com,b.example.com"), routes: []*gwv1.HTTPRoute{claimRoute("team-b", "all", "team-b", "b", "", 20)},
			want: field.ErrorList{
				field.Required(listeners.Index(0).Child("hostname"), fmt.Sprintf(incluster.DetailNoHostnameDeclared, "team-b", "*", key, `"*.b.example.com,b.example.com"`)),
				field.Forbidden(listeners.Index(0), given("all", fmt.Sprintf(routes.DetailRouteNoHostnameDeclared, "team-b", "*", key, `"*.b.example.com,b.example.com"`))),
			}},
		{name: "an update that keeps the listener: the route's claims are its own, not judged again", mode: incluster.ClaimDeny,
			ls: stored(open, exact), old: stored(open), cluster: cluster("", stored(open))},
		{name: "an update that adds the listener without a hostname: judged",
			ls: stored(exact, open), old: stored(exact), cluster: cluster("", stored(exact)),
			warnings: []string{"spec.listeners[1]: " + heldByA}},
		{name: "moved here from a missing Gateway with the route attached: judged", mode: incluster.ClaimDeny,
			ls: stored(open), old: elsewhere, cluster: cluster("", elsewhere),
			want: field.ErrorList{field.Forbidden(listeners.Index(0), heldByA)}},
		{name: "another namespace's route, admitted by allowedRoutes: named as the claimant",
			ls: create(withFrom(open, gwv1.NamespacesFromAll)), cluster: cluster(""), routes: []*gwv1.HTTPRoute{routeC},
			warnings: []string{
				"spec.listeners[0].allowedRoutes.namespaces.from: no hostname, and from All admits HTTPRoutes of other namespaces: each can claim any hostname on this listener; set a hostname, or from: Same",
				"spec.listeners[0]: " + fmt.Sprintf(routes.DetailGivenToRoute, "team-c", "rc",
					fmt.Sprintf(incluster.DetailHostnameClaimed, "login.a.example.com", "*.a.example.com", `namespace "team-a"`, "team-a/a listener https", 443))}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.routes != nil {
				tc.cluster.Routes = tc.routes
			}
			errs, ws := Validate(tc.ls, tc.old, Options{Cluster: tc.cluster, Routes: tc.cluster, Tenancy: incluster.Tenancy{FirstClaim: tc.mode}})
			assert.Equal(t, tc.want, coded(t, errs))
			assert.Equal(t, tc.warnings, codedWarnings(t, ws).Strings())
		})
	}
}
