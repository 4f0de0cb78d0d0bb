package validation

import (
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/findings"
	"github.com/airlock/listenerset-webhook/validation/internal/fixture"
	"github.com/airlock/listenerset-webhook/validation/internal/incluster"
	"github.com/airlock/listenerset-webhook/validation/internal/object"
	"github.com/airlock/listenerset-webhook/validation/internal/views"
)

func secret(ns, name string) *metav1.PartialObjectMetadata {
	return &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
}

func grant(ns string, fromNamespace string, to *gwv1.ObjectName) *gwv1.ReferenceGrant {
	return &gwv1.ReferenceGrant{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "allow"},
		Spec: gwv1.ReferenceGrantSpec{
			From: []gwv1.ReferenceGrantFrom{{Group: gwv1.GroupName, Kind: "ListenerSet", Namespace: gwv1.Namespace(fromNamespace)}},
			To:   []gwv1.ReferenceGrantTo{{Group: "", Kind: "Secret", Name: to}},
		},
	}
}

func TestValidateListenerSetInCluster(t *testing.T) {
	listenersPath := field.NewPath("spec", "listeners")
	https := fixture.GatewayListener("https", 443, "HTTPS", "")
	// the ListenerSet under admission: team-a/mine, created at fixture.T0+10m
	mine := func(listeners ...gwv1.ListenerEntry) *gwv1.ListenerSet {
		return fixture.Attached("team-a", "mine", 10, listeners...)
	}
	web := fixture.Entry("web", 8080, "HTTP", "a.example.com")

	tests := []struct {
		rule     string
		ls       *gwv1.ListenerSet
		cluster  *incluster.Objects
		want     field.ErrorList
		warnings []string
	}{
		{
			rule:    "nothing known: every cluster rule is skipped",
			ls:      mine(web),
			cluster: &incluster.Objects{},
		},
		{
			rule:     "1. the parent Gateway does not exist",
			ls:       mine(web),
			cluster:  &incluster.Objects{Gateways: []*gwv1.Gateway{}},
			warnings: []string{"spec.parentRef.name: Gateway gateway-ns/gw not found; the ListenerSet stays unattached until it exists"},
		},
		{
			rule: "1. a parentRef that is not a Gateway is not looked up",
			ls: func() *gwv1.ListenerSet {
				ls := mine(web)
				ls.Spec.ParentRef.Kind = ptr.To[gwv1.Kind]("ListenerSet")
				return ls
			}(),
			cluster: &incluster.Objects{Gateways: []*gwv1.Gateway{}},
			// the object's own rule, and no "Gateway not found"
			want: field.ErrorList{field.NotSupported(field.NewPath("spec", "parentRef", "kind"), "ListenerSet", []string{"Gateway"})},
		},
		{
			rule:     "2. allowedListeners None (the default) refuses every ListenerSet",
			ls:       mine(web),
			cluster:  &incluster.Objects{Gateways: []*gwv1.Gateway{{ObjectMeta: metav1.ObjectMeta{Namespace: "gateway-ns", Name: "gw"}}}},
			warnings: []string{"spec.parentRef: Gateway gateway-ns/gw does not admit this ListenerSet (NotAllowed): allowedListeners.namespaces.from is None (the default)"},
		},
		{
			rule:     "2. allowedListeners Same refuses another namespace",
			ls:       mine(web),
			cluster:  &incluster.Objects{Gateways: []*gwv1.Gateway{fixture.Gateway(gwv1.NamespacesFromSame)}},
			warnings: []string{"spec.parentRef: Gateway gateway-ns/gw does not admit this ListenerSet (NotAllowed): allowedListeners.namespaces.from is Same"},
		},
		{
			rule: "2. allowedListeners Selector matches the namespace's labels",
			ls:   mine(web),
			cluster: &incluster.Objects{
				Gateways:   []*gwv1.Gateway{withSelector(fixture.Gateway(gwv1.NamespacesFromSelector), "gateway-access", "yes")},
				Namespaces: []*metav1.PartialObjectMetadata{fixture.Namespace("team-a", map[string]string{"gateway-access": "yes"})},
			},
		},
		{
			rule: "2. allowedListeners Selector refuses a namespace without the labels",
			ls:   mine(web),
			cluster: &incluster.Objects{
				Gateways:   []*gwv1.Gateway{withSelector(fixture.Gateway(gwv1.NamespacesFromSelector), "gateway-access", "yes")},
				Namespaces: []*metav1.PartialObjectMetadata{fixture.Namespace("team-a", nil)},
			},
			warnings: []string{"spec.parentRef: Gateway gateway-ns/gw does not admit this ListenerSet (NotAllowed): namespace labels do not match allowedListeners.namespaces.selector"},
		},
		{
			rule:    "2. allowedListeners Selector with the namespace unknown: skipped",
			ls:      mine(web),
			cluster: &incluster.Objects{Gateways: []*gwv1.Gateway{withSelector(fixture.Gateway(gwv1.NamespacesFromSelector), "gateway-access", "yes")}},
		},
		{
			rule:    "3. the Gateway's own listener wins: ProtocolConflict",
			ls:      mine(fixture.Entry("tls", 443, "HTTP", "")),
			cluster: &incluster.Objects{Gateways: []*gwv1.Gateway{fixture.Gateway(gwv1.NamespacesFromAll, https)}},
			want: field.ErrorList{field.Invalid(listenersPath.Index(0).Child("protocol"), "HTTP",
				"port 443 already uses protocol HTTPS in gateway-ns/gw listener https; this listener would be Conflicted (ProtocolConflict)")},
		},
		{
			rule:    "3. the Gateway's own listener wins: HostnameConflict",
			ls:      mine(fixture.WithCert(fixture.Entry("tls", 443, "HTTPS", ""), "", "cert")),
			cluster: &incluster.Objects{Gateways: []*gwv1.Gateway{fixture.Gateway(gwv1.NamespacesFromAll, https)}},
			want: field.ErrorList{field.Invalid(listenersPath.Index(0).Child("hostname"), "",
				"same port, protocol and hostname as gateway-ns/gw listener https; this listener would be Conflicted (HostnameConflict)")},
		},
		{
			// no conflict; the Gateway's https matches every hostname, so
			// both overlap (a warning, not an error under strict)
			rule:    "3. another hostname on the Gateway's port and protocol is fine",
			ls:      mine(fixture.WithCert(fixture.Entry("tls", 443, "HTTPS", "a.example.com"), "", "cert")),
			cluster: &incluster.Objects{Gateways: []*gwv1.Gateway{fixture.Gateway(gwv1.NamespacesFromAll, https)}},
			warnings: []string{`spec.listeners[0].hostname: hostname "a.example.com" overlaps hostname (none) of gateway-ns/gw listener https on port 443: ` +
				`both get OverlappingTLSConfig (OverlappingHostnames); HTTP/2 connection coalescing may reach the other's routes`},
		},
		{
			rule: "3. an older ListenerSet wins over a newer one",
			ls:   mine(web),
			cluster: &incluster.Objects{
				Gateways: []*gwv1.Gateway{fixture.Gateway(gwv1.NamespacesFromAll)},
				Sets:     []*gwv1.ListenerSet{fixture.Attached("team-z", "old", 5, fixture.Entry("web", 8080, "HTTP", "a.example.com"))},
			},
			want: field.ErrorList{field.Invalid(listenersPath.Index(0).Child("hostname"), "a.example.com",
				"same port, protocol and hostname as team-z/old listener web; this listener would be Conflicted (HostnameConflict)")},
			// and, another namespace's name, the first claim's warning
			warnings: []string{`spec.listeners[0].hostname: hostname "a.example.com" is held by namespace "team-z" (team-z/old listener web, port 8080): the first claim keeps it`},
		},
		{
			rule: "3. a newer ListenerSet does not win",
			ls:   mine(web),
			cluster: &incluster.Objects{
				Gateways: []*gwv1.Gateway{fixture.Gateway(gwv1.NamespacesFromAll)},
				Sets:     []*gwv1.ListenerSet{fixture.Attached("team-0", "new", 15, fixture.Entry("web", 8080, "HTTPS", ""))},
			},
		},
		{
			rule: "3. same creation time: namespace/name decides",
			ls:   mine(web),
			cluster: &incluster.Objects{
				Gateways: []*gwv1.Gateway{fixture.Gateway(gwv1.NamespacesFromAll)},
				Sets: []*gwv1.ListenerSet{
					fixture.Attached("team-b", "later", 10, fixture.Entry("b", 8080, "HTTPS", "")),
					fixture.Attached("team-a", "aaa", 10, fixture.Entry("a", 8080, "HTTPS", "")),
				},
			},
			want: field.ErrorList{field.Invalid(listenersPath.Index(0).Child("protocol"), "HTTP",
				"port 8080 already uses protocol HTTPS in team-a/aaa listener a; this listener would be Conflicted (ProtocolConflict)")},
		},
		{
			rule: "3. the oldest of several wins, whatever the list order",
			ls:   mine(web),
			cluster: &incluster.Objects{
				Gateways: []*gwv1.Gateway{fixture.Gateway(gwv1.NamespacesFromAll)},
				Sets: []*gwv1.ListenerSet{
					fixture.Attached("team-c", "second", 3, fixture.Entry("x", 8080, "HTTPS", "")),
					fixture.Attached("team-d", "first", 1, fixture.Entry("y", 8080, "microgateway.airlock.com/http3", "")),
				},
			},
			want: field.ErrorList{field.Invalid(listenersPath.Index(0).Child("protocol"), "HTTP",
				"port 8080 already uses protocol microgateway.airlock.com/http3 in team-d/first listener y; this listener would be Conflicted (ProtocolConflict)")},
		},
		{
			rule: "3. a ListenerSet being created (no creation time yet) comes last",
			ls:   &gwv1.ListenerSet{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "brand-new"}, Spec: mine(web).Spec},
			cluster: &incluster.Objects{
				Gateways: []*gwv1.Gateway{fixture.Gateway(gwv1.NamespacesFromAll)},
				Sets:     []*gwv1.ListenerSet{fixture.Attached("team-z", "z", 500, fixture.Entry("web", 8080, "HTTPS", ""))},
			},
			want: field.ErrorList{field.Invalid(listenersPath.Index(0).Child("protocol"), "HTTP",
				"port 8080 already uses protocol HTTPS in team-z/z listener web; this listener would be Conflicted (ProtocolConflict)")},
		},
		{
			rule: "3. the stored copy of the object itself is not a rival (update)",
			ls:   mine(web),
			cluster: &incluster.Objects{
				Gateways: []*gwv1.Gateway{fixture.Gateway(gwv1.NamespacesFromAll)},
				Sets:     []*gwv1.ListenerSet{fixture.Attached("team-a", "mine", 10, fixture.Entry("web", 8080, "HTTPS", ""))},
			},
		},
		{
			rule: "3. ListenerSets of other Gateways and ListenerSets the Gateway does not admit are not rivals",
			ls:   mine(web),
			cluster: &incluster.Objects{
				Gateways:   []*gwv1.Gateway{withSelector(fixture.Gateway(gwv1.NamespacesFromSelector), "gateway-access", "yes")},
				Namespaces: []*metav1.PartialObjectMetadata{fixture.Namespace("team-a", map[string]string{"gateway-access": "yes"}), fixture.Namespace("team-x", nil)},
				Sets: []*gwv1.ListenerSet{
					fixture.Attached("team-x", "not-admitted", 1, fixture.Entry("web", 8080, "HTTPS", "")),
					{
						ObjectMeta: metav1.ObjectMeta{Namespace: "team-y", Name: "other-gateway"},
						Spec:       gwv1.ListenerSetSpec{ParentRef: gwv1.ParentGatewayReference{Name: "gw"}, Listeners: []gwv1.ListenerEntry{fixture.Entry("web", 8080, "HTTPS", "")}},
					},
				},
			},
		},
		{
			rule:     "3. no conflict checks when the Gateway does not admit the set",
			ls:       mine(fixture.Entry("tls", 443, "HTTP", "")),
			cluster:  &incluster.Objects{Gateways: []*gwv1.Gateway{fixture.Gateway(gwv1.NamespacesFromSame, https)}},
			warnings: []string{"spec.parentRef: Gateway gateway-ns/gw does not admit this ListenerSet (NotAllowed): allowedListeners.namespaces.from is Same"},
		},
		{
			rule:    "4. a cross-namespace certificateRef without a ReferenceGrant: RefNotPermitted",
			ls:      mine(fixture.WithCert(fixture.Entry("tls", 443, "HTTPS", ""), "certs", "wildcard")),
			cluster: &incluster.Objects{Grants: []*gwv1.ReferenceGrant{grant("certs", "team-b", nil)}},
			want: field.ErrorList{field.Forbidden(listenersPath.Index(0).Child("tls", "certificateRefs").Index(0).Child("namespace"),
				`no ReferenceGrant in namespace "certs" allows ListenerSets from "team-a" to use this Secret (RefNotPermitted)`)},
		},
		{
			rule:    "4. a ReferenceGrant for every Secret of the namespace permits it",
			ls:      mine(fixture.WithCert(fixture.Entry("tls", 443, "HTTPS", ""), "certs", "wildcard")),
			cluster: &incluster.Objects{Grants: []*gwv1.ReferenceGrant{grant("certs", "team-a", nil)}},
		},
		{
			rule:    "4. a ReferenceGrant for another Secret does not",
			ls:      mine(fixture.WithCert(fixture.Entry("tls", 443, "HTTPS", ""), "certs", "wildcard")),
			cluster: &incluster.Objects{Grants: []*gwv1.ReferenceGrant{grant("certs", "team-a", ptr.To[gwv1.ObjectName]("other"))}},
			want: field.ErrorList{field.Forbidden(listenersPath.Index(0).Child("tls", "certificateRefs").Index(0).Child("namespace"),
				`no ReferenceGrant in namespace "certs" allows ListenerSets from "team-a" to use this Secret (RefNotPermitted)`)},
		},
		{
			rule:     "5. a referenced Secret that does not exist",
			ls:       mine(fixture.WithCert(fixture.Entry("tls", 443, "HTTPS", ""), "", "missing")),
			cluster:  &incluster.Objects{Secrets: []*metav1.PartialObjectMetadata{secret("team-a", "other")}},
			warnings: []string{"spec.listeners[0].tls.certificateRefs[0].name: Secret team-a/missing not found (InvalidCertificateRef until it exists)"},
		},
		{
			rule:    "5. a referenced Secret that exists",
			ls:      mine(fixture.WithCert(fixture.Entry("tls", 443, "HTTPS", ""), "", "present")),
			cluster: &incluster.Objects{Secrets: []*metav1.PartialObjectMetadata{secret("team-a", "present")}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.rule, func(t *testing.T) {
			errs, warnings := Validate(tc.ls, nil, Options{Cluster: tc.cluster, Strict: true})
			assert.Equal(t, tc.want, coded(t, errs))
			assert.Equal(t, tc.warnings, codedWarnings(t, warnings).Strings())
		})
	}
}

