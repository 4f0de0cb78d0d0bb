package policy

import (
	"fmt"
	"strings"

	"github.com/airlock/listenerset-webhook/validation"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ValueRuleCEL is the CEL of each of validation's ListenerValueRules, by
// its Name: a boolean expression of the value x (a string), true when the
// value passes, as the rule's Allows says in Go. From it the policy writes
// the rule's error (its path, value and detail from the definition,
// ratcheted by the value) and the fast path's test of the value, so that a
// value the rule denies never takes the fast path. A rule without its CEL,
// or CEL without its rule, fails the policy's build.
var ValueRuleCEL = map[string]string{}

// valueRulesChecked is nil when every ListenerValueRule has its CEL and
// every CEL its rule.
func valueRulesChecked() error {
	names := map[string]bool{}
	for _, r := range validation.ListenerValueRules() {
		names[r.Name] = true
		if _, ok := ValueRuleCEL[r.Name]; !ok {
			return fmt.Errorf("validation's ListenerValueRule %q has no CEL in ValueRuleCEL", r.Name)
		}
		if _, ok := validation.ListenerStrings[r.Path]; !ok {
			return fmt.Errorf("validation's ListenerValueRule %q: no listener field %q", r.Name, r.Path)
		}
	}
	for name := range ValueRuleCEL {
		if !names[name] {
			return fmt.Errorf("ValueRuleCEL %q: no ListenerValueRule of that name", name)
		}
	}
	return nil
}

// valueAllows is the CEL of rule r on listener l's value: true when it is
// absent or passes.
func valueAllows(r validation.ListenerValueRule, l string) string {
	at := l + "." + r.Path
	return fill(`(!{has} || [{at}].all(x, {cel}))`, "has", hasPath(l, r.Path), "at", at, "cel", ValueRuleCEL[r.Name])
}

// hasPath is the CEL test that the fields of path are present below x.
func hasPath(x, path string) string {
	var conds []string
	for f := range strings.SplitSeq(path, ".") {
		x += "." + f
		conds = append(conds, "has("+x+")")
	}
	return strings.Join(conds, " && ")
}

// valueRules is the entries of the ListenerValueRules of listener l at
// path p ("" when there are none): each rule's error unless its value is
// as stored.
func (w writer) valueRules() string {
	var parts []string
	for _, r := range validation.ListenerValueRules() {
		parts = append(parts, fill(`({allows} || {same} ? [] : [{line}])`,
			"allows", valueAllows(r, "l"), "same", same(r.Path),
			"line", w.line(`p + ".`+r.Path+`"`, field.Invalid(placeholderPath, valueHole, r.Detail), map[string]string{valueHole: "l." + r.Path})))
	}
	return strings.Join(parts, " + ")
}

// valueRulesPlain is the fast path's test of listener l's values, to be
// joined to a condition: " && " and every ListenerValueRule passing ("" when
// there are none).
func valueRulesPlain(l string) string {
	var conds string
	for _, r := range validation.ListenerValueRules() {
		conds += " && " + valueAllows(r, l)
	}
	return conds
}
