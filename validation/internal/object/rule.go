package object

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/findings"
)

// Rule is one object rule as users read it and the tests hold every engine
// to it: a row of docs/rules.md's table, a line of each of its codes'
// entries in docs/codes.md, and a valid and an invalid example, which the
// tests apply to the example object (validationtest.RuleBase) and judge
// with the Go rules, the policy's rules and its fast path: the invalid one
// must be denied with one of Codes by both and must leave the fast path,
// the valid one admitted by both. Each rule is defined beside its Go
// function (the tables listed by Rules).
type Rule struct {
	// Number is the rule's number in docs/rules.md; rows of one number are
	// one rule over several fields.
	Number int
	// Field is the table's field cell, Markdown: "`spec.listeners[i].port`".
	Field string
	// Summary says what the value must be, in one line.
	Summary string
	// Errors are the kinds of error kubectl prints: "Required / Invalid".
	Errors string
	// Codes are the codes the rule's errors carry.
	Codes []findings.Code
	// Valid and Invalid are a change of the example object each.
	Valid, Invalid Example
}

// Example is a change of the example object (validationtest.RuleBase):
// the value at a path of it (At, Value), or a set written for the rule
// (Build, Text), such as 17 listeners for a rule that counts them.
type Example struct {
	// At is the path, written as field.Path writes one
	// ("spec.listeners[1].tls.options[microgateway.airlock.com/ciphers]").
	At string
	// Value is YAML; null removes the field.
	Value string
	// Build, when set, changes the example object into the example
	// (replacing its listeners, say; Copies writes many); At is then
	// unused. Text says what it built, for docs/rules.md and the tests'
	// messages: "17 HTTPS listeners".
	Build func(*gwv1.ListenerSet)
	Text  string
}

// String is the example as docs/rules.md shows it: a built one's Text, a
// change's last field and value. A map key (the last [...]) is shown whole.
func (e Example) String() string {
	if e.Build != nil {
		return e.Text
	}
	last := e.At
	if key, ok := strings.CutSuffix(e.At, "]"); ok {
		if k := key[strings.LastIndex(key, "[")+1:]; strings.Trim(k, "0123456789") != "" {
			last = k
		}
	} else if i := strings.LastIndexByte(e.At, '.'); i >= 0 {
		last = e.At[i+1:]
	}
	return last + ": " + e.Value
}

// ListenerValueRule is an object rule on one string field of a listener
// that a test of its value alone decides: its definition, its Go function
// and its error's detail are this one entry. The policy writes its CEL
// (package policy, by Name); its error, its ratcheting (by the value at its
// path), the policy's fast path and the fuzz generator's cases derive from
// the entry.
type ListenerValueRule struct {
	Rule
	// Name keys the rule's CEL in the policy.
	Name string
	// Path is the field below the listener, a key of ListenerStrings.
	Path string
	// Detail is the error's detail (field.Invalid at the field, with the
	// code Codes[0]).
	Detail string
	// Allows is the rule: true when the value (present) passes.
	Allows func(value string) bool
}

// ListenerStrings are the listener's string fields a ListenerValueRule may
// judge, by their path below the listener; nil when absent.
var ListenerStrings = map[string]func(*gwv1.ListenerEntry) *string{
	"name":     func(l *gwv1.ListenerEntry) *string { return (*string)(&l.Name) },
	"protocol": func(l *gwv1.ListenerEntry) *string { return (*string)(&l.Protocol) },
	"hostname": func(l *gwv1.ListenerEntry) *string { return (*string)(l.Hostname) },
}

// validateValueRules applies the ListenerValueRules to listener i, each
// error ratcheted by the value at its path.
func validateValueRules(i int, l *gwv1.ListenerEntry, fldPath *field.Path, v *judging) {
	for _, r := range ListenerValueRules {
		of := ListenerStrings[r.Path]
		if s := of(l); s != nil && !r.Allows(*s) {
			path := fldPath
			for f := range strings.SplitSeq(r.Path, ".") {
				path = path.Child(f)
			}
			v.Check(i, field.ErrorList{r.Codes[0].Err(field.Invalid(path, *s, r.Detail))},
				func(l *gwv1.ListenerEntry) any { return of(l) })
		}
	}
}

// Rules are every object rule's definition, in docs/rules.md's order: the
// tables beside the rules' Go functions, and a rule per row of the option
// table.
func Rules() []Rule {
	var all []Rule
	all = append(all, listenerRules...)
	all = append(all, tlsRules...)
	all = append(all, optionRules()...)
	for _, r := range ListenerValueRules {
		all = append(all, r.Rule)
	}
	for _, r := range SetRules {
		all = append(all, r.rule())
	}
	all = append(all, routeRules...)
	all = append(all, parentRefRules...)
	slices.SortStableFunc(all, func(a, b Rule) int { return a.Number - b.Number })
	return all
}