func withSelector(gw *gwv1.Gateway, key, value string) *gwv1.Gateway {
	gw.Spec.AllowedListeners.Namespaces.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{key: value}}
	return gw
}

// Outside strict mode the cluster-aware errors are warnings, after the
// cluster's own warnings; in strict mode they deny.
func TestClusterFindingsStrictness(t *testing.T) {
	cluster := &incluster.Objects{
		Gateways: []*gwv1.Gateway{fixture.Gateway(gwv1.NamespacesFromAll, fixture.GatewayListener("https", 443, "HTTPS", ""))},
		Secrets:  []*metav1.PartialObjectMetadata{},
	}
	ls := fixture.Attached("team-a", "mine", 10, fixture.Entry("web", 443, "HTTP", ""), fixture.WithCert(fixture.Entry("tls", 8443, "HTTPS", ""), "", "absent"))
	conflict := field.Invalid(field.NewPath("spec", "listeners").Index(0).Child("protocol"), "HTTP",
		"port 443 already uses protocol HTTPS in gateway-ns/gw listener https; this listener would be Conflicted (ProtocolConflict)")
	secretMissing := "spec.listeners[1].tls.certificateRefs[0].name: Secret team-a/absent not found (InvalidCertificateRef until it exists)"

	errs, warnings := Validate(ls, nil, Options{Cluster: cluster})
	assert.Empty(t, errs)
	assert.Equal(t, []string{secretMissing, conflict.Field + ": " + conflict.Detail}, codedWarnings(t, warnings).Strings())
	assert.Equal(t, []findings.Code{incluster.CodeSecretNotFound, object.CodeMergedProtocolConflict}, []findings.Code{warnings[0].Code, warnings[1].Code})
	assert.Equal(t, []findings.WarningKind{incluster.KindSecretNotFound, incluster.KindClusterFinding}, []findings.WarningKind{warnings[0].Kind, warnings[1].Kind})

	errs, warnings = Validate(ls, nil, Options{Cluster: cluster, Strict: true})
	assert.Equal(t, field.ErrorList{conflict}, coded(t, errs))
	assert.Equal(t, []string{secretMissing}, warnings.Strings())
}

