package policy

import (
	"fmt"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/airlock/listenerset-webhook/validation"
)

// setRulesChecked is nil when every entry of rules (validation's SetRules)
// has its CEL, its fast-path guard and a field the policy writes.
func setRulesChecked(rules []validation.ListenerSetRule) error {
	for _, r := range rules {
		switch _, ok := validation.SetRuleFields[r.Path]; {
		case strings.TrimSpace(r.CEL) == "":
			return fmt.Errorf("validation's set rule %q has no CEL", r.Name)
		case strings.TrimSpace(r.Guard) == "":
			return fmt.Errorf("validation's set rule %q has no fast-path guard (Guard)", r.Name)
		case !ok:
			return fmt.Errorf("validation's set rule %q: no listener field %q (validation.SetRuleFields)", r.Name, r.Path)
		}
	}
	return nil
}

// setRuleErrors adds the variable of each listener's set-rule errors
// (validation.SetRules), written with their messages for both tiers like the
// other rules between listeners, and returns what a listener's entries add
// for them: "" when there are no set rules, so that an empty table costs
// nothing. over binds i, l, p and sl for each listener (build).
func setRuleErrors(add func(name, expr string), over func(over, body string) string, w writer) string {
	if len(validation.SetRules()) == 0 {
		return ""
	}
	var parts []string
	for _, r := range validation.SetRules() {
		v := validation.SetRuleFields[r.Path]
		e, holes := field.Invalid(placeholderPath, valueHole, r.Detail), map[string]string{valueHole: v.CEL}
		if v.Number {
			e, holes = field.Invalid(placeholderPath, intValueHole, r.Detail), map[string]string{strconv.FormatInt(intValueHole, 10): v.CEL}
		}
		// the name is the key listeners are paired by: as stored when paired
		var involves []string
		if r.Path != "name" {
			involves = append(involves, r.Path)
		}
		parts = append(parts, fill(`(({cel}) && !{same} ? [{line}] : [])`,
			"cel", r.CEL, "same", same(involves...), "line", w.line(`p + ".`+r.Path+`"`, e, holes)))
	}
	add("setRuleErrors", over("variables.idx", strings.Join(parts, " + ")))
	return " + variables.setRuleErrors[i]"
}

// setRuleGuards is the fast path's test of the set rules, to be joined to
// its condition: " && " and every guard ("" when there are none).
func setRuleGuards() string {
	var conds string
	for _, r := range validation.SetRules() {
		conds += " && (" + r.Guard + ")"
	}
	return conds
}
