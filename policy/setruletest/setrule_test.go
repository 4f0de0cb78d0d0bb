package setruletest

import (
	"context"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	"k8s.io/utils/ptr"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/findings"
	"github.com/airlock/listenerset-webhook/offline/crdcheck"
	"github.com/airlock/listenerset-webhook/policy/policytest"
	"github.com/airlock/listenerset-webhook/validation"
	"github.com/airlock/listenerset-webhook/validation/validationtest"
)

// under is the suffix of the count rule's hostnames, one no real rule
// names.
const under = ".setruletest"

// added are the rules this test adds: a count at the hostname, with a code
// of its own and an example set built for it, and a pair at the port, with
// an existing code and a one-field example.
var added = []validation.ListenerSetRule{{
	Rule: validation.Rule{Number: 7, Summary: "at most 2 listeners under `" + under + "`",
		Valid:   validation.Example{Text: "2 listeners under " + under, Build: func(ls *gwv1.ListenerSet) { underSet(ls, 2) }},
		Invalid: validation.Example{Text: "3 listeners under " + under, Build: func(ls *gwv1.ListenerSet) { underSet(ls, 3) }}},
	Name: "at-most-2-setruletest", Code: "LS199", Path: "hostname", Detail: "at most 2 listeners of a set may be under " + under,
	Doc: &findings.CodeDoc{Title: "Too many " + under + " listeners", Cause: "More than 2 listeners are under " + under + ".", Fix: "Remove one."},
	Violations: func(ls []gwv1.ListenerEntry) []int {
		var out []int
		n := 0
		for i, l := range ls {
			if l.Hostname != nil && strings.HasSuffix(string(*l.Hostname), under) {
				if n++; n > 2 {
					out = append(out, i)
				}
			}
		}
		return out
	},
	CEL: `l.?hostname.orValue("").endsWith("` + under + `") && ` +
		`size(variables.idx.filter(j, j < i && variables.listeners[j].?hostname.orValue("").endsWith("` + under + `"))) >= 2`,
	Guard: `size(object.spec.listeners.filter(l, l.?hostname.orValue("").endsWith("` + under + `"))) <= 2`,
}, {
	Rule: validation.Rule{Number: 2, Summary: "no two listeners on neighbouring ports (reported on the later one)",
		Valid:   validation.Example{At: "spec.listeners[1].port", Value: "82"},
		Invalid: validation.Example{At: "spec.listeners[1].port", Value: "81"}},
	Name: "no-neighbour-ports", Code: validation.CodePort, Path: "port", Detail: "must not be next to another listener's port",
	Violations: func(ls []gwv1.ListenerEntry) []int {
		var out []int
		seen := map[gwv1.PortNumber]bool{}
		for i, l := range ls {
			if seen[l.Port-1] || seen[l.Port+1] {
				out = append(out, i)
			}
			seen[l.Port] = true
		}
		return out
	},
	CEL:   `variables.idx.exists(j, j < i && (variables.listeners[j].port == l.port - 1 || variables.listeners[j].port == l.port + 1))`,
	Guard: `object.spec.listeners.all(a, object.spec.listeners.all(b, b.port != a.port + 1))`,
}}

// underSet makes the example object's HTTP listener n listeners under
// the suffix, before its HTTPS one.
func underSet(ls *gwv1.ListenerSet, n int) {
	l := ls.Spec.Listeners[0]
	l.Hostname = ptr.To(gwv1.Hostname("shop" + under))
	ls.Spec.Listeners = append(validation.Copies(l, n), ls.Spec.Listeners[1])
}

func TestMain(m *testing.M) {
	for _, r := range added {
		validationtest.AddSetRule(r)
	}
	os.Exit(m.Run())
}