// The object-only reminder "needs a ReferenceGrant" gives way to what the
// cluster knows: nothing when a grant permits the reference, RefNotPermitted
// when none does; it stays when the grants are unknown.
func TestCrossNamespaceReminderGivesWayToGrants(t *testing.T) {
	ls := fixture.Attached("team-a", "mine", 0, fixture.WithCert(fixture.Entry("tls", 443, "HTTPS", ""), "certs", "wildcard"))
	reminder := `spec.listeners[0].tls.certificateRefs[0].namespace: cross-namespace reference: needs a ReferenceGrant in namespace "certs"`
	errs, warnings := Validate(ls, nil, Options{})
	require.Empty(t, errs)
	require.Equal(t, []string{reminder}, warnings.Strings())

	for name, tc := range map[string]struct {
		cluster views.Cluster
		want    []string
	}{
		"grants unknown":     {&incluster.Objects{}, []string{reminder}},
		"a grant permits it": {&incluster.Objects{Grants: []*gwv1.ReferenceGrant{grant("certs", "team-a", nil)}}, nil},
		"no grant permits it": {&incluster.Objects{Grants: []*gwv1.ReferenceGrant{grant("certs", "team-b", nil)}},
			[]string{`spec.listeners[0].tls.certificateRefs[0].namespace: no ReferenceGrant in namespace "certs" allows ListenerSets from "team-a" to use this Secret (RefNotPermitted)`}},
	} {
		errs, warnings := Validate(ls, nil, Options{Cluster: tc.cluster})
		assert.Empty(t, errs, name)
		assert.Equal(t, tc.want, codedWarnings(t, warnings).Strings(), name)
	}
}

