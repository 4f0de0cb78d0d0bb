package validation

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/validation/internal/fixture"
	"github.com/airlock/listenerset-webhook/validation/internal/incluster"
	"github.com/airlock/listenerset-webhook/validation/internal/routes"
)

// claimRoute is an HTTPRoute namespace/name attached to ListenerSet
// setNamespace/set (sectionName section when set), created at fixture.T0 plus
// minutes (0: a create, no time yet).
func claimRoute(namespace, name, setNamespace, set, section string, minutes int, hostnames ...gwv1.Hostname) *gwv1.HTTPRoute {
	r := &gwv1.HTTPRoute{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name}}
	if minutes > 0 {
		r.CreationTimestamp = metav1.NewTime(fixture.T0.Add(time.Duration(minutes) * time.Minute))
	}
	ref := gwv1.ParentReference{Group: ptr.To[gwv1.Group](gwv1.GroupName), Kind: ptr.To[gwv1.Kind]("ListenerSet"),
		Namespace: ptr.To(gwv1.Namespace(setNamespace)), Name: gwv1.ObjectName(set)}
	if section != "" {
		ref.SectionName = ptr.To(gwv1.SectionName(section))
	}
	r.Spec.ParentRefs = []gwv1.ParentReference{ref}
	r.Spec.Hostnames = hostnames
	return r
}

// teamNamespaces are namespaces team-a, team-b (declaring declB, when
// set) and team-c.
func teamNamespaces(declB string) []*metav1.PartialObjectMetadata {
	nsB := fixture.Namespace("team-b", nil)
	if declB != "" {
		nsB = declaring("team-b", declB, nil)
	}
	return []*metav1.PartialObjectMetadata{fixture.Namespace("team-a", nil), nsB, fixture.Namespace("team-c", nil)}
}

// TestRouteClaims: an HTTPRoute attached to a listener of an Airlock
// ListenerSet without a hostname, or a wildcard, claims its hostnames on
// the Gateway: the route's Namespace's declaration applies (LS319, every
// mode, ratcheted by the stored route's hostname on the same Gateway),
// and the first claim judges them against other owners' listeners and
// routes (LS320, by --first-claim); a listener is judged against the
// routes that hold names (LS316).
func TestRouteClaims(t *testing.T) {
	key := incluster.DefaultAllowedHostnamesAnnotation
	hostnames := field.NewPath("spec", "hostnames")
	open := withFrom(fixture.Entry("open", 9090, "HTTP", ""), gwv1.NamespacesFromAll)
	cluster := func(declB string, routes ...*gwv1.HTTPRoute) *incluster.Objects {
		return &incluster.Objects{
			Gateways:   []*gwv1.Gateway{fixture.Gateway(gwv1.NamespacesFromAll)},
			Namespaces: teamNamespaces(declB),
			Sets: []*gwv1.ListenerSet{
				fixture.Attached("team-a", "a", 5, fixture.Entry("https", 443, "HTTPS", "*.a.example.com")),
				fixture.Attached("team-b", "b", 10, fixture.Entry("open", 9090, "HTTP", ""), fixture.Entry("wild", 9091, "HTTP", "*.b.example.com"),
					fixture.Entry("exact", 9092, "HTTP", "shop.b.example.com")),
				fixture.Attached("team-c", "c", 15, open),
			},
			Routes: append([]*gwv1.HTTPRoute{}, routes...),
		}
	}
	heldByA := fmt.Sprintf(incluster.DetailHostnameClaimed, "login.a.example.com", "*.a.example.com", `namespace "team-a"`, "team-a/a listener https", 443)
	// team-c's route holds shop.c.example.com through its open listener
	routeC := claimRoute("team-c", "rc", "team-c", "c", "", 20, "shop.c.example.com")
	heldByC := fmt.Sprintf(routes.DetailHeldByRoute, "shop.c.example.com", `namespace "team-c"`, "team-c", "rc", "team-c/c listener open")
	for _, tc := range []struct {
		name     string
		route    *gwv1.HTTPRoute
		old      *gwv1.HTTPRoute
		cluster  *incluster.Objects
		tenancy  incluster.Tenancy
		asStored bool
		want     field.ErrorList
		warnings []string
	}{
		{name: "a name another owner holds, through a listener without a hostname on another port: warned",
			route: claimRoute("team-b", "r", "team-b", "b", "", 0, "login.a.example.com"), cluster: cluster(""),
			warnings: []string{"spec.hostnames[0]: " + heldByA}},
		{name: "the same under deny: denied",
			route: claimRoute("team-b", "r", "team-b", "b", "", 0, "login.a.example.com"), cluster: cluster(""),
			tenancy: incluster.Tenancy{FirstClaim: incluster.ClaimDeny},
			want:    field.ErrorList{field.Forbidden(hostnames.Index(0), heldByA)}},
		{name: "the same with the rule off: nothing",
			route: claimRoute("team-b", "r", "team-b", "b", "", 0, "login.a.example.com"), cluster: cluster(""),
			tenancy: incluster.Tenancy{FirstClaim: incluster.ClaimOff}},
		{name: "a name outside the route's Namespace's declaration: denied in every mode",
			route: claimRoute("team-b", "r", "team-b", "b", "", 0, "login.a.example.com"), cluster: cluster("*.b.example.com"),
			tenancy: incluster.Tenancy{FirstClaim: incluster.ClaimOff},
			want: field.ErrorList{field.Forbidden(hostnames.Index(0),
				fmt.Sprintf(incluster.DetailHostnameNotDeclared, "login.a.example.com", "team-b", key, `"*.b.example.com"`))}},
		{name: "declared names, under its own wildcard listener: nothing",
			route: claimRoute("team-b", "r", "team-b", "b", "", 0, "x.b.example.com"), cluster: cluster("*.b.example.com")},
		{name: "no hostnames on a listener without one: every name, only * declares it",
			route: claimRoute("team-b", "r", "team-b", "b", "open", 0), cluster: cluster("*.b.example.com"),
			want: field.ErrorList{field.Required(hostnames,
				fmt.Sprintf(routes.DetailRouteNoHostnameDeclared, "team-b", "*", key, `"*.b.example.com"`))}},
		{name: "no hostnames, * declared: nothing",
			route: claimRoute("team-b", "r", "team-b", "b", "open", 0), cluster: cluster("*")},
		{name: "through a listener with an exact hostname: the listener's claim, none of the route's",
			route: claimRoute("team-b", "r", "team-b", "b", "exact", 0, "shop.b.example.com"), cluster: cluster("b.example.com")},
		{name: "update keeping the name on the same Gateway: ratcheted",
			route: claimRoute("team-b", "r", "team-b", "b", "", 30, "login.a.example.com", "x.b.example.com"),
			old:   claimRoute("team-b", "r", "team-b", "b", "", 30, "login.a.example.com"), cluster: cluster("*.b.example.com"),
			tenancy: incluster.Tenancy{FirstClaim: incluster.ClaimDeny},
			warnings: []string{
				"spec.hostnames[0]: Forbidden: " + fmt.Sprintf(incluster.DetailHostnameNotDeclared, "login.a.example.com", "team-b", key, `"*.b.example.com"`) + " (already stored; allowed because unchanged)",
				"spec.hostnames[0]: Forbidden: " + heldByA + " (already stored; allowed because unchanged)"}},
		{name: "another owner's route holds the very name: held by the route",
			route: claimRoute("team-b", "r", "team-b", "b", "", 0, "shop.c.example.com"), cluster: cluster("", routeC),
			warnings: []string{"spec.hostnames[0]: " + heldByC}},
		{name: "the audit: a route that came before the other owner's route keeps it",
			route: claimRoute("team-b", "r", "team-b", "b", "", 16, "shop.c.example.com"), cluster: cluster("", routeC), asStored: true},
		{name: "the audit: one that came after is told",
			route: claimRoute("team-b", "r", "team-b", "b", "", 25, "shop.c.example.com"), cluster: cluster("", routeC), asStored: true,
			warnings: []string{"spec.hostnames[0]: " + heldByC}},
		{name: "a route through another owner's listener: that owner's routes still hold their names",
			route: claimRoute("team-a", "r", "team-c", "c", "", 0, "shop.c.example.com"), cluster: cluster("", routeC),
			warnings: []string{"spec.hostnames[0]: " + fmt.Sprintf(routes.DetailHeldByRoute, "shop.c.example.com", `namespace "team-c"`, "team-c", "rc", "team-c/c listener open")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := JudgeRoute(tc.route, tc.old, Options{Cluster: tc.cluster, Routes: tc.cluster, Tenancy: tc.tenancy, AsStored: tc.asStored})
			assert.Equal(t, tc.want, coded(t, r.Errors.List()))
			assert.Equal(t, tc.warnings, codedWarnings(t, r.Warnings.List()).Strings())
		})
	}
}

