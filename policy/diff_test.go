package policy_test

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"slices"
	"sync"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	utilversion "k8s.io/apimachinery/pkg/util/version"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/defaults"
	"github.com/airlock/listenerset-webhook/policy"
	"github.com/airlock/listenerset-webhook/policy/policytest"
	"github.com/airlock/listenerset-webhook/validation"
	"github.com/airlock/listenerset-webhook/validation/validationtest"
)

func defaulted(ls *gwv1.ListenerSet) *gwv1.ListenerSet {
	ls = ls.DeepCopy()
	defaults.ListenerSet(ls)
	return ls
}

type diffStats struct {
	cases, denied, truncated, detailDiffs int
	// byValueRule: requests validation denied, by each ListenerValueRule
	// whose error it gave
	byValueRule map[string]int
	// requests the CRD admits, judged by the whole policy too; of those,
	// the ones validation admits and the ones the fast path admits
	throughCRD, validThroughCRD, fastPath int
}

// compare evaluates the policy and validation.Validate on one request:
// the policy's rules (without its fast path) on the objects as given
// and defaulted, and the whole policy, fast path included, on the
// objects as the CRD hands them to admission when the CRD admits them.
func compare(t *testing.T, e *policytest.Evaluator, name string, newLS, oldLS *gwv1.ListenerSet, st *diffStats) {
	t.Helper()
	compareIn(t, e, name, nil, newLS, oldLS, st)
}

// compareIn is compare in the Namespace d (its name, and its declaration
// for validation's declared-hostnames rule); nil: in a Namespace of the
// object's namespace without annotations, judged without a Cluster.
func compareIn(t *testing.T, e *policytest.Evaluator, name string, d *validationtest.Declaration, newLS, oldLS *gwv1.ListenerSet, st *diffStats) {
	t.Helper()
	opts := validation.Options{}
	evaluate := func(e *policytest.Evaluator, obj, old map[string]any) policytest.Result {
		return e.Evaluate(obj, old, 0)
	}
	if d != nil {
		opts.Cluster = d.Cluster()
		ns := namespaceOf(*d)
		evaluate = func(e *policytest.Evaluator, obj, old map[string]any) policytest.Result {
			return e.EvaluateIn(ns, obj, old, 0)
		}
	}
	if obj, n, ok := throughCRD(t, newLS); ok {
		var o *gwv1.ListenerSet
		var old map[string]any
		admitted := oldLS == nil
		if oldLS != nil {
			old, o, admitted = throughCRD(t, oldLS)
		}
		if admitted {
			errs, _ := validation.Validate(n, o, opts)
			st.throughCRD++
			if got := evaluate(whole(t), obj, old); got.Error || got.Allowed != (len(errs) == 0) {
				t.Errorf("%s (as the CRD admits it): the whole policy allowed=%v (error %v), validation errors %v; message %.300q", name, got.Allowed, got.Error, errs, got.Message)
			}
			if len(errs) == 0 {
				st.validThroughCRD++
				if r := evaluate(fastOnly(t), obj, old); r.Allowed && !r.Error {
					st.fastPath++
				}
			}
		}
	}
	// kube-apiserver hands admission both objects defaulted by the CRD's
	// schema (the new one when decoded, the stored one when read); a create
	// is also judged undefaulted, which only the policy's reading of absent
	// fields as their defaults can get right.
	if oldLS != nil {
		newLS, oldLS = defaulted(newLS), defaulted(oldLS)
	}
	n, obj := policytest.RoundTrip(t, newLS)
	var o *gwv1.ListenerSet
	var old map[string]any
	if oldLS != nil {
		o, old = policytest.RoundTrip(t, oldLS)
	}
	errs, _ := validation.Validate(n, o, opts)
	got := evaluate(e, obj, old)
	st.cases++
	for _, r := range validation.ListenerValueRules() {
		if slices.ContainsFunc(errs, func(e *field.Error) bool { return e.Detail == r.Detail }) {
			if st.byValueRule == nil {
				st.byValueRule = map[string]int{}
			}
			st.byValueRule[r.Name]++
		}
	}
	if got.Error {
		t.Errorf("%s: the policy failed to evaluate: %s", name, got.Message)
		return
	}
	if got.Allowed != (len(errs) == 0) {
		if os.Getenv("POLICY_DEBUG") != "" {
			a, _ := json.Marshal(newLS)
			b, _ := json.Marshal(oldLS)
			os.WriteFile("/tmp/policy-debug-verdict.json", append(append(a, '\n'), b...), 0o644)
		}
		t.Errorf("%s: policy allowed=%v, validation errors %v; policy message %q", name, got.Allowed, errs, got.Message)
		return
	}
	if got.Allowed {
		return
	}
	st.denied++
	lines, truncated := policytest.Entries(got.Message)
	var want []string
	for _, e := range errs {
		want = append(want, policytest.Entry(e))
	}
	slices.Sort(want)
	wantPaths, gotPaths := policytest.ErrorPaths(errs), policytest.Paths(lines)
	if truncated || policytest.Cut(errs) {
		st.truncated++
		if p := policytest.NotCovered(gotPaths, errs); p != "" {
			t.Errorf("%s: the policy reports %s, validation does not: %v", name, p, errs)
		}
		return
	}
	if !slices.Equal(gotPaths, wantPaths) {
		if os.Getenv("POLICY_DEBUG") != "" {
			data, _ := json.Marshal(newLS)
			os.WriteFile("/tmp/policy-debug.json", data, 0o644)
		}
		t.Errorf("%s: paths differ:\npolicy:     %q\nvalidation: %q\nmessage: %s", name, gotPaths, wantPaths, got.Message)
		return
	}
	slices.Sort(lines)
	if !slices.Equal(lines, want) {
		st.detailDiffs++
		var onlyPolicy, onlyGo []string
		for _, l := range lines {
			if !slices.Contains(want, l) {
				onlyPolicy = append(onlyPolicy, l)
			}
		}
		for _, l := range want {
			if !slices.Contains(lines, l) {
				onlyGo = append(onlyGo, l)
			}
		}
		t.Errorf("%s: details differ:\nonly the policy's: %q\nonly validation's: %q", name, onlyPolicy, onlyGo)
	}
}