// lookups records the Gateways the rules look up.
type lookups struct {
	*incluster.Objects
	gateways []string
}

func (l *lookups) Gateway(namespace, name string) (*gwv1.Gateway, bool) {
	l.gateways = append(l.gateways, incluster.GatewayKey(namespace, name))
	return l.Objects.Gateway(namespace, name)
}

// TestParentKeyIsTheGatewayTheRulesJudgeBy: for every shape of parentRef,
// the key an index files a ListenerSet under (ParentKey) is the Gateway the
// rules look up when that ListenerSet is admitted, and the ListenerSet is a
// rival of exactly that Gateway's other ListenerSets: the cluster view's
// index and the verdict cannot disagree about who is whose child.
func TestParentKeyIsTheGatewayTheRulesJudgeBy(t *testing.T) {
	ref := func(mutate func(*gwv1.ParentGatewayReference)) *gwv1.ListenerSet {
		ls := fixture.Attached("team-a", "probe", 1, fixture.Entry("web", 8080, "HTTPS", ""))
		ls.Spec.ParentRef = gwv1.ParentGatewayReference{Name: "gw"}
		mutate(&ls.Spec.ParentRef)
		return ls
	}
	tests := []struct {
		name   string
		ls     *gwv1.ListenerSet
		parent string // "" for none
	}{
		{"no namespace: the ListenerSet's own", ref(func(*gwv1.ParentGatewayReference) {}), "team-a/gw"},
		{"empty namespace: the ListenerSet's own", ref(func(r *gwv1.ParentGatewayReference) { r.Namespace = ptr.To[gwv1.Namespace]("") }), "team-a/gw"},
		{"another namespace", ref(func(r *gwv1.ParentGatewayReference) { r.Namespace = ptr.To[gwv1.Namespace]("gateway-ns") }), "gateway-ns/gw"},
		{"group and kind spelled out", ref(func(r *gwv1.ParentGatewayReference) {
			r.Namespace, r.Group, r.Kind = ptr.To[gwv1.Namespace]("gateway-ns"), ptr.To[gwv1.Group](gwv1.GroupName), ptr.To[gwv1.Kind]("Gateway")
		}), "gateway-ns/gw"},
		{"another kind", ref(func(r *gwv1.ParentGatewayReference) { r.Kind = ptr.To[gwv1.Kind]("ListenerSet") }), ""},
		{"an empty kind", ref(func(r *gwv1.ParentGatewayReference) { r.Kind = ptr.To[gwv1.Kind]("") }), ""},
		{"another group", ref(func(r *gwv1.ParentGatewayReference) { r.Group = ptr.To[gwv1.Group]("example.com") }), ""},
		{"the core group", ref(func(r *gwv1.ParentGatewayReference) { r.Group = ptr.To[gwv1.Group]("") }), ""},
		{"no name", ref(func(r *gwv1.ParentGatewayReference) { r.Name = "" }), ""},
	}
	// Both Gateways a probe could belong to, admitting every namespace.
	gateways := []*gwv1.Gateway{fixture.Gateway(gwv1.NamespacesFromAll), fixture.Gateway(gwv1.NamespacesFromAll)}
	gateways[1].Namespace = "team-a"
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			key, ok := incluster.ParentKey(tc.ls)
			assert.Equal(t, tc.parent != "", ok)
			assert.Equal(t, tc.parent, key)

			// The Gateway the rules judge the ListenerSet against, when admitted.
			seen := &lookups{Objects: &incluster.Objects{Gateways: gateways}}
			Validate(tc.ls, nil, Options{Cluster: seen})
			if tc.parent == "" {
				assert.Empty(t, seen.gateways)
			} else {
				assert.Equal(t, []string{tc.parent}, seen.gateways)
			}

			// The Gateways it is a rival under, once stored: a newcomer on each
			// Gateway with the same port and another protocol.
			stored := &incluster.Objects{Gateways: gateways, Sets: []*gwv1.ListenerSet{tc.ls}}
			for _, gw := range gateways {
				children, known := stored.ListenerSetsOf(gw.Namespace, gw.Name)
				require.True(t, known)
				newcomer := fixture.Attached("team-n", "newcomer", 2, fixture.Entry("web", 8080, "HTTP", ""))
				newcomer.Spec.ParentRef.Namespace = ptr.To(gwv1.Namespace(gw.Namespace))
				errs, _ := Validate(newcomer, nil, Options{Cluster: stored, Strict: true})
				if incluster.GatewayKey(gw.Namespace, gw.Name) == tc.parent {
					assert.Equal(t, []*gwv1.ListenerSet{tc.ls}, children, gw.Namespace)
					assert.Len(t, errs, 1, "a conflict with the probe on %s/gw", gw.Namespace)
				} else {
					assert.Empty(t, children, gw.Namespace)
					assert.Empty(t, errs, "no conflict with the probe on %s/gw", gw.Namespace)
				}
			}
		})
	}
}

