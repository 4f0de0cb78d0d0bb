package object

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/findings"
	"github.com/airlock/listenerset-webhook/validation/internal/verdict"
)

// SetRules are the rules over a set's listeners (a count, a pair, a field
// combination) that one entry defines whole (ListenerSetRule): a new rule
// of that shape is an entry here, a test row and a line of CHANGELOG.md.
var SetRules = []ListenerSetRule{}

// ListenerSetRule is an object rule over a set's listeners: its definition,
// its code and catalog entry, its Go check, its CEL and the policy's fast
// path guard are this one entry. Each listener that breaks it gets one
// error, field.Invalid of the value at Path below it with Detail and Code,
// ratcheted by that value (an update that leaves it as stored on a listener
// paired by name lets the error through, as every listener rule does; so
// a count's update that puts a new listener before the stored ones moves
// the error onto a stored one, which stays ratcheted). The
// policy writes the error, its ratcheting and the fast path from the entry
// (policy/setrules.go) and refuses to build without CEL or Guard; the
// example tests of every engine hold the three to the examples.
type ListenerSetRule struct {
	// Rule is the definition; Field, Errors and Codes may be left empty:
	// they are "`spec.listeners[i].<Path>`", "Invalid" and Code.
	Rule
	// Name names the rule in the policy's build errors.
	Name string
	// Code is the code of the rule's errors. Doc, for a code of its own,
	// is its catalog entry (Title, Cause, Fix; its code, kind and path are
	// the rule's); a rule that shares a code leaves it nil.
	Code findings.Code
	Doc  *findings.CodeDoc
	// Path is the field below each listener that breaks the rule where
	// its error is: a key of SetRuleFields ("protocol").
	Path string
	// Detail is the error's detail.
	Detail string
	// Violations are the indexes of the listeners of ls that break the
	// rule, in one pass over them (validation judges at most MaxListeners).
	Violations func(ls []gwv1.ListenerEntry) []int
	// CEL is the rule in the policy, per listener: a boolean, true when
	// listener i breaks it, as Violations says. It reads i, l (the
	// listener), variables.listeners (every listener) and variables.idx
	// (their indexes); the CRD's required fields read as present.
	CEL string
	// Guard is the fast path's test (policy/fast.go): a boolean of
	// object.spec.listeners, true only when no listener breaks the rule.
	// The fast path admits a set only when every rule's guard holds, so it
	// may be coarser than the rule (false for some valid sets), never
	// looser.
	Guard string
}

// SetRuleField is a field below a listener a ListenerSetRule's error may be
// at: the value its error shows and the values it ratchets by.
type SetRuleField struct {
	// Shown is the error's value: a string or a number, an absent
	// hostname "".
	Shown func(*gwv1.ListenerEntry) any
	// Involves are what the error ratchets by: the value at the path; none
	// for the name, the key listeners are paired by.
	Involves []verdict.Value
	// CEL reads Shown in the policy, from listener l; Number says it is a
	// number there.
	CEL    string
	Number bool
}

// SetRuleFields are the fields a ListenerSetRule's error may be at, by
// their path below the listener; the policy writes each.
var SetRuleFields = map[string]SetRuleField{
	"name":     {Shown: func(l *gwv1.ListenerEntry) any { return string(l.Name) }, CEL: "l.name"},
	"port":     {Shown: func(l *gwv1.ListenerEntry) any { return int32(l.Port) }, Involves: []verdict.Value{portValue}, CEL: "l.port", Number: true},
	"protocol": {Shown: func(l *gwv1.ListenerEntry) any { return string(l.Protocol) }, Involves: []verdict.Value{protocolValue}, CEL: "l.protocol"},
	"hostname": {Shown: func(l *gwv1.ListenerEntry) any {
		if l.Hostname == nil {
			return ""
		}
		return string(*l.Hostname)
	}, Involves: []verdict.Value{HostnameValue}, CEL: `(has(l.hostname) ? l.hostname : "")`},
}

// rule is r's definition with what it leaves empty derived.
func (r ListenerSetRule) rule() Rule {
	d := r.Rule
	if d.Field == "" {
		d.Field = "`spec.listeners[i]." + r.Path + "`"
	}
	if d.Errors == "" {
		d.Errors = "Invalid"
	}
	if d.Codes == nil {
		d.Codes = []findings.Code{r.Code}
	}
	return d
}

// setRuleCodes are the catalog entries the SetRules hold (Doc).
func setRuleCodes() []findings.CodeDoc {
	var docs []findings.CodeDoc
	for _, r := range SetRules {
		if r.Doc != nil {
			d := *r.Doc
			d.Code, d.Kind, d.Paths = r.Code, findings.CodeKindError, []string{ListenerPathPattern + "." + r.Path}
			docs = append(docs, d)
		}
	}
	return docs
}

// setRuleBreaks are, per entry of SetRules, which of listeners break it
// (nil for a rule none breaks, and when there are no SetRules).
func setRuleBreaks(listeners []gwv1.ListenerEntry) [][]bool {
	if len(SetRules) == 0 {
		return nil
	}
	breaks := make([][]bool, len(SetRules))
	for k, r := range SetRules {
		for _, i := range r.Violations(listeners) {
			if i < 0 || i >= len(listeners) {
				panic(fmt.Sprintf("set rule %q: Violations gave listener %d of %d", r.Name, i, len(listeners)))
			}
			if breaks[k] == nil {
				breaks[k] = make([]bool, len(listeners))
			}
			breaks[k][i] = true
		}
	}
	return breaks
}

// checkSetRules records the errors of listener i for the SetRules it
// breaks (breaks: setRuleBreaks), each ratcheted by the value at its path.
func checkSetRules(breaks [][]bool, i int, l *gwv1.ListenerEntry, fldPath *field.Path, v *judging) {
	for k, broken := range breaks {
		if broken == nil || !broken[i] {
			continue
		}
		r := SetRules[k]
		f := SetRuleFields[r.Path]
		v.Check(i, field.ErrorList{r.Code.Err(field.Invalid(fldPath.Child(r.Path), f.Shown(l), r.Detail))}, f.Involves...)
	}
}

// Copies are n copies of l for a rule's example, each its own listener:
// the k-th named "<name>-<k>" and, when l has a hostname, at
// "<name>-<k>.<hostname>" (below a wildcard's "*."), so that no two
// conflict.
func Copies(l gwv1.ListenerEntry, n int) []gwv1.ListenerEntry {
	out := make([]gwv1.ListenerEntry, n)
	for k := range out {
		c := l.DeepCopy()
		c.Name = gwv1.SectionName(fmt.Sprintf("%s-%d", l.Name, k))
		if l.Hostname != nil {
			wildcard, name := "", string(*l.Hostname)
			if rest, ok := strings.CutPrefix(name, WildcardPrefix); ok {
				wildcard, name = WildcardPrefix, rest
			}
			h := gwv1.Hostname(wildcard + string(c.Name) + "." + name)
			c.Hostname = &h
		}
		out[k] = *c
	}
	return out
}
