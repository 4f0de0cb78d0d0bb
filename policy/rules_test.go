package policy_test

import (
	"testing"

	"github.com/airlock/listenerset-webhook/validation"

	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

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
	var st diffStats
	for _, r := range validation.Rules() {
		var invalid *gwv1.ListenerSet
		for _, ex := range []validation.Example{r.Valid, r.Invalid} {
			ls, err := validationtest.Apply(ex)
			if err != nil {
				t.Fatal(err)
			}
			name := r.Field + " " + ex.String()
			compare(t, e, name, ls, nil, &st)
			compare(t, e, name+" (update)", ls, base, &st)
			compare(t, e, name+" (as stored)", ls, ls, &st)
			invalid = ls
		}
		if obj, _, ok := throughCRD(t, invalid); ok {
			if res := fastOnly(t).Evaluate(obj, nil, 0); res.Allowed || res.Error {
				t.Errorf("%s: the invalid example %s takes the fast path", r.Field, r.Invalid)
			}
		}
	}
	if st.denied < len(validation.Rules()) {
		t.Errorf("%d of %d requests denied: want at least each rule's invalid example", st.denied, st.cases)
	}
}
