package policy_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	utilversion "k8s.io/apimachinery/pkg/util/version"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"k8s.io/utils/ptr"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/policy"
	"github.com/airlock/listenerset-webhook/policy/policytest"
	"github.com/airlock/listenerset-webhook/validation"
	"github.com/airlock/listenerset-webhook/validation/validationtest"
)

// otherImplementations is a ListenerSet another implementation serves and
// Airlock's rules deny, in namespace team-a: TCP and UDP listeners, an HTTPS
// listener with two certificateRefs, attached to parentNamespace/parent
// (the set's own namespace when parentNamespace is empty).
func otherImplementations(parentNamespace, parent string) *gwv1.ListenerSet {
	ls := &gwv1.ListenerSet{Spec: gwv1.ListenerSetSpec{ParentRef: gwv1.ParentGatewayReference{Name: gwv1.ObjectName(parent)}}}
	ls.Namespace, ls.Name = "team-a", "envoy-tcp"
	if parentNamespace != "" {
		ls.Spec.ParentRef.Namespace = ptr.To(gwv1.Namespace(parentNamespace))
	}
	ls.Spec.Listeners = []gwv1.ListenerEntry{
		{Name: "tcp", Port: 5000, Protocol: gwv1.TCPProtocolType},
		{Name: "udp", Port: 5001, Protocol: gwv1.UDPProtocolType},
		{Name: "https", Port: 443, Protocol: gwv1.HTTPSProtocolType, Hostname: ptr.To(gwv1.Hostname("a.example.com")),
			TLS: &gwv1.ListenerTLSConfig{CertificateRefs: []gwv1.SecretObjectReference{{Name: "one"}, {Name: "two"}}}},
	}
	return ls
}

// scopeOnly is the scope's match condition for gateways alone, as a
// validation that fails where the condition would judge the object (a
// small policy that compiles at once).
func scopeOnly(t testing.TB, gateways ...string) *policytest.Evaluator {
	t.Helper()
	p, err := policy.Generate(policy.Options{Gateways: gateways})
	require.NoError(t, err)
	vap := p.Rules.Policy
	require.Equal(t, policy.ScopeCondition, vap.Spec.MatchConditions[0].Name)
	vap.Spec.Validations = []admissionregistrationv1.Validation{{Expression: "!(" + vap.Spec.MatchConditions[0].Expression + ")"}}
	vap.Spec.MatchConditions, vap.Spec.Variables = nil, nil
	e, err := policytest.Compile(vap, utilversion.MustParseGeneric("1.29"))
	require.NoError(t, err)
	return e
}

// TestScope: the scope judges a ListenerSet exactly when the list names its
// parent Gateway (by namespace and name, or its namespace with "*"; a
// parentRef without a namespace names the set's own); the scoped policy
// then gives the unscoped policy's answer, and admits every other
// ListenerSet untouched.
func TestScope(t *testing.T) {
	for _, tc := range []struct {
		name                    string
		parentNamespace, parent string
		gateways                []string
		judged                  bool
	}{
		{"another Gateway in the same namespace", "", "gw", []string{"team-a/airlock", "infra/gw"}, false},
		{"listed by namespace and name", "infra", "gw", []string{"infra/gw"}, true},
		{"listed among others", "infra", "gw", []string{"a/b", "infra/gw", "other/x"}, true},
		{"no namespace: the set's own is listed", "", "gw", []string{"team-a/gw"}, true},
		{"no namespace: another namespace's Gateway of that name is listed", "", "gw", []string{"infra/gw"}, false},
		{"the namespace is listed with *", "infra", "gw", []string{"infra/*"}, true},
		{"another namespace is listed with *", "infra", "gw", []string{"team-a/*"}, false},
		{"a name that only starts like the parent's", "infra", "gw", []string{"infra/gw-2", "infra/g"}, false},
		{"a Gateway named like a listed namespace", "infra", "team-a", []string{"infra/x", "team-a/*"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			obj, _, ok := throughCRD(t, otherImplementations(tc.parentNamespace, tc.parent))
			require.True(t, ok, "the CRD admits the object")
			got := scopeOnly(t, tc.gateways...).Evaluate(obj, nil, 0)
			require.False(t, got.Error, got.Message)
			assert.Equal(t, tc.judged, !got.Allowed, "judged")
		})
	}

	// The whole scoped policy: listed, the unscoped policy's entries;
	// not listed, admitted.
	e, err := compileScoped([]string{"infra/airlock", "edge/*"})
	require.NoError(t, err)
	unscoped := whole(t)
	for _, parent := range [][2]string{{"infra", "airlock"}, {"edge", "gw"}, {"infra", "envoy"}, {"", "airlock"}} {
		obj, typed, ok := throughCRD(t, otherImplementations(parent[0], parent[1]))
		require.True(t, ok)
		errs, _ := validation.Validate(typed, nil, validation.Options{})
		require.NotEmpty(t, errs, "Airlock's rules deny it")
		got, want := e.Evaluate(obj, nil, 0), unscoped.Evaluate(obj, nil, 0)
		require.False(t, got.Error, got.Message)
		if parent[1] == "envoy" || parent[0] == "" {
			assert.True(t, got.Allowed, "%v: not listed, admitted untouched: %s", parent, got.Message)
			continue
		}
		assert.False(t, got.Allowed, "%v: listed", parent)
		assert.Equal(t, policytest.SortedEntries(want.Message), policytest.SortedEntries(got.Message), "%v: the unscoped policy's entries", parent)
		assert.Contains(t, got.Message, `spec.listeners[0].protocol: Unsupported value: "TCP"`)
		assert.Contains(t, got.Message, "spec.listeners[2].tls.certificateRefs: Too many: 2")
	}
}