// TestSetRuleExamples: each added rule's examples, as every engine's
// example test judges them: validation gives the rule's codes only to the
// invalid one; the policy gives validation's entries, as a create, an
// update to it and an update that leaves it as stored (ratcheted by both);
// the fast path never admits the invalid one.
func TestSetRuleExamples(t *testing.T) {
	var rules []validation.Rule
	for _, r := range validation.Rules() {
		if slices.ContainsFunc(added, func(a validation.ListenerSetRule) bool { return a.Summary == r.Summary }) {
			rules = append(rules, r)
		}
	}
	cases, err := validationtest.RuleCases(rules)
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) != 2*len(added) {
		t.Fatalf("validation.Rules has %d examples of the added rules, want %d", len(cases), 2*len(added))
	}
	crd, err := crdcheck.Default()
	if err != nil {
		t.Fatal(err)
	}
	base := validationtest.RuleBase()
	for _, c := range cases {
		ls := c.ListenerSet
		errs, _ := validation.Validate(ls, nil, validation.Options{})
		if d := c.Difference(errs); d != "" {
			t.Errorf("%s: %s", c.Name, d)
		}
		policytest.SameVerdict(t, c.Name, ls, nil)
		policytest.SameVerdict(t, c.Name+" (update)", ls, base)
		if policytest.SameVerdict(t, c.Name+" (as stored)", ls, ls) {
			t.Errorf("%s: an update that leaves it as stored is denied", c.Name)
		}
		if _, warns := validation.Validate(ls, ls, validation.Options{}); !c.Valid && len(warns) == 0 {
			t.Errorf("%s: as stored, no ratcheting warning", c.Name)
		}
		raw, _ := json.Marshal(ls)
		d, err := crd.DecodeCreate(raw)
		if err != nil {
			t.Fatal(err)
		}
		if errs, _ := crd.ValidateCreate(context.Background(), d.Object); len(errs) > 0 {
			t.Fatalf("%s: the CRD refuses it: %v", c.Name, errs)
		}
		switch r := policytest.GeneratedFastPath(t).Evaluate(d.Object.Object, nil, 0); {
		case r.Error:
			t.Errorf("%s: the fast path fails: %s", c.Name, r.Message)
		case r.Allowed && !c.Valid:
			t.Errorf("%s: takes the fast path (the rule's fast-path guard admits it)", c.Name)
		}
	}
}

// TestSetRuleErrors: the count rule's error is field.Invalid of the
// hostname at each listener past the second, with its detail and code; a
// new listener past them is denied where the stored ones are ratcheted.
func TestSetRuleErrors(t *testing.T) {
	invalid, err := validationtest.Apply(added[0].Invalid)
	if err != nil {
		t.Fatal(err)
	}
	errs, _ := validation.Validate(invalid, nil, validation.Options{})
	if len(errs) != 1 || errs[0].Field != "spec.listeners[2].hostname" || errs[0].BadValue != "web-2.shop"+under ||
		errs[0].Detail != added[0].Detail || findings.CodeOf(errs[0]) != "LS199" {
		t.Fatalf("validation: %v", errs)
	}
	grown := invalid.DeepCopy()
	grown.Spec.Listeners = append(grown.Spec.Listeners, validation.Copies(grown.Spec.Listeners[0], 1)...)
	grown.Spec.Listeners[len(grown.Spec.Listeners)-1].Name = "new"
	errs, warns := validation.Validate(grown, invalid, validation.Options{})
	if len(errs) != 1 || errs[0].Field != "spec.listeners[4].hostname" || len(warns) != 1 {
		t.Errorf("an update that adds a fourth: errors %v, warnings %v; want the new one's error and the stored one ratcheted", errs, warns)
	}
	if !policytest.SameVerdict(t, "an update that adds a fourth", grown, invalid) {
		t.Error("an update that adds a fourth: admitted")
	}
}

// TestSetRuleCatalog: the rule's own code is in the catalog at its path,
// with the rule's row; its definition's fields it left empty are derived.
func TestSetRuleCatalog(t *testing.T) {
	codes := validation.Catalog()
	i := slices.IndexFunc(codes, func(d findings.CodeDoc) bool { return d.Code == "LS199" })
	if i < 0 {
		t.Fatal("LS199 is not in the catalog")
	}
	d := codes[i]
	if d.Kind != findings.CodeKindError || !slices.Equal(d.Paths, []string{"spec.listeners[*].hostname"}) || d.Title != added[0].Doc.Title ||
		!slices.Equal(d.Rules, []string{"`spec.listeners[i].hostname`: " + added[0].Summary}) {
		t.Errorf("LS199: %+v", d)
	}
	rules := validation.Rules()
	j := slices.IndexFunc(rules, func(r validation.Rule) bool { return r.Summary == added[0].Summary })
	if r := rules[j]; r.Errors != "Invalid" || r.Invalid.String() != "3 listeners under "+under {
		t.Errorf("its rule: %+v, shown as %q", r, r.Invalid)
	}
}