// optionNumber is the number of the TLS options' rule in docs/rules.md.
const optionNumber = 6

// optionRules are the options map's rule and a rule per option of
// AirlockOptions (options that share their row share a rule).
func optionRules() []Rule {
	at := func(key gwv1.AnnotationKey) string {
		return "spec.listeners[1].tls.options[" + string(key) + "]"
	}
	rules := []Rule{{Number: optionNumber, Field: "`spec.listeners[i].tls.options`",
		Summary: fmt.Sprintf("≤ %d keys, values ≤ %d bytes; keys domain-prefixed (un-prefixed names are reserved by Gateway API); unknown `%s` keys rejected, naming the supported ones",
			MaxOptions, MaxOptionValueLen, OptionPrefix),
		Errors:  "Too many / Too long / Invalid / Unsupported value",
		Codes:   []findings.Code{CodeTooManyOptions, CodeOptionTooLong, CodeUnprefixedOption, CodeOptionKey, CodeUnknownOption},
		Valid:   Example{At: at("example.com/session-cache"), Value: "shared"},
		Invalid: Example{At: at(OptionPrefix + "minVersion"), Value: "TLSv1_2"},
	}}
	opts := AirlockOptions
	for i := 0; i < len(opts); {
		summary, errs := opts[i].docRow()
		keys := []string{"`options[" + string(opts[i].Key) + "]`"}
		codes := []findings.Code{opts[i].Code}
		j := i + 1
		for ; j < len(opts); j++ {
			if s, e := opts[j].docRow(); s != summary || e != errs {
				break
			}
			keys = append(keys, "`"+strings.TrimPrefix(string(opts[j].Key), OptionPrefix)+"`")
			if !slices.Contains(codes, opts[j].Code) {
				codes = append(codes, opts[j].Code)
			}
		}
		if opts[i].List {
			codes = append(codes, CodeOptionListFormat, CodeDuplicateOptionItem)
		}
		if opts[i].Key == OptionMinimumVersion || opts[i].Key == OptionMaximumVersion {
			codes = append(codes, CodeVersionRange, CodeHTTP3NeedsTLS13)
		}
		if opts[i].RefusedCode != "" {
			codes = append(codes, opts[i].RefusedCode)
		}
		rules = append(rules, Rule{Number: optionNumber, Field: strings.Join(keys, ", "), Summary: summary, Errors: errs, Codes: codes,
			Valid:   Example{At: at(opts[i].Key), Value: opts[i].ExampleValue()},
			Invalid: Example{At: at(opts[i].Key), Value: opts[i].invalidExample()}})
		i = j
	}
	return rules
}

// invalidExample is a value o refuses: a list's first name twice, or a
// value's first spelt in lowercase.
func (o AirlockOption) invalidExample() string {
	if o.List {
		return o.Values[0] + "," + o.Values[0]
	}
	return strings.ToLower(o.Values[0])
}

// docRow is o's row of docs/rules.md: its rule and errors cells, its own
// or what its values say.
func (o AirlockOption) docRow() (rule, errs string) {
	values := make([]string, len(o.Values))
	for i, v := range o.Values {
		values[i] = "`" + v + "`"
	}
	rule, errs = o.Rule, o.Errors
	switch {
	case o.List:
		if rule == "" {
			rule = "comma-separated " + strings.Join(values, ", ")
		}
		rule += "; not empty, no empty items, no duplicates, no spaces"
		if errs == "" {
			errs = "Invalid / Duplicate / Unsupported value"
		}
	case rule == "":
		rule = "one of " + strings.Join(values, ", ")
	}
	if errs == "" {
		errs = "Unsupported value"
	}
	return rule, errs
}

// codeRules are the rules of each code, for its catalog entry: "field:
// summary", one line each.
func codeRules() map[findings.Code][]string {
	out := map[findings.Code][]string{}
	for _, r := range Rules() {
		for _, c := range r.Codes {
			out[c] = append(out[c], r.Field+": "+r.Summary)
		}
	}
	return out
}

// quoted is each value in backquotes, comma-separated.
func quoted[T ~string](values []T) string {
	q := make([]string, len(values))
	for i, v := range values {
		q[i] = "`" + string(v) + "`"
	}
	return strings.Join(q, ", ")
}

// orList is quoted, its last two joined by "or".
func orList[T ~string](values []T) string {
	q := strings.Split(quoted(values), ", ")
	if len(q) < 2 {
		return strings.Join(q, "")
	}
	return strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
}
