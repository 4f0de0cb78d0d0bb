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
	"k8s.io/apimachinery/pkg/types"
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

// scopedOptions scope the policy to one Gateway; the tests hand the
// evaluator the parameter they want, so the list here only switches the
// scope on.
var scopedOptions = policy.Options{Gateways: []string{"infra/airlock"}}

// scoped is the whole policy with the scope, as kube-apiserver runs it.
var scoped = compiledOnceWith(scopedOptions, func(*admissionregistrationv1.ValidatingAdmissionPolicy) {})

// gatewaysParam is the parameter ConfigMap as kube-apiserver hands it to
// the policy, listing entries.
func gatewaysParam(entries ...string) map[string]any {
	return map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": "gateways", "namespace": "kube-system"},
		"data":     map[string]any{policy.GatewaysKey: strings.Join(entries, "\n") + "\n"}}
}

// otherImplementations is a ListenerSet another implementation serves and
// Airlock's rules deny: TCP and UDP listeners, an HTTPS listener with two
// certificateRefs.
func otherImplementations(parentNamespace string) *gwv1.ListenerSet {
	ls := &gwv1.ListenerSet{Spec: gwv1.ListenerSetSpec{ParentRef: gwv1.ParentGatewayReference{Name: "gw"}}}
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

// TestScope: the scoped policy judges a ListenerSet exactly when the
// parameter lists its parent Gateway (by namespace and name, or its
// namespace with "*"; a parentRef without a namespace names the set's own),
// and then as the unscoped policy does; every other ListenerSet is admitted
// untouched. A binding without a parameter judges every ListenerSet.
func TestScope(t *testing.T) {
	e, unscoped := scoped(t), whole(t)
	for _, tc := range []struct {
		name            string
		parentNamespace string
		params          map[string]any
		judged          bool
	}{
		{"another Gateway in the same namespace", "", gatewaysParam("team-a/airlock", "infra/gw"), false},
		{"listed by namespace and name", "infra", gatewaysParam("infra/gw"), true},
		{"listed among others, indented", "infra", map[string]any{"data": map[string]any{policy.GatewaysKey: "a/b\n  infra/gw\t\nother/x"}}, true},
		{"two entries on one line are neither", "infra", map[string]any{"data": map[string]any{policy.GatewaysKey: "infra/gw other/x"}}, false},
		{"listed with a CRLF line end", "infra", map[string]any{"data": map[string]any{policy.GatewaysKey: "infra/gw\r\nother/x\r\n"}}, true},
		{"no namespace: the set's own is listed", "", gatewaysParam("team-a/gw"), true},
		{"no namespace: another namespace's Gateway of that name is listed", "", gatewaysParam("infra/gw"), false},
		{"the namespace is listed with *", "infra", gatewaysParam("infra/*"), true},
		{"another namespace is listed with *", "infra", gatewaysParam("team-a/*"), false},
		{"a name that only starts like the parent's", "infra", gatewaysParam("infra/gw-2", "infra/g"), false},
		{"a ConfigMap without the key lists nothing", "infra", map[string]any{"data": map[string]any{"other": "infra/gw"}}, false},
		{"a ConfigMap without data lists nothing", "infra", map[string]any{"metadata": map[string]any{"name": "x"}}, false},
		{"no parameter (a binding without paramRef): every ListenerSet", "infra", nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			obj, typed, ok := throughCRD(t, otherImplementations(tc.parentNamespace))
			require.True(t, ok, "the CRD admits the object")
			errs, _ := validation.Validate(typed, nil, validation.Options{})
			require.NotEmpty(t, errs, "Airlock's rules deny it")
			got := e.EvaluateWithParams(obj, nil, tc.params, 0)
			require.False(t, got.Error, got.Message)
			if !tc.judged {
				assert.True(t, got.Allowed, "out of scope: admitted untouched, got %q", got.Message)
				return
			}
			want := unscoped.Evaluate(obj, nil, 0)
			assert.Equal(t, want.Allowed, got.Allowed)
			assert.Equal(t, policytest.SortedEntries(want.Message), policytest.SortedEntries(got.Message), "in scope: the unscoped policy's entries")
			assert.Contains(t, got.Message, "spec.listeners[0].protocol: Unsupported value: \"TCP\"")
			assert.Contains(t, got.Message, "spec.listeners[2].tls.certificateRefs: Too many: 2")
		})
	}
}

