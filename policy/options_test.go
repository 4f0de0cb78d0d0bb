package policy_test

import (
	"testing"

	"github.com/airlock/listenerset-webhook/validation"
	"github.com/airlock/listenerset-webhook/validation/validationtest"
)

// TestAirlockOptionsSameVerdict: every row of validation.AirlockOptions
// (validationtest.OptionCases) is judged by the policy as by
// validation.Validate, its rules alone and the whole policy as the CRD hands
// it the object; a valid value takes the fast path, an
// invalid one does not.
func TestAirlockOptionsSameVerdict(t *testing.T) {
	e := evaluator(t)
	var st diffStats
	for _, c := range validationtest.OptionCases() {
		if errs, _ := validation.Validate(c.ListenerSet, nil, validation.Options{}); (len(errs) == 0) != c.Valid {
			t.Errorf("%s: validation errors %v, want valid=%v", c.Name, errs, c.Valid)
		}
		compare(t, e, c.Name, c.ListenerSet, nil, &st)
		obj, _, admitted := throughCRD(t, c.ListenerSet)
		if !admitted {
			t.Errorf("%s: the CRD refuses it", c.Name)
			continue
		}
		if r := fastOnly(t).Evaluate(obj, nil, 0); r.Error || r.Allowed != c.Valid {
			t.Errorf("%s: the fast path admits it: %v (error %v), want %v", c.Name, r.Allowed, r.Error, c.Valid)
		}
	}
}
