package policytest

import (
	"slices"
	"sync"
	"testing"

	utilversion "k8s.io/apimachinery/pkg/util/version"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/policy"
	"github.com/airlock/listenerset-webhook/validation"
	"github.com/airlock/listenerset-webhook/validation/validationtest"
)

// The tests of a rule mechanism (policy/valueruletest, policy/setruletest)
// add rules of their own to validation's tables before anything reads
// them, then judge with the policy generated from the tables: its rules
// alone and its fast path alone, each compiled once per test binary (a
// compile takes seconds).
var (
	generatedRules    = sync.OnceValues(func() (*Evaluator, error) { return compileGenerated(false) })
	generatedFastPath = sync.OnceValues(func() (*Evaluator, error) { return compileGenerated(true) })
)

func compileGenerated(fastPath bool) (*Evaluator, error) {
	p, err := policy.Generate(policy.Options{})
	if err != nil {
		return nil, err
	}
	vap := WithoutFastPath(p.Rules.Policy)
	if fastPath {
		vap = FastPathOnly(p)
	}
	return Compile(vap, utilversion.MustParseGeneric("1.29"))
}

// GeneratedRules is the generated policy's rules without its fast path.
func GeneratedRules(t testing.TB) *Evaluator {
	t.Helper()
	e, err := generatedRules()
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// GeneratedFastPath is the generated policy's fast path alone, as its
// validation: it admits what the rules' match condition skips.
func GeneratedFastPath(t testing.TB) *Evaluator {
	t.Helper()
	e, err := generatedFastPath()
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// SameVerdict fails t unless the generated policy's rules give exactly
// validation's errors on n (an update of o; nil: a create); it reports
// whether validation denies.
func SameVerdict(t *testing.T, name string, n, o *gwv1.ListenerSet) (denied bool) {
	t.Helper()
	n, nObj := RoundTrip(t, n)
	o, oObj := RoundTrip(t, o)
	errs, _ := validation.Validate(n, o, validation.Options{})
	got := GeneratedRules(t).Evaluate(nObj, oObj, 0)
	if got.Error || got.Allowed != (len(errs) == 0) {
		t.Errorf("%s: policy allowed=%v (error %v), validation %s; %q", name, got.Allowed, got.Error, validationtest.Found(errs), got.Message)
		return len(errs) > 0
	}
	if lines, truncated := Entries(got.Message); !got.Allowed && !truncated && !Cut(errs) {
		slices.Sort(lines)
		want := ErrorEntries(errs)
		slices.Sort(want)
		if !slices.Equal(lines, want) {
			t.Errorf("%s: policy %q, validation %q", name, lines, want)
		}
	}
	return len(errs) > 0
}