// TestScopeSameVerdict: on the examples and random objects as the CRD
// admits them, creates and updates, the scoped policy with the object's
// parent Gateway listed gives the unscoped policy's answer (which
// TestSameVerdictInProcess and test/policy hold to validation.Validate),
// and with only other Gateways listed admits the object.
func TestScopeSameVerdict(t *testing.T) {
	e, unscoped := scoped(t), whole(t)
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
	var judged, denied int
	for i, ls := range cases {
		ls = ls.DeepCopy()
		ls.Namespace, ls.Name = "team-a", fmt.Sprintf("case-%d", i)
		obj, _, ok := throughCRD(t, ls)
		if !ok {
			continue
		}
		ns := ls.Namespace
		if p := ls.Spec.ParentRef.Namespace; p != nil {
			ns = string(*p)
		}
		parent := ns + "/" + string(ls.Spec.ParentRef.Name)
		want := unscoped.Evaluate(obj, nil, 0)
		for _, params := range []map[string]any{gatewaysParam("x/y", parent), gatewaysParam(ns + "/*")} {
			if got := e.EvaluateWithParams(obj, nil, params, 0); got.Allowed != want.Allowed || got.Error != want.Error ||
				!slices.Equal(policytest.SortedEntries(got.Message), policytest.SortedEntries(want.Message)) {
				t.Errorf("case %d, parent %s listed as %q: got %+v, want the unscoped policy's %+v", i, parent, params["data"], got, want)
			}
		}
		if got := e.EvaluateWithParams(obj, nil, gatewaysParam(parent+"x", "other/*"), 0); !got.Allowed || got.Error {
			t.Errorf("case %d, parent %s not listed: got %+v, want admitted", i, parent, got)
		}
		judged++
		if !want.Allowed {
			denied++
		}
	}
	t.Logf("%d objects the CRD admits: %d denied by the policy in scope, %d admitted", judged, denied, judged-denied)
	if denied == 0 || denied == judged {
		t.Errorf("the cases reach only one verdict: %d of %d denied", denied, judged)
	}
}

// TestScopeCost: the scope's match condition costs one pass over the list,
// and the largest list a ConfigMap holds (1 MiB) leaves most of the match
// conditions' budget, which the scope shares with the fast path
// (TestFastPathCost holds that one to half of it).
func TestScopeCost(t *testing.T) {
	vap, _, err := policy.Generate(scopedOptions)
	require.NoError(t, err)
	require.Equal(t, policy.ScopeCondition, vap.Spec.MatchConditions[0].Name)
	// the scope condition alone, as a validation that fails where the
	// condition would judge
	vap.Spec.Validations = []admissionregistrationv1.Validation{{Expression: "!(" + vap.Spec.MatchConditions[0].Expression + ")"}}
	vap.Spec.MatchConditions, vap.Spec.Variables = nil, nil
	e, err := policytest.Compile(vap, utilversion.MustParseGeneric("1.29"))
	require.NoError(t, err)

	entry := "namespace-" + strings.Repeat("n", 50) + "/gateway-" + strings.Repeat("g", 200)
	var entries []string
	for size := 0; size+len(entry)+1 < 1<<20; size += len(entry) + 1 {
		entries = append(entries, entry)
	}
	params := gatewaysParam(entries...)
	obj, _, ok := throughCRD(t, otherImplementations("infra"))
	require.True(t, ok)
	r := e.EvaluateWithParams(obj, nil, params, 0)
	require.False(t, r.Error, r.Message)
	require.True(t, r.Allowed, "not listed")

	costOf := func(params map[string]any) int64 {
		lo, hi := int64(0), int64(celconfig.RuntimeCELCostBudgetMatchConditions)
		if r := e.EvaluateWithParams(obj, nil, params, hi); r.Error {
			t.Fatalf("over the match conditions' budget: %s", r.Message)
		}
		for hi-lo > 1 {
			mid := lo + (hi-lo)/2
			if r := e.EvaluateWithParams(obj, nil, params, mid); r.Error {
				lo = mid
			} else {
				hi = mid
			}
		}
		return hi
	}
	small, large := costOf(gatewaysParam("infra/airlock", "team-a/*")), costOf(params)
	t.Logf("the scope's match condition: cost %d with two entries, %d with %d entries (%d bytes), of %d",
		small, large, len(entries), len(params["data"].(map[string]any)[policy.GatewaysKey].(string)), celconfig.RuntimeCELCostBudgetMatchConditions)
	if large > celconfig.RuntimeCELCostBudgetMatchConditions/4 {
		t.Errorf("a 1 MiB list costs %d, want at most a quarter of the budget", large)
	}
	if small > 200 {
		t.Errorf("two entries cost %d, want at most 200", small)
	}
}