// TestListenerClaimsSeeRoutes: a listener claiming a name another owner's
// route holds on the Gateway is flagged (LS316), naming the route; one
// of the route's own owner, or a name it does not overlap, is not.
func TestListenerClaimsSeeRoutes(t *testing.T) {
	c := &incluster.Objects{
		Gateways:   []*gwv1.Gateway{fixture.Gateway(gwv1.NamespacesFromAll)},
		Namespaces: []*metav1.PartialObjectMetadata{fixture.Namespace("team-b", nil), fixture.Namespace("team-c", nil)},
		Sets:       []*gwv1.ListenerSet{fixture.Attached("team-c", "c", 15, fixture.Entry("open", 9090, "HTTP", ""))},
		Routes:     []*gwv1.HTTPRoute{claimRoute("team-c", "rc", "team-c", "c", "", 20, "shop.c.example.com")},
	}
	create := func(ns, h string) *gwv1.ListenerSet {
		ls := fixture.Attached(ns, "new", 0, fixture.Entry("http", 80, "HTTP", h))
		ls.CreationTimestamp = metav1.Time{}
		return ls
	}
	_, ws := Validate(create("team-b", "*.c.example.com"), nil, Options{Cluster: c, Routes: c})
	assert.Equal(t, []string{"spec.listeners[0].hostname: " + fmt.Sprintf(routes.DetailClaimedByRoute, "*.c.example.com", "shop.c.example.com",
		`namespace "team-c"`, "team-c", "rc", "team-c/c listener open")}, codedWarnings(t, ws).Strings())
	errs, _ := Validate(create("team-b", "shop.c.example.com"), nil, Options{Cluster: c, Routes: c, Tenancy: incluster.Tenancy{FirstClaim: incluster.ClaimDeny}})
	assert.Len(t, coded(t, errs), 1, "denied under deny")
	_, ws = Validate(create("team-c", "shop.c.example.com"), nil, Options{Cluster: c, Routes: c})
	assert.Empty(t, ws, "the route's own owner")
	_, ws = Validate(create("team-b", "other.c.example.com"), nil, Options{Cluster: c, Routes: c})
	assert.Empty(t, ws, "no overlap")
	_, ws = Validate(create("team-b", "shop.c.example.com"), nil, Options{Cluster: c})
	assert.Empty(t, ws, "no routes view: nothing")
}
