package policy_test

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	utilversion "k8s.io/apimachinery/pkg/util/version"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"k8s.io/utils/ptr"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/policy"
	"github.com/airlock/listenerset-webhook/policy/policytest"
	"github.com/airlock/listenerset-webhook/validation"
)

// TestFastPathTaken: the usual valid objects skip the policy through its
// match condition (a copy of the policy whose validation always fails
// admits them only so), and an invalid one does not. That the fast path
// never admits what validation denies is TestSameVerdictInProcess's and
// test/policy's job.
func TestFastPathTaken(t *testing.T) {
	vap, _ := policy.Generate(policy.Options{})
	vap.Spec.Validations[0].Expression = "false"
	e, err := policytest.Compile(vap, utilversion.MustParseGeneric("1.29"))
	if err != nil {
		t.Fatal(err)
	}
	fast := func(name string, obj map[string]any) bool {
		r := e.Evaluate(obj, nil, 0)
		if r.Error {
			t.Fatalf("%s: %s", name, r.Message)
		}
		return r.Allowed
	}
	for name, ls := range examples(t) {
		usual := strings.Contains(name, filepath.Join("examples", "valid")) && !strings.HasSuffix(name, "warnings.yaml")
		if got := fast(name, unstructuredOf(t, ls)); got != usual {
			t.Errorf("%s: fast path %v, want %v", name, got, usual)
		}
	}
	if !fast("64 listeners", unstructuredOf(t, sixtyFourListeners())) {
		t.Error("64 plain listeners: not on the fast path")
	}
	if errs, _ := validation.Validate(sixtyFourListeners(), nil, validation.Options{}); len(errs) > 0 {
		t.Fatalf("the benchmark's object is invalid: %v", errs)
	}
}

// TestFastPathCost: the match condition is charged against kube-apiserver's
// budget for match conditions, and running out of it fails the request
// (failurePolicy Fail): the object it judges in full at the greatest cost
// (64 valid listeners, names and hostnames of 253 characters, every option,
// the lists holding every name in reverse order, so that the one-match
// test of the usual order fails and each item is compared with every
// other) stays well within it.
func TestFastPathCost(t *testing.T) {
	vap, _ := policy.Generate(policy.Options{})
	vap.Spec.Validations = []admissionregistrationv1.Validation{{Expression: "!(" + vap.Spec.MatchConditions[0].Expression + ")"}}
	vap.Spec.MatchConditions = nil
	vap.Spec.Variables = nil
	e, err := policytest.Compile(vap, utilversion.MustParseGeneric("1.29"))
	if err != nil {
		t.Fatal(err)
	}
	reversed := func(names []string) gwv1.AnnotationValue {
		r := slices.Clone(names)
		slices.Reverse(r)
		return gwv1.AnnotationValue(strings.Join(r, ","))
	}
	ls := sixtyFourListeners()
	for i := range ls.Spec.Listeners {
		l := &ls.Spec.Listeners[i]
		long := fmt.Sprintf("%02d", i) + strings.Repeat("a", 61)
		l.Name = gwv1.SectionName(long + "." + long + "." + long + "." + long[:61])
		l.Hostname = ptr.To(gwv1.Hostname(l.Name))
		l.TLS.Options = map[gwv1.AnnotationKey]gwv1.AnnotationValue{
			validation.OptionALPNProtocols:       reversed(validation.ALPNProtocols),
			validation.OptionCiphers:             reversed(validation.Ciphers),
			validation.OptionECDHCurves:          reversed(validation.ECDHCurves),
			validation.OptionSignatureAlgorithms: reversed(validation.SignatureAlgorithms),
			validation.OptionMinimumVersion:      "TLSv1_2",
			validation.OptionMaximumVersion:      "TLSv1_3",
		}
	}
	if errs, _ := validation.Validate(ls, nil, validation.Options{}); len(errs) > 0 {
		t.Fatalf("the test's object is invalid: %v", errs)
	}
	obj := unstructuredOf(t, ls)
	if r := e.Evaluate(obj, nil, 0); r.Error || !r.Allowed {
		t.Fatalf("not on the fast path: %+v", r)
	}
	cost, ok := e.Cost(obj, nil, celconfig.RuntimeCELCostBudgetMatchConditions)
	if !ok || cost > celconfig.RuntimeCELCostBudgetMatchConditions/2 {
		t.Fatalf("the match condition costs %d (within the budget: %v), want at most half of %d", cost, ok, celconfig.RuntimeCELCostBudgetMatchConditions)
	}
	t.Logf("the match condition's costliest object: cost %d of %d", cost, celconfig.RuntimeCELCostBudgetMatchConditions)
}
