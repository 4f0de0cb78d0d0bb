package policytest

import (
	"slices"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"

	"github.com/airlock/listenerset-webhook/policy"
)

// WithoutFastPath is a copy of the rules' policy vap without its match
// condition policy.FastPathCondition (the scope's, if any, kept): the
// rules alone.
func WithoutFastPath(vap *admissionregistrationv1.ValidatingAdmissionPolicy) *admissionregistrationv1.ValidatingAdmissionPolicy {
	vap = vap.DeepCopy()
	vap.Spec.MatchConditions = slices.DeleteFunc(vap.Spec.MatchConditions, func(c admissionregistrationv1.MatchCondition) bool {
		return c.Name == policy.FastPathCondition
	})
	return vap
}

// FastPathOnly is a copy of the rules' policy of p whose validation is the
// fast path (true for the usual valid set) and nothing else, with no match
// condition: it admits exactly what the rules' match condition skips, and
// its cost is the fast path's.
func FastPathOnly(p policy.Policies) *admissionregistrationv1.ValidatingAdmissionPolicy {
	fast := "no variable " + policy.FastPathVariable
	for _, v := range p.Declarations.Policy.Spec.Variables {
		if v.Name == policy.FastPathVariable {
			fast = v.Expression
		}
	}
	vap := p.Rules.Policy.DeepCopy()
	vap.Spec.MatchConditions, vap.Spec.Variables = nil, nil
	vap.Spec.Validations = []admissionregistrationv1.Validation{{Expression: fast}}
	return vap
}