// mergeFixture is a Gateway with ListenerSets of every state: the Gateway's
// own listeners first (two indistinct: neither wins), then the sets by
// creation time and namespace/name whatever their order here, one of them
// not created yet.
func mergeFixture() (*gwv1.Gateway, []*gwv1.ListenerSet, *incluster.Objects) {
	gw := withSelector(fixture.Gateway(gwv1.NamespacesFromSelector,
		fixture.GatewayListener("http", 80, "HTTP", ""),
		fixture.GatewayListener("https", 443, "HTTPS", "shop.example.com"),
		fixture.GatewayListener("plain-443", 443, "HTTP", ""), // indistinct from the Gateway's own https: both Conflicted
	), "gateway-access", "yes")
	invalid := fixture.Attached("team-a", "bad-routes", 2, fixture.Entry("grpc", 9090, "HTTP", ""))
	invalid.Spec.Listeners[0].AllowedRoutes = &gwv1.AllowedRoutes{Kinds: []gwv1.RouteGroupKind{{Kind: "GRPCRoute"}}}
	sets := []*gwv1.ListenerSet{
		fixture.Attached("team-b", "same-time", 5, fixture.Entry("api", 8080, "HTTP", "api.example.com")),
		fixture.Attached("team-a", "same-time", 5, fixture.Entry("web", 8080, "HTTP", "www.example.com")),
		{ // not created yet: last
			ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "aaa-new"},
			Spec:       fixture.Attached("", "", 0, fixture.WithCert(fixture.Entry("late", 8443, "HTTPS", ""), "", "cert")).Spec,
		},
		fixture.Attached("team-a", "oldest", 1,
			fixture.WithCert(fixture.Entry("shop", 443, "HTTPS", "shop.example.com"), "", "cert"), // HostnameConflict with the Gateway
			fixture.WithCert(fixture.Entry("tls", 80, "HTTPS", ""), "", "cert"),                   // ProtocolConflict with the Gateway
			fixture.WithCert(fixture.Entry("mail", 8443, "HTTPS", "mail.example.com"), "", "cert")),
		invalid,
		fixture.Attached("team-x", "outsider", 3, fixture.WithCert(fixture.Entry("web", 8080, "HTTPS", ""), "", "cert")),
		fixture.Attached("team-u", "unknown-ns", 4, fixture.WithCert(fixture.Entry("web", 8080, "HTTPS", ""), "", "cert")),
		fixture.Attached("team-b", "dup-www", 6, fixture.Entry("www", 8080, "HTTP", "www.example.com")), // HostnameConflict with team-a/same-time
	}
	objects := &incluster.Objects{
		Gateways: []*gwv1.Gateway{gw},
		Sets:     sets,
		Namespaces: []*metav1.PartialObjectMetadata{
			fixture.Namespace("team-a", map[string]string{"gateway-access": "yes"}),
			fixture.Namespace("team-b", map[string]string{"gateway-access": "yes"}),
			fixture.Namespace("team-x", nil),
		},
	}
	return gw, sets, objects
}

