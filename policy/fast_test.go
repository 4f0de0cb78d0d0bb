package policy_test

import (
	"path/filepath"
	"strings"
	"testing"

	utilversion "k8s.io/apimachinery/pkg/util/version"

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