// TestScopeCompiles: the scoped policy compiles where the unscoped one does
// (TestCompiles).
func TestScopeCompiles(t *testing.T) {
	vap, _, err := policy.Generate(scopedOptions)
	require.NoError(t, err)
	versions := []string{"1.29", "1.36"}
	if testing.Short() {
		versions = versions[:1]
	}
	for _, v := range versions {
		for _, err := range policytest.CompileErrors(vap, utilversion.MustParseGeneric(v)) {
			t.Errorf("CEL %s: %v", v, err)
		}
	}
}

// TestScopeObjects: the scope is the ConfigMap as paramKind, the scope's
// match condition before the fast path, and the binding's paramRef by
// namespace and name; without Gateways, none of it. Bad options are
// errors naming the option.
func TestScopeObjects(t *testing.T) {
	vap, binding, err := policy.Generate(policy.Options{})
	require.NoError(t, err)
	assert.Nil(t, vap.Spec.ParamKind)
	assert.Nil(t, binding.Spec.ParamRef)
	require.Len(t, vap.Spec.MatchConditions, 1)
	cm, err := policy.GatewaysConfigMap(policy.Options{})
	require.NoError(t, err)
	assert.Nil(t, cm)

	opts := policy.Options{BindingName: "b", Gateways: []string{"infra/airlock", "team-a/*"}}
	svap, sbinding, err := policy.Generate(opts)
	require.NoError(t, err)
	assert.Equal(t, &admissionregistrationv1.ParamKind{APIVersion: "v1", Kind: "ConfigMap"}, svap.Spec.ParamKind)
	assert.Equal(t, []string{policy.ScopeCondition, policy.FastPathCondition}, []string{svap.Spec.MatchConditions[0].Name, svap.Spec.MatchConditions[1].Name})
	assert.Equal(t, vap.Spec.MatchConditions[0], svap.Spec.MatchConditions[1], "the fast path is unchanged")
	assert.Equal(t, &admissionregistrationv1.ParamRef{Name: "b", Namespace: policy.DefaultGatewaysNamespace,
		ParameterNotFoundAction: ptr.To(admissionregistrationv1.DenyAction)}, sbinding.Spec.ParamRef)
	cm, err = policy.GatewaysConfigMap(opts)
	require.NoError(t, err)
	assert.Equal(t, types.NamespacedName{Namespace: policy.DefaultGatewaysNamespace, Name: "b"}, types.NamespacedName{Namespace: cm.Namespace, Name: cm.Name})
	assert.Equal(t, map[string]string{policy.GatewaysKey: "infra/airlock\nteam-a/*\n"}, cm.Data)

	opts.GatewaysConfigMap = types.NamespacedName{Namespace: "platform", Name: "airlock-gateways"}
	opts.GatewaysNotFound = admissionregistrationv1.AllowAction
	_, sbinding, err = policy.Generate(opts)
	require.NoError(t, err)
	assert.Equal(t, &admissionregistrationv1.ParamRef{Name: "airlock-gateways", Namespace: "platform",
		ParameterNotFoundAction: ptr.To(admissionregistrationv1.AllowAction)}, sbinding.Spec.ParamRef)

	for _, bad := range []struct {
		opts policy.Options
		want string
	}{
		{policy.Options{Gateways: []string{"infra"}}, `gateways[0]: Invalid value: "infra": must be namespace/name`},
		{policy.Options{Gateways: []string{"Infra/gw"}}, `gateways[0]: Invalid value: "Infra/gw": namespace: a lowercase RFC 1123 label`},
		{policy.Options{Gateways: []string{"infra/gw", "infra/Gw_1"}}, `gateways[1]: Invalid value: "infra/Gw_1": name: a lowercase RFC 1123 subdomain`},
		{policy.Options{Gateways: []string{"infra/gw", "infra/gw"}}, `gateways[1]: Duplicate value: "infra/gw"`},
		{policy.Options{Gateways: []string{"infra/gw"}, GatewaysNotFound: "Ignore"}, `gatewaysNotFound: "Ignore" is not Deny or Allow`},
		{policy.Options{Gateways: []string{"infra/gw"}, GatewaysConfigMap: types.NamespacedName{Namespace: "a/b"}}, `gatewaysConfigMap: namespace "a/b"`},
	} {
		_, _, err := policy.Generate(bad.opts)
		if assert.Error(t, err, "%+v", bad.opts) {
			assert.Contains(t, err.Error(), bad.want)
		}
		_, err = policy.YAML(bad.opts)
		assert.Error(t, err)
	}
	assert.Empty(t, policy.ValidateGateways([]string{"infra/airlock.example", "team-a/*"}, field.NewPath("x")))
}