// compiledOnce is the policies pick takes of the generated ones (changed),
// compiled once for the package's tests (a compile takes seconds) and
// evaluated together.
func compiledOnce(pick func(p policy.Policies) []*admissionregistrationv1.ValidatingAdmissionPolicy) func(testing.TB) *policytest.Evaluator {
	compile := sync.OnceValues(func() (*policytest.Evaluator, error) {
		p, err := policy.Generate(policy.Options{})
		if err != nil {
			return nil, err
		}
		return policytest.CompileAll(pick(p), utilversion.MustParseGeneric("1.29"))
	})
	return func(t testing.TB) *policytest.Evaluator {
		e, err := compile()
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
}

var (
	// evaluator is the policies' rules: the rules' policy without its
	// fast path, which judges any object the same as validation.Validate.
	evaluator = compiledOnce(func(p policy.Policies) []*admissionregistrationv1.ValidatingAdmissionPolicy {
		return []*admissionregistrationv1.ValidatingAdmissionPolicy{policytest.WithoutFastPath(p.Rules.Policy)}
	})
	// whole is both policies as kube-apiserver runs them, the rules' fast
	// path included: for objects as the CRD admits them (throughCRD).
	whole = compiledOnce(func(p policy.Policies) []*admissionregistrationv1.ValidatingAdmissionPolicy {
		return []*admissionregistrationv1.ValidatingAdmissionPolicy{p.Rules.Policy, p.Declarations.Policy}
	})
	// fastOnly is the rules' policy with a validation that always fails:
	// it admits exactly what its fast path lets through.
	fastOnly = compiledOnce(func(p policy.Policies) []*admissionregistrationv1.ValidatingAdmissionPolicy {
		vap := p.Rules.Policy.DeepCopy()
		vap.Spec.Validations[0].Expression, vap.Spec.Validations[0].MessageExpression = "false", ""
		vap.Spec.Variables = nil
		return []*admissionregistrationv1.ValidatingAdmissionPolicy{vap}
	})
	// declarationsOnly is the declarations' policy alone.
	declarationsOnly = compiledOnce(func(p policy.Policies) []*admissionregistrationv1.ValidatingAdmissionPolicy {
		return []*admissionregistrationv1.ValidatingAdmissionPolicy{p.Declarations.Policy}
	})
	// conditionOnly is the fast path alone, as a validation that fails
	// where the rules would judge the object in full: for the fast path's
	// own cost (kube-apiserver charges match conditions to their own
	// budget, so the whole policy's Cost does not count it).
	conditionOnly = compiledOnce(func(p policy.Policies) []*admissionregistrationv1.ValidatingAdmissionPolicy {
		return []*admissionregistrationv1.ValidatingAdmissionPolicy{policytest.FastPathOnly(p)}
	})
)

func examples(t testing.TB) []validationtest.Example {
	ex, err := validationtest.Examples("..")
	if err != nil || len(ex) == 0 {
		t.Fatal("no examples", err)
	}
	return ex
}

// TestSameVerdictInProcess holds the policy, evaluated by k8s.io/apiserver's
// validator, to validation.Validate on the examples and on random objects
// of the fuzz generator, as creates and as updates of a changed copy: from
// uniformly random inputs (mostly objects the CRD refuses: the policy's
// rules on their own) and from inputs biased to the generator's first
// choices (mostly objects the CRD admits: the whole policy, its match
// condition included).
func TestSameVerdictInProcess(t *testing.T) {
	e := evaluator(t)
	var st diffStats
	for _, ex := range examples(t) {
		compare(t, e, ex.Path, ex.ListenerSet, nil, &st)
	}
	n := 4500
	if testing.Short() {
		n = 450
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range n {
		var data []byte
		if i%3 == 0 {
			data = make([]byte, 16+rng.IntN(200))
			for j := range data {
				data[j] = byte(rng.UintN(256))
			}
		} else {
			data = validationtest.BiasedFuzzBytes(rng)
		}
		ls := validationtest.FuzzListenerSet(data)
		ls.Name = "fuzz"
		compare(t, e, "fuzz create "+string(rune('a'+i%26)), ls, nil, &st)
		// an update: a few bytes changed, so some listeners stay as stored
		changed := slices.Clone(data)
		for range 1 + rng.IntN(3) {
			changed[rng.IntN(len(changed))] = byte(rng.UintN(256))
		}
		nls := validationtest.FuzzListenerSet(changed)
		nls.Name = "fuzz"
		compare(t, e, "fuzz update", nls, ls, &st)
		if t.Failed() && i > 20 {
			break
		}
	}
	if !testing.Short() {
		// the worst objects the CRD admits, whose reports are cut (after
		// the random ones, which stop at a failure)
		for _, s := range validationtest.WorstShapes {
			var old *gwv1.ListenerSet
			if s.Update != nil {
				old = s.Update(validation.MaxListeners)
			}
			compare(t, e, "worst "+s.Name, s.Build(validation.MaxListeners), old, &st)
		}
	}
	t.Logf("%d requests, %d denied, %d messages cut, %d with other details; %d admitted by the CRD and judged by the whole policy too: %d valid, %d of them by the fast path alone",
		st.cases, st.denied, st.truncated, st.detailDiffs, st.throughCRD, st.validThroughCRD, st.fastPath)
	for _, r := range validation.ListenerValueRules() {
		t.Logf("denied by the ListenerValueRule %s: %d requests", r.Name, st.byValueRule[r.Name])
		if st.byValueRule[r.Name] == 0 {
			t.Errorf("no request met the ListenerValueRule %s: the fuzz generator does not take its examples", r.Name)
		}
	}
	if least := n / 30; st.validThroughCRD < least || st.throughCRD-st.validThroughCRD < least || st.fastPath < least {
		t.Errorf("want at least %d requests the CRD admits and validation admits, as many it denies, and as many the fast path admits", least)
	}
}
