package validationtest

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/findings"
	"github.com/airlock/listenerset-webhook/validation/internal/object"
)

// RuleCase is one example of a rule (object.Rules) as every engine's
// example test sends it.
type RuleCase struct {
	// Name names the rule and the example, for a failing test's line:
	// "rule 1 `spec.listeners`, invalid example: 17 HTTPS listeners".
	Name        string
	Rule        object.Rule
	Valid       bool
	ListenerSet *gwv1.ListenerSet
}

// RuleCases are the valid and the invalid example of each of rules,
// applied to RuleBase.
func RuleCases(rules []object.Rule) ([]RuleCase, error) {
	var cases []RuleCase
	for _, r := range rules {
		for _, valid := range []bool{true, false} {
			ex, kind := r.Invalid, "invalid"
			if valid {
				ex, kind = r.Valid, "valid"
			}
			name := fmt.Sprintf("rule %d %s, %s example: %s", r.Number, r.Field, kind, ex)
			ls, err := Apply(ex)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
			cases = append(cases, RuleCase{Name: name, Rule: r, Valid: valid, ListenerSet: ls})
		}
	}
	return cases, nil
}

// Want is the verdict the case wants: "admitted", or "denied with" the
// rule's codes.
func (c RuleCase) Want() string {
	if c.Valid {
		return "admitted"
	}
	return "denied with " + codeList(c.Rule.Codes)
}

// Difference says how errs, an engine's errors with their codes, differ
// from what the case wants ("" when they do not): the valid example
// admitted, the invalid one denied with the rule's codes and no other.
func (c RuleCase) Difference(errs field.ErrorList) string {
	switch {
	case c.Valid && len(errs) > 0:
		return "got " + Found(errs) + ", want admitted"
	case c.Valid:
		return ""
	case len(errs) == 0:
		return "admitted, want " + c.Want()
	}
	if slices.ContainsFunc(errs, func(e *field.Error) bool { return !slices.Contains(c.Rule.Codes, findings.CodeOf(e)) }) {
		return "got " + Found(errs) + ", want only " + codeList(c.Rule.Codes)
	}
	return ""
}

// maxFound is how many errors Found names.
const maxFound = 4

// Found names errors by their codes and paths ("LS139 at
// spec.listeners[16].protocol"), the first maxFound of them; none as "no
// error".
func Found(errs field.ErrorList) string {
	if len(errs) == 0 {
		return "no error"
	}
	var s []string
	for i, e := range errs {
		if i == maxFound {
			s = append(s, fmt.Sprintf("and %d more", len(errs)-maxFound))
			break
		}
		s = append(s, fmt.Sprintf("%s at %s", findings.CodeOf(e), e.Field))
	}
	return strings.Join(s, ", ")
}

// codeList is codes joined by "/".
func codeList(codes []findings.Code) string {
	s := make([]string, len(codes))
	for i, c := range codes {
		s[i] = string(c)
	}
	return strings.Join(s, "/")
}