func TestMergedListeners(t *testing.T) {
	gw, sets, objects := mergeFixture()
	rows := incluster.MergedListeners(gw, sets, incluster.MergeOptions{Cluster: objects, JudgeSets: true})

	gwSrc := object.ListenerSource{Kind: object.SourceGateway, Namespace: "gateway-ns", Name: "gw"}
	set := func(ns, name string) object.ListenerSource {
		return object.ListenerSource{Kind: object.SourceListenerSet, Namespace: ns, Name: name}
	}
	type row struct {
		source   string
		listener gwv1.SectionName
		state    incluster.ListenerState
		reason   string
		winner   string
	}
	want := []row{
		{"gateway-ns/gw", "http", incluster.ListenerAccepted, "", ""},
		{"gateway-ns/gw", "https", incluster.ListenerConflicted, object.ReasonProtocolConflict, ""},
		{"gateway-ns/gw", "plain-443", incluster.ListenerConflicted, object.ReasonProtocolConflict, ""},
		{"team-a/oldest", "shop", incluster.ListenerConflicted, object.ReasonHostnameConflict, "gateway-ns/gw https"},
		{"team-a/oldest", "tls", incluster.ListenerConflicted, object.ReasonProtocolConflict, "gateway-ns/gw http"},
		{"team-a/oldest", "mail", incluster.ListenerAccepted, "", ""},
		{"team-a/bad-routes", "grpc", incluster.ListenerInvalid, "", ""},
		{"team-x/outsider", "web", incluster.ListenerNotAllowed, "allowedListeners.namespaces.selector: gateway-access=yes", ""},
		{"team-u/unknown-ns", "web", incluster.ListenerUnknown, `labels of namespace "team-u" unknown (allowedListeners.namespaces.selector: gateway-access=yes)`, ""},
		{"team-a/same-time", "web", incluster.ListenerAccepted, "", ""},
		{"team-b/same-time", "api", incluster.ListenerAccepted, "", ""},
		{"team-b/dup-www", "www", incluster.ListenerConflicted, object.ReasonHostnameConflict, "team-a/same-time web"},
		{"team-a/aaa-new", "late", incluster.ListenerAccepted, "", ""},
	}
	var got []row
	for i, r := range rows {
		assert.Equal(t, i+1, r.Precedence)
		g := row{source: r.Source.String(), listener: r.Listener, state: r.State, reason: r.Reason}
		if r.Winner != nil {
			g.winner = r.Winner.Source.String() + " " + string(r.Winner.Listener)
		}
		got = append(got, g)
	}
	assert.Equal(t, want, got)

	// Details: the Gateway's rows name the Gateway, conflicts carry the
	// webhook's error with the listener's path, Invalid the set's own errors.
	assert.Equal(t, gwSrc, rows[0].Source)
	assert.Equal(t, set("team-a", "oldest"), rows[3].Source)
	assert.Equal(t, field.ErrorList{field.Invalid(field.NewPath("spec", "listeners").Index(1).Child("protocol"), "HTTPS",
		"port 80 already uses protocol HTTP in gateway-ns/gw listener http; this listener would be Conflicted (ProtocolConflict)")}, coded(t, rows[4].Errors))
	assert.Equal(t, field.ErrorList{field.NotSupported(field.NewPath("spec", "listeners").Index(0).Child("allowedRoutes", "kinds").Index(0).Child("kind"),
		"GRPCRoute", []string{"HTTPRoute"})}, coded(t, rows[6].Errors))
	assert.Equal(t, 1, rows[4].Index)

	// Without JudgeSets (the cluster-aware rules' view of stored sets) the
	// invalid set takes its place like any other.
	unjudged := incluster.MergedListeners(gw, sets, incluster.MergeOptions{Cluster: objects})
	assert.Equal(t, incluster.ListenerAccepted, unjudged[6].State)

	// The input's order does not matter.
	reversed := slices.Clone(sets)
	slices.Reverse(reversed)
	assert.Equal(t, rows, incluster.MergedListeners(gw, reversed, incluster.MergeOptions{Cluster: objects, JudgeSets: true}))
}