func compileScoped(gateways []string) (*policytest.Evaluator, error) {
	p, err := policy.Generate(policy.Options{Gateways: gateways})
	if err != nil {
		return nil, err
	}
	return policytest.CompilePolicies(p, utilversion.MustParseGeneric("1.29"))
}

// TestScopeSameVerdict: on the examples and random objects as the CRD
// admits them, the policy scoped to every other parent Gateway of the
// sample gives the unscoped policy's answer (which TestSameVerdictInProcess
// and test/policy hold to validation.Validate) for the listed ones and
// admits the others.
func TestScopeSameVerdict(t *testing.T) {
	n := 300
	if testing.Short() {
		n = 60
	}
	var cases []*gwv1.ListenerSet
	for _, ex := range examples(t) {
		cases = append(cases, ex.ListenerSet)
	}
	rng := rand.New(rand.NewPCG(3, 32))
	for range n {
		cases = append(cases, validationtest.FuzzListenerSet(validationtest.BiasedFuzzBytes(rng)))
	}
	for i, ls := range cases {
		ls = ls.DeepCopy()
		ls.Namespace, ls.Name = "team-a", fmt.Sprintf("case-%d", i)
		cases[i] = ls
	}
	listed, gateways := policytest.EveryOtherParent(cases, "team-a")
	parentOf := func(ls *gwv1.ListenerSet) string { return policytest.ParentOf(ls, "team-a") }
	e, err := compileScoped(gateways)
	require.NoError(t, err)
	unscoped := whole(t)
	var judged, denied, admitted int
	for i, ls := range cases {
		obj, _, ok := throughCRD(t, ls)
		if !ok {
			continue
		}
		got := e.Evaluate(obj, nil, 0)
		if !listed[parentOf(ls)] {
			admitted++
			if !got.Allowed || got.Error {
				t.Errorf("case %d, parent %s not listed: got %+v, want admitted", i, parentOf(ls), got)
			}
			continue
		}
		want := unscoped.Evaluate(obj, nil, 0)
		if got.Allowed != want.Allowed || got.Error != want.Error ||
			!slices.Equal(policytest.SortedEntries(got.Message), policytest.SortedEntries(want.Message)) {
			t.Errorf("case %d, parent %s listed: got %+v, want the unscoped policy's %+v", i, parentOf(ls), got, want)
		}
		judged++
		if !want.Allowed {
			denied++
		}
	}
	t.Logf("%d Gateways listed; %d objects the CRD admits in scope (%d denied), %d out of scope (admitted)", len(gateways), judged, denied, admitted)
	if denied == 0 || denied == judged || admitted == 0 {
		t.Errorf("the cases reach too few verdicts: %d in scope, %d denied, %d out of scope", judged, denied, admitted)
	}
}

