package validation

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/validation/internal/fixture"
	"github.com/airlock/listenerset-webhook/validation/internal/incluster"
	"github.com/airlock/listenerset-webhook/validation/internal/object"
	"github.com/airlock/listenerset-webhook/validation/internal/verdict"
)

// declaring is namespace name with the hostname declaration value (and
// labels).
func declaring(name, value string, labels map[string]string) *metav1.PartialObjectMetadata {
	ns := fixture.Namespace(name, labels)
	ns.Annotations = map[string]string{incluster.DefaultAllowedHostnamesAnnotation: value}
	return ns
}

func TestTenancyRules(t *testing.T) {
	listenersPath := field.NewPath("spec", "listeners")
	nsPath := field.NewPath("metadata", "namespace")
	key := incluster.DefaultAllowedHostnamesAnnotation
	mine := func(listeners ...gwv1.ListenerEntry) *gwv1.ListenerSet {
		ls := fixture.Attached("team-b", "b", 0, listeners...)
		ls.CreationTimestamp = metav1.Time{} // a create
		return ls
	}
	squatted := func() *incluster.Objects {
		return &incluster.Objects{
			Gateways:   []*gwv1.Gateway{fixture.Gateway(gwv1.NamespacesFromAll)},
			Namespaces: []*metav1.PartialObjectMetadata{fixture.Namespace("team-a", nil), fixture.Namespace("team-b", nil)},
			Sets: []*gwv1.ListenerSet{fixture.Attached("team-a", "a", 5, fixture.Entry("https", 443, "HTTPS", "*.a.example.com"),
				fixture.Entry("http", 8080, "HTTP", "*.a.example.com"))},
		}
	}
	held := func(h, by, listener string, port int) string {
		if h == by {
			return fmt.Sprintf(incluster.DetailHostnameHeld, h, `namespace "team-a"`, "team-a/a listener "+listener, port)
		}
		return fmt.Sprintf(incluster.DetailHostnameClaimed, h, by, `namespace "team-a"`, "team-a/a listener "+listener, port)
	}
	tests := []struct {
		rule     string
		ls       *gwv1.ListenerSet
		old      *gwv1.ListenerSet
		cluster  *incluster.Objects
		tenancy  incluster.Tenancy
		want     field.ErrorList
		warnings []string
	}{
		{
			rule:    "declared: a name under a declared wildcard, and a declared exact name",
			ls:      mine(fixture.Entry("a", 80, "HTTP", "x.b.example.com"), fixture.Entry("b", 81, "HTTP", "shop.example.com")),
			cluster: &incluster.Objects{Namespaces: []*metav1.PartialObjectMetadata{declaring("team-b", "*.b.example.com,shop.example.com", nil)}},
		},
		{
			rule:    "declared: a name outside the declaration is denied, naming the declaration",
			ls:      mine(fixture.Entry("a", 80, "HTTP", "login.a.example.com")),
			cluster: &incluster.Objects{Namespaces: []*metav1.PartialObjectMetadata{declaring("team-b", "*.b.example.com", nil)}},
			want: field.ErrorList{field.Forbidden(listenersPath.Index(0).Child("hostname"),
				fmt.Sprintf(incluster.DetailHostnameNotDeclared, "login.a.example.com", "team-b", key, `"*.b.example.com"`))},
		},
		{
			rule:    "declared: a listener without a hostname needs *",
			ls:      mine(fixture.Entry("a", 80, "HTTP", "")),
			cluster: &incluster.Objects{Namespaces: []*metav1.PartialObjectMetadata{declaring("team-b", "*.b.example.com", nil)}},
			want: field.ErrorList{field.Required(listenersPath.Index(0).Child("hostname"),
				fmt.Sprintf(incluster.DetailNoHostnameDeclared, "team-b", "*", key, `"*.b.example.com"`))},
		},
		{
			rule:    "declared: * allows a listener without a hostname",
			ls:      mine(fixture.Entry("a", 80, "HTTP", "")),
			cluster: &incluster.Objects{Namespaces: []*metav1.PartialObjectMetadata{declaring("team-b", "*", nil)}},
		},
		{
			rule:    "declared: no declaration, nothing changes",
			ls:      mine(fixture.Entry("a", 80, "HTTP", "login.a.example.com")),
			cluster: &incluster.Objects{Namespaces: []*metav1.PartialObjectMetadata{fixture.Namespace("team-b", nil)}},
		},
		{
			rule:    "declared: the Namespace unknown, the rule skipped",
			ls:      mine(fixture.Entry("a", 80, "HTTP", "login.a.example.com")),
			cluster: &incluster.Objects{},
		},
		{
			rule:    "declared: another annotation key by setting",
			ls:      mine(fixture.Entry("a", 80, "HTTP", "login.a.example.com")),
			cluster: &incluster.Objects{Namespaces: []*metav1.PartialObjectMetadata{declaring("team-b", "*.b.example.com", nil)}},
			tenancy: incluster.Tenancy{AllowedHostnamesAnnotation: "example.com/hosts"},
		},
		{
			rule:    "declared: an unchanged hostname is ratcheted",
			ls:      mine(fixture.Entry("a", 80, "HTTP", "login.a.example.com"), fixture.Entry("b", 81, "HTTP", "new.b.example.com")),
			old:     mine(fixture.Entry("a", 80, "HTTP", "login.a.example.com")),
			cluster: &incluster.Objects{Namespaces: []*metav1.PartialObjectMetadata{declaring("team-b", "*.b.example.com", nil)}},
			warnings: []string{"spec.listeners[0].hostname: Forbidden: " + fmt.Sprintf(verdict.WarnRatcheted,
				fmt.Sprintf(incluster.DetailHostnameNotDeclared, "login.a.example.com", "team-b", key, `"*.b.example.com"`))},
		},
		{
			rule:    "declared: a malformed declaration denies, each bad entry named",
			ls:      mine(fixture.Entry("a", 80, "HTTP", "x.b.example.com")),
			cluster: &incluster.Objects{Namespaces: []*metav1.PartialObjectMetadata{declaring("team-b", "*.b.example.com,,10.0.0.1", nil)}},
			want: field.ErrorList{
				field.Invalid(nsPath, "team-b", fmt.Sprintf(incluster.DetailDeclarationProblem, key, "team-b", `entry 2 "": empty entry`)),
				field.Invalid(nsPath, "team-b", fmt.Sprintf(incluster.DetailDeclarationProblem, key, "team-b", `entry 3 "10.0.0.1": `+object.DetailHostnameIP)),
			},
		},
		{
			rule:    "declared: a malformed declaration denies an unchanged set too (closed)",
			ls:      mine(fixture.Entry("a", 80, "HTTP", "x.b.example.com")),
			old:     mine(fixture.Entry("a", 80, "HTTP", "x.b.example.com")),
			cluster: &incluster.Objects{Namespaces: []*metav1.PartialObjectMetadata{declaring("team-b", "", nil)}},
			want:    field.ErrorList{field.Invalid(nsPath, "team-b", fmt.Sprintf(incluster.DetailDeclarationProblem, key, "team-b", incluster.DetailDeclarationEmpty))},
		},
		{
			rule:    "first claim: a name under another owner's wildcard, on both ports",
			ls:      mine(fixture.WithCert(fixture.Entry("https", 443, "HTTPS", "login.a.example.com"), "", "cert"), fixture.Entry("http", 8080, "HTTP", "login.a.example.com")),
			cluster: squatted(),
			warnings: []string{`spec.listeners[0].hostname: hostname "login.a.example.com" overlaps hostname "*.a.example.com" of team-a/a listener https on port 443: ` +
				`both get OverlappingTLSConfig (OverlappingHostnames); HTTP/2 connection coalescing may reach the other's routes`,
				"spec.listeners[0].hostname: " + held("login.a.example.com", "*.a.example.com", "https", 443), "spec.listeners[1].hostname: " + held("login.a.example.com", "*.a.example.com", "https", 443)},
		},
		{
			rule:     "first claim: on another port than the holder's",
			ls:       mine(fixture.Entry("http", 9000, "HTTP", "x.a.example.com")),
			cluster:  squatted(),
			warnings: []string{"spec.listeners[0].hostname: " + held("x.a.example.com", "*.a.example.com", "https", 443)},
		},
		{
			rule:     "first claim: a wildcard over another owner's name",
			ls:       mine(fixture.Entry("http", 9000, "HTTP", "*.example.com")),
			cluster:  squatted(),
			warnings: []string{"spec.listeners[0].hostname: " + held("*.example.com", "*.a.example.com", "https", 443)},
		},
		{
			rule:    "first claim: deny",
			ls:      mine(fixture.Entry("http", 9000, "HTTP", "*.a.example.com")),
			cluster: squatted(),
			tenancy: incluster.Tenancy{FirstClaim: incluster.ClaimDeny},
			want:    field.ErrorList{field.Forbidden(listenersPath.Index(0).Child("hostname"), held("*.a.example.com", "*.a.example.com", "https", 443))},
		},
		{
			rule:    "first claim: off",
			ls:      mine(fixture.Entry("http", 9000, "HTTP", "*.a.example.com")),
			cluster: squatted(),
			tenancy: incluster.Tenancy{FirstClaim: incluster.ClaimOff},
		},
		{
			rule:    "first claim: a name that does not overlap",
			ls:      mine(fixture.Entry("http", 9000, "HTTP", "a.example.com"), fixture.Entry("b", 9001, "HTTP", "*.b.example.com"), fixture.Entry("none", 9002, "HTTP", "")),
			cluster: squatted(),
		},
		{
			rule: "first claim: the same owner by the tenant label",
			ls:   mine(fixture.Entry("http", 9000, "HTTP", "x.a.example.com")),
			cluster: func() *incluster.Objects {
				o := squatted()
				o.Namespaces = []*metav1.PartialObjectMetadata{fixture.Namespace("team-a", map[string]string{"tenant": "acme"}), fixture.Namespace("team-b", map[string]string{"tenant": "acme"})}
				return o
			}(),
			tenancy: incluster.Tenancy{TenantLabel: "tenant"},
		},
		{
			rule: "first claim: another tenant by the tenant label",
			ls:   mine(fixture.Entry("http", 9000, "HTTP", "x.a.example.com")),
			cluster: func() *incluster.Objects {
				o := squatted()
				o.Namespaces = []*metav1.PartialObjectMetadata{fixture.Namespace("team-a", map[string]string{"tenant": "acme"}), fixture.Namespace("team-b", map[string]string{"tenant": "other"})}
				return o
			}(),
			tenancy: incluster.Tenancy{TenantLabel: "tenant", FirstClaim: incluster.ClaimDeny},
			want:    field.ErrorList{field.Forbidden(listenersPath.Index(0).Child("hostname"), strings.Replace(held("x.a.example.com", "*.a.example.com", "https", 443), `namespace "team-a"`, `tenant "acme"`, 1))},
		},
		{
			rule: "first claim: a set the Gateway does not admit holds nothing",
			ls:   mine(fixture.Entry("http", 9000, "HTTP", "x.a.example.com")),
			cluster: func() *incluster.Objects {
				o := squatted()
				o.Gateways = []*gwv1.Gateway{withSelector(fixture.Gateway(gwv1.NamespacesFromSelector), "in", "yes")}
				return o
			}(),
			warnings: []string{`spec.parentRef: Gateway gateway-ns/gw does not admit this ListenerSet (NotAllowed): namespace labels do not match allowedListeners.namespaces.selector`},
		},
		{
			rule: "first claim: an unchanged hostname of an older set is not flagged by a newer squatter",
			ls:   fixture.Attached("team-a", "a", 5, fixture.Entry("http", 8080, "HTTP", "*.a.example.com"), fixture.Entry("other", 81, "HTTP", "z.example.org")),
			old:  fixture.Attached("team-a", "a", 5, fixture.Entry("http", 8080, "HTTP", "*.a.example.com")),
			cluster: func() *incluster.Objects {
				o := squatted()
				o.Sets = append(o.Sets, fixture.Attached("team-b", "b", 9, fixture.Entry("x", 80, "HTTP", "login.a.example.com")))
				return o
			}(),
			tenancy: incluster.Tenancy{FirstClaim: incluster.ClaimDeny},
		},
		{
			rule: "first claim: an unchanged hostname of a stored squatter is ratcheted under deny",
			ls:   fixture.Attached("team-b", "b", 9, fixture.Entry("x", 80, "HTTP", "login.a.example.com"), fixture.Entry("y", 81, "HTTP", "b.example.org")),
			old:  fixture.Attached("team-b", "b", 9, fixture.Entry("x", 80, "HTTP", "login.a.example.com")),
			cluster: func() *incluster.Objects {
				o := squatted()
				o.Sets = append(o.Sets, fixture.Attached("team-b", "b", 9, fixture.Entry("x", 80, "HTTP", "login.a.example.com")))
				return o
			}(),
			tenancy:  incluster.Tenancy{FirstClaim: incluster.ClaimDeny},
			warnings: []string{"spec.listeners[0].hostname: Forbidden: " + fmt.Sprintf(verdict.WarnRatcheted, held("login.a.example.com", "*.a.example.com", "https", 443))},
		},
		{
			rule: "first claim: an older set taking a newer owner's name anew is judged against it",
			ls:   fixture.Attached("team-a", "a", 5, fixture.Entry("http", 8080, "HTTP", "*.a.example.com"), fixture.Entry("take", 82, "HTTP", "b.example.org")),
			old:  fixture.Attached("team-a", "a", 5, fixture.Entry("http", 8080, "HTTP", "*.a.example.com")),
			cluster: func() *incluster.Objects {
				o := squatted()
				o.Sets = append(o.Sets, fixture.Attached("team-b", "b", 9, fixture.Entry("y", 81, "HTTP", "b.example.org")))
				return o
			}(),
			tenancy: incluster.Tenancy{FirstClaim: incluster.ClaimDeny},
			want: field.ErrorList{field.Forbidden(listenersPath.Index(1).Child("hostname"),
				fmt.Sprintf(incluster.DetailHostnameHeld, "b.example.org", `namespace "team-b"`, "team-b/b listener y", 81))},
		},
		{
			rule:     "route capture: no hostname and from All",
			ls:       mine(withFrom(fixture.Entry("open", 9090, "HTTP", ""), gwv1.NamespacesFromAll)),
			warnings: []string{"spec.listeners[0].allowedRoutes.namespaces.from: " + fmt.Sprintf(object.WarnRouteCapture, "All")},
		},
		{
			rule: "route capture: a hostname, or from Same, is no capture",
			ls:   mine(withFrom(fixture.Entry("named", 9090, "HTTP", "x.b.example.com"), gwv1.NamespacesFromAll), withFrom(fixture.Entry("same", 9091, "HTTP", ""), gwv1.NamespacesFromSame)),
		},
	}
	for _, tc := range tests {
		t.Run(tc.rule, func(t *testing.T) {
			opts := Options{Tenancy: tc.tenancy}
			if tc.cluster != nil {
				opts.Cluster = tc.cluster
			}
			errs, warnings := Validate(tc.ls, tc.old, opts)
			assert.Equal(t, tc.want, coded(t, errs))
			assert.Equal(t, tc.warnings, codedWarnings(t, warnings).Strings())
		})
	}
}