// TestMergedListenersAreTheVerdict: the cluster-aware rule gives every
// ListenerSet exactly the conflicts its rows of the merged list show, so a
// listing built with MergedListeners shows what the webhook decides.
func TestMergedListenersAreTheVerdict(t *testing.T) {
	gw, sets, objects := mergeFixture()
	// The webhook never stores an invalid set: the cluster holds the others.
	var stored []*gwv1.ListenerSet
	for _, ls := range sets {
		if errs, _ := Validate(ls, nil, Options{}); len(errs) == 0 {
			stored = append(stored, ls)
		}
	}
	require.Len(t, stored, len(sets)-1)
	cluster := *objects
	cluster.Sets = stored
	rows := incluster.MergedListeners(gw, sets, incluster.MergeOptions{Cluster: objects, JudgeSets: true})
	conflicts := 0
	for _, ls := range stored {
		var want field.ErrorList
		for _, r := range rows {
			if r.Source.Namespace == ls.Namespace && r.Source.Name == ls.Name && r.State == incluster.ListenerConflicted {
				want = append(want, r.Errors...)
			}
		}
		conflicts += len(want)
		errs, _ := Validate(ls, nil, Options{Cluster: &cluster, Strict: true})
		assert.Equal(t, want, errs, "%s/%s", ls.Namespace, ls.Name)
	}
	assert.Equal(t, 3, conflicts, "the fixture's ListenerSet conflicts")
}

