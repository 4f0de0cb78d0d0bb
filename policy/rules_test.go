package policy_test

import (
	"strings"
	"testing"

	"github.com/airlock/listenerset-webhook/policy/policytest"
	"github.com/airlock/listenerset-webhook/validation"
	"github.com/airlock/listenerset-webhook/validation/validationtest"
)

// TestRuleExamplesSameVerdict: each rule's examples (validation.Rules),
// judged by the policy as validation judges them, as a create, as an
// update from the example object and as an update that leaves the invalid
// value as stored (ratcheted); and the invalid example never takes the fast
// path. Validation's side is its TestRuleExamples.
func TestRuleExamplesSameVerdict(t *testing.T) {
	e := evaluator(t)
	base := validationtest.RuleBase()
	if obj, _, ok := throughCRD(t, base); !ok {
		t.Fatal("the example object: the CRD refuses it")
	} else if r := fastOnly(t).Evaluate(obj, nil, 0); !r.Allowed || r.Error {
		t.Fatalf("the example object is not on the fast path: %+v", r)
	}
	cases, err := validationtest.RuleCases(validation.Rules())
	if err != nil {
		t.Fatal(err)
	}
	var st diffStats
	for _, c := range cases {
		ls := c.ListenerSet
		// the verdict the rule wants first, in its terms; then every
		// entry, as validation gives them
		n, obj := policytest.RoundTrip(t, ls)
		errs, _ := validation.Validate(n, nil, validation.Options{})
		if got := e.Evaluate(obj, nil, 0); got.Error || got.Allowed != c.Valid {
			t.Errorf("%s: the policy %s, want %s (validation: %s)", c.Name, policyVerdict(got), c.Want(), validationtest.Found(errs))
			continue
		}
		compare(t, e, c.Name, ls, nil, &st)
		compare(t, e, c.Name+" (update)", ls, base, &st)
		compare(t, e, c.Name+" (as stored)", ls, ls, &st)
		if c.Valid {
			continue
		}
		if obj, _, ok := throughCRD(t, ls); ok {
			if res := fastOnly(t).Evaluate(obj, nil, 0); res.Allowed || res.Error {
				t.Errorf("%s: takes the fast path (the rule's fast-path guard admits it)", c.Name)
			}
		}
	}
	if st.denied < len(validation.Rules()) {
		t.Errorf("%d of %d requests denied: want at least each rule's invalid example", st.denied, st.cases)
	}
}

// policyVerdict is the policy's verdict in words: "admits it", "denies it
// at" the paths of its entries, or its evaluation error.
func policyVerdict(r policytest.Result) string {
	switch {
	case r.Error:
		return "fails to evaluate: " + r.Message
	case r.Allowed:
		return "admits it"
	}
	entries, _ := policytest.Entries(r.Message)
	return "denies it at " + strings.Join(policytest.Paths(entries), ", ")
}