func withFrom(e gwv1.ListenerEntry, from gwv1.FromNamespaces) gwv1.ListenerEntry {
	e.AllowedRoutes = &gwv1.AllowedRoutes{Namespaces: &gwv1.RouteNamespaces{From: ptr.To(from)}}
	return e
}

// TestMergedListenersClaims: the listing's owners and claims, the first
// claim keeping the name as the rule says.
func TestMergedListenersClaims(t *testing.T) {
	gw := fixture.Gateway(gwv1.NamespacesFromAll, fixture.GatewayListener("platform", 443, "HTTPS", "*.example.com"))
	a := fixture.Attached("team-a", "a", 5, fixture.Entry("https", 443, "HTTPS", "*.a.example.com"))
	b := fixture.Attached("team-b", "b", 9, fixture.Entry("login", 8443, "HTTPS", "login.a.example.com"), fixture.Entry("own", 80, "HTTP", "b.example.org"))
	c := fixture.Attached("team-c", "c", 10, fixture.Entry("same-tenant", 80, "HTTP", "c.a.example.com"))
	o := &incluster.Objects{Namespaces: []*metav1.PartialObjectMetadata{fixture.Namespace("team-a", map[string]string{"t": "acme"}), fixture.Namespace("team-b", nil),
		fixture.Namespace("team-c", map[string]string{"t": "acme"})}}
	rows := incluster.MergedListeners(gw, []*gwv1.ListenerSet{c, b, a}, incluster.MergeOptions{Cluster: o, Tenancy: &incluster.Tenancy{TenantLabel: "t"}})
	require.Len(t, rows, 5)
	assert.Nil(t, rows[0].Owner, "the Gateway's own listener is the platform's")
	assert.Equal(t, &incluster.Owner{Tenant: true, Name: "acme"}, rows[1].Owner)
	assert.Equal(t, &incluster.Owner{Name: "team-b"}, rows[2].Owner)
	assert.Nil(t, rows[1].HeldBy)
	assert.Equal(t, &incluster.Claim{ListenerRef: rows[2].ListenerRef, Hostname: "login.a.example.com", Owner: incluster.Owner{Name: "team-b"}}, rows[1].OverlappedBy)
	assert.Equal(t, &incluster.Claim{ListenerRef: rows[1].ListenerRef, Hostname: "*.a.example.com", Owner: incluster.Owner{Tenant: true, Name: "acme"}}, rows[2].HeldBy)
	assert.Nil(t, rows[3].HeldBy, "b.example.org overlaps nothing")
	assert.Nil(t, rows[4].HeldBy, "team-c is acme too")
	// The rule flags the one the listing says is held.
	_, warnings := Validate(b, nil, Options{Cluster: &incluster.Objects{Gateways: []*gwv1.Gateway{gw}, Sets: []*gwv1.ListenerSet{a, b, c}, Namespaces: o.Namespaces},
		Tenancy: incluster.Tenancy{TenantLabel: "t"}})
	var claimed []string
	for _, w := range warnings {
		if w.Code == incluster.CodeHostnameClaimed {
			claimed = append(claimed, w.Path)
		}
	}
	assert.Equal(t, []string{"spec.listeners[0].hostname"}, claimed)
}