// BenchmarkValidateInCluster: the cluster-aware rules for a new ListenerSet
// on a Gateway with 100 other ListenerSets of two listeners each, half of
// them created in the same second (namespace/name decides), as make
// bench-scale's 10 000 sets over 100 Gateways give per Gateway.
func BenchmarkValidateInCluster(b *testing.B) {
	gw := fixture.Gateway(gwv1.NamespacesFromAll, fixture.GatewayListener("https", 443, "HTTPS", ""))
	sets := make([]*gwv1.ListenerSet, 0, 100)
	for i := range 100 {
		sets = append(sets, fixture.Attached(fmt.Sprintf("team-%02d", i%10), fmt.Sprintf("set-%03d", i), i/2,
			fixture.Entry("web", gwv1.PortNumber(10000+i), "HTTP", "a.example.com"),
			fixture.WithCert(fixture.Entry("tls", gwv1.PortNumber(20000+i), "HTTPS", "a.example.com"), "", "cert")))
	}
	cluster := &incluster.Objects{Gateways: []*gwv1.Gateway{gw}, Sets: sets}
	ls := &gwv1.ListenerSet{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "new"}, Spec: fixture.Attached("", "", 0,
		fixture.Entry("web", 10050, "HTTP", "a.example.com"), fixture.WithCert(fixture.Entry("tls", 443, "HTTPS", "b.example.com"), "", "cert")).Spec}
	ls.Spec.ParentRef = sets[0].Spec.ParentRef
	b.ReportAllocs()
	for b.Loop() {
		if errs, _ := Validate(ls, nil, Options{Cluster: cluster, Strict: true}); len(errs) != 1 {
			b.Fatal(errs)
		}
	}
}

// A NotAllowed row names the setting that refuses the set.
func TestMergedListenersNotAllowedSetting(t *testing.T) {
	set := fixture.Attached("team-a", "ls", 1, fixture.Entry("web", 8080, "HTTP", ""))
	selector := withSelector(fixture.Gateway(gwv1.NamespacesFromSelector), "gateway-access", "yes")
	selector.Spec.AllowedListeners.Namespaces.Selector.MatchExpressions = []metav1.LabelSelectorRequirement{
		{Key: "tier", Operator: metav1.LabelSelectorOpIn, Values: []string{"edge", "web"}}}
	for name, tc := range map[string]struct {
		gw     *gwv1.Gateway
		state  incluster.ListenerState
		reason string
	}{
		"allowedListeners unset": {&gwv1.Gateway{ObjectMeta: metav1.ObjectMeta{Namespace: "gateway-ns", Name: "gw"}},
			incluster.ListenerNotAllowed, "allowedListeners.namespaces.from: None"},
		"None":     {fixture.Gateway(gwv1.NamespacesFromNone), incluster.ListenerNotAllowed, "allowedListeners.namespaces.from: None"},
		"Same":     {fixture.Gateway(gwv1.NamespacesFromSame), incluster.ListenerNotAllowed, "allowedListeners.namespaces.from: Same"},
		"Selector": {selector, incluster.ListenerNotAllowed, "allowedListeners.namespaces.selector: gateway-access=yes,tier in (edge,web)"},
		"All":      {fixture.Gateway(gwv1.NamespacesFromAll), incluster.ListenerAccepted, ""},
	} {
		objects := &incluster.Objects{Namespaces: []*metav1.PartialObjectMetadata{fixture.Namespace("team-a", map[string]string{"gateway-access": "yes"})}}
		rows := incluster.MergedListeners(tc.gw, []*gwv1.ListenerSet{set}, incluster.MergeOptions{Cluster: objects, JudgeSets: true})
		require.Len(t, rows, 1, name)
		assert.Equal(t, tc.state, rows[0].State, name)
		assert.Equal(t, tc.reason, rows[0].Reason, name)
	}
}