// TestScopeCost: the scope's match condition costs two lookups in its list;
// the longest list it holds (MaxGatewaysBytes, here of 270-byte entries)
// compiles and leaves most of the match conditions' budget, which the scope
// shares with the fast path (TestFastPathCost holds that one to half of it);
// a longer list is an error naming the option.
func TestScopeCost(t *testing.T) {
	entry := func(i int) string {
		return fmt.Sprintf("namespace-%04d%s/gateway-%s", i, strings.Repeat("n", 46), strings.Repeat("g", 200))
	}
	var many []string
	for size := 2; size+len(entry(0))+4 <= policy.MaxGatewaysBytes; size += len(entry(0)) + 4 {
		many = append(many, entry(len(many)))
	}
	_, err := policy.Generate(policy.Options{Gateways: append(slices.Clone(many), entry(len(many)))})
	if assert.Error(t, err) {
		assert.Contains(t, err.Error(), "gateways: Too long: may not be more than 65536 bytes")
	}
	obj, _, ok := throughCRD(t, otherImplementations("infra", "gw"))
	require.True(t, ok)
	costOf := func(gateways []string) int64 {
		e := scopeOnly(t, gateways...)
		if r := e.Evaluate(obj, nil, celconfig.RuntimeCELCostBudgetMatchConditions); r.Error {
			t.Fatalf("%d entries: %s", len(gateways), r.Message)
		}
		cost, ok := e.Cost(obj, nil, celconfig.RuntimeCELCostBudgetMatchConditions)
		require.True(t, ok, "over the match conditions' budget")
		return cost
	}
	small, large := costOf([]string{"infra/airlock", "team-a/*"}), costOf(many)
	t.Logf("the scope's match condition: cost %d with two entries, %d with %d entries of %d bytes, of %d",
		small, large, len(many), len(many[0]), celconfig.RuntimeCELCostBudgetMatchConditions)
	if large > celconfig.RuntimeCELCostBudgetMatchConditions/4 {
		t.Errorf("%d entries cost %d, want at most a quarter of the budget", len(many), large)
	}
	if small > 100 {
		t.Errorf("two entries cost %d, want at most 100", small)
	}
}

// TestScopeCompiles: the scoped policies compile where the unscoped ones do
// (TestCompiles).
func TestScopeCompiles(t *testing.T) {
	p, err := policy.Generate(policy.Options{Gateways: []string{"infra/airlock", "team-a/*"}})
	require.NoError(t, err)
	versions := []string{"1.29", "1.36"}
	if testing.Short() {
		versions = versions[:1]
	}
	for _, v := range versions {
		for _, pair := range p.Pairs() {
			for _, err := range policytest.CompileErrors(pair.Policy, utilversion.MustParseGeneric(v)) {
				t.Errorf("%s, CEL %s: %v", pair.Policy.Name, v, err)
			}
		}
	}
}

// TestScopeObjects: the scope is each policy's first match condition (the
// rules' fast path follows it); without Gateways, there is none. Bad
// entries are errors naming the entry.
func TestScopeObjects(t *testing.T) {
	p, err := policy.Generate(policy.Options{})
	require.NoError(t, err)
	sp, err := policy.Generate(policy.Options{Gateways: []string{"infra/airlock", "team-a/*"}})
	require.NoError(t, err)
	for i, pair := range p.Pairs() {
		vap, svap := pair.Policy, sp.Pairs()[i].Policy
		for _, c := range vap.Spec.MatchConditions {
			assert.NotEqual(t, policy.ScopeCondition, c.Name, vap.Name)
		}
		assert.Nil(t, svap.Spec.ParamKind)
		require.Len(t, svap.Spec.MatchConditions, len(vap.Spec.MatchConditions)+1, svap.Name)
		assert.Equal(t, policy.ScopeCondition, svap.Spec.MatchConditions[0].Name)
		svap = svap.DeepCopy()
		svap.Spec.MatchConditions = svap.Spec.MatchConditions[1:]
		if len(svap.Spec.MatchConditions) == 0 {
			svap.Spec.MatchConditions = nil
		}
		assert.Equal(t, vap.Spec, svap.Spec, "%s: the rest is unchanged", vap.Name)
		assert.Equal(t, pair.Binding, sp.Pairs()[i].Binding)
	}

	for _, bad := range []struct {
		gateways []string
		want     string
	}{
		{[]string{"infra"}, `gateways[0]: Invalid value: "infra": must be namespace/name`},
		{[]string{"Infra/gw"}, `gateways[0]: Invalid value: "Infra/gw": namespace: a lowercase RFC 1123 label`},
		{[]string{"infra/gw", "infra/Gw_1"}, `gateways[1]: Invalid value: "infra/Gw_1": name: a lowercase RFC 1123 subdomain`},
		{[]string{"infra/gw", "infra/gw"}, `gateways[1]: Duplicate value: "infra/gw"`},
		{[]string{`infra/a" || true || "`}, `gateways[0]: Invalid value`},
	} {
		_, err := policy.Generate(policy.Options{Gateways: bad.gateways})
		if assert.Error(t, err, "%q", bad.gateways) {
			assert.Contains(t, err.Error(), bad.want)
		}
	}
	assert.Empty(t, policy.ValidateGateways([]string{"infra/airlock.example", "team-a/*"}, field.NewPath("x")))
}

