package validation_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/airlock/listenerset-webhook/findings"
	"github.com/airlock/listenerset-webhook/validation"
	"github.com/airlock/listenerset-webhook/validation/internal/object"
	"github.com/airlock/listenerset-webhook/validation/validationtest"
)

// TestRuleExamples: each rule's definition (validation.Rules) says what
// its rule does: its invalid example is denied with its codes and nothing
// else, its valid example admitted; the example object they change is
// valid and warned about nothing. The policy's side is policy's
// TestRuleExamplesSameVerdict.
func TestRuleExamples(t *testing.T) {
	if errs, warns := validation.Validate(validationtest.RuleBase(), nil, validation.Options{}); len(errs) > 0 || len(warns) > 0 {
		t.Fatalf("the example object: %v %v", errs, warns)
	}
	cases, err := validationtest.RuleCases(object.Rules())
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		errs, _ := validation.Validate(c.ListenerSet, nil, validation.Options{})
		if d := c.Difference(errs); d != "" {
			t.Errorf("%s: %s", c.Name, d)
		}
	}
}

// TestEveryErrorCodeHasARule: each code of the object's errors is some
// rule's, so that every rule has its examples and its row.
func TestEveryErrorCodeHasARule(t *testing.T) {
	var ruled []findings.Code
	for _, r := range object.Rules() {
		ruled = append(ruled, r.Codes...)
	}
	for _, d := range validation.Catalog() {
		if d.Kind == findings.CodeKindError && d.Retired == "" && strings.HasPrefix(string(d.Code), "LS1") && !slices.Contains(ruled, d.Code) {
			t.Errorf("%s (%s): no rule (validation.Rule) gives it", d.Code, d.Title)
		}
	}
}

// TestExampleString: docs/rules.md shows an example by its last field, a
// map key whole.
func TestExampleString(t *testing.T) {
	for at, want := range map[string]string{
		"spec.listeners[1].hostname": "hostname: x",
		"spec.listeners":             "listeners: x",
		"spec.listeners[1].tls.options[microgateway.airlock.com/ciphers]": "microgateway.airlock.com/ciphers: x",
		"spec.listeners[1]": "spec.listeners[1]: x",
	} {
		if got := (object.Example{At: at, Value: "x"}).String(); got != want {
			t.Errorf("%s: %q, want %q", at, got, want)
		}
	}
}