// TestScopeMovesSameVerdict: the moves of a hostile tenant's story, judged
// by the policy scoped to Airlock's Gateways (--gateways) and by validation
// with the scope reading Gateways and classes as the webhook does: a set in
// a Namespace that declares *.c.example.com, with a hostname outside it,
// stored on a Gateway of another implementation (the decoy), on a missing
// one, on another of Airlock's or on the shared one, and moved to the
// shared one. Only a set already on the shared Gateway keeps its hostname
// (ratcheted); every move is a create there, in both engines, whether the
// decoy still exists or not.
func TestScopeMovesSameVerdict(t *testing.T) {
	ns := validationtest.Declaration{Namespace: "team-c", Declared: true, Value: "*.c.example.com"}
	set := func(gwNamespace, gw string, hostnames ...string) *gwv1.ListenerSet {
		ls := &gwv1.ListenerSet{TypeMeta: metav1.TypeMeta{APIVersion: gwv1.GroupVersion.String(), Kind: "ListenerSet"},
			ObjectMeta: metav1.ObjectMeta{Namespace: "team-c", Name: "c"},
			Spec:       gwv1.ListenerSetSpec{ParentRef: gwv1.ParentGatewayReference{Name: gwv1.ObjectName(gw), Namespace: ptr.To(gwv1.Namespace(gwNamespace))}}}
		for i, h := range hostnames {
			ls.Spec.Listeners = append(ls.Spec.Listeners, gwv1.ListenerEntry{Name: gwv1.SectionName(fmt.Sprintf("l%d", i)),
				Port: gwv1.PortNumber(8080 + i), Protocol: gwv1.HTTPProtocolType, Hostname: ptr.To(gwv1.Hostname(h))})
		}
		return ls
	}
	gateway := func(namespace, name, class string) *gwv1.Gateway {
		return &gwv1.Gateway{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name}, Spec: gwv1.GatewaySpec{GatewayClassName: gwv1.ObjectName(class)}}
	}
	classes := []*gwv1.GatewayClass{
		{ObjectMeta: metav1.ObjectMeta{Name: "airlock"}, Spec: gwv1.GatewayClassSpec{ControllerName: validation.AirlockControllerName}},
		{ObjectMeta: metav1.ObjectMeta{Name: "other"}, Spec: gwv1.GatewayClassSpec{ControllerName: "example.com/other"}},
	}
	e, err := compileScoped([]string{"infra/shared", "infra/second"})
	require.NoError(t, err)
	const outside, inside = "login.z2.example.com", "x.c.example.com"
	for _, tc := range []struct {
		name     string
		old      *gwv1.ListenerSet
		gateways []*gwv1.Gateway
		denied   bool
	}{
		{"stays on the shared Gateway: ratcheted", set("infra", "shared", outside), nil, false},
		{"from the decoy, which exists", set("team-c", "decoy", outside), []*gwv1.Gateway{gateway("team-c", "decoy", "other")}, true},
		{"from the decoy, deleted", set("team-c", "decoy", outside), nil, true},
		{"from a missing Gateway", set("infra", "next", outside), nil, true},
		{"from another of Airlock's Gateways", set("infra", "second", outside), []*gwv1.Gateway{gateway("infra", "second", "airlock")}, true},
		{"from the decoy, within the declaration", set("team-c", "decoy", inside), []*gwv1.Gateway{gateway("team-c", "decoy", "other")}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			newLS := set("infra", "shared", outside)
			if tc.name == "from the decoy, within the declaration" {
				newLS = set("infra", "shared", inside)
			}
			cluster := ns.Cluster()
			cluster.Gateways = append([]*gwv1.Gateway{gateway("infra", "shared", "airlock")}, tc.gateways...)
			cluster.Classes = classes
			r := validation.Judge(newLS, tc.old, validation.Options{Cluster: cluster, Classes: cluster,
				Scope: validation.Scope{ControllerNames: []gwv1.GatewayController{validation.AirlockControllerName}}})
			goDenied := r.Errors.Total() > 0
			obj, old := crdDefaulted(t, newLS), crdDefaulted(t, tc.old)
			got := e.EvaluateIn(namespaceOf(ns), obj, old, 0)
			require.False(t, got.Error, "policy error: %s", got.Message)
			assert.Equal(t, tc.denied, goDenied, "validation: %v", r.Errors.List())
			assert.Equal(t, tc.denied, !got.Allowed, "policy: %s", got.Message)
		})
	}
}
