package policy_test

import (
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	utilversion "k8s.io/apimachinery/pkg/util/version"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/findings"
	"github.com/airlock/listenerset-webhook/policy"
	"github.com/airlock/listenerset-webhook/policy/policytest"
	"github.com/airlock/listenerset-webhook/validation"
	"github.com/airlock/listenerset-webhook/validation/validationtest"
)

// namespaceOf is d's Namespace as kube-apiserver hands it to admission
// (namespaceObject).
func namespaceOf(d validationtest.Declaration) *corev1.Namespace {
	return &corev1.Namespace{ObjectMeta: d.Object().ObjectMeta}
}

// TestDeclaredHostnamesSameVerdict: every case of
// validationtest.DeclarationCases is denied by validation with the case's
// code alone (or admitted), and the policy, reading the declaration from
// namespaceObject, gives the same verdict, paths and details, by its rules
// and, for an object the CRD admits, by both policies, the rules' fast path
// included: the usual set skips the rules in every Namespace (a match
// condition cannot read it), and the declarations' policy alone gives
// validation's verdict and entries on it.
func TestDeclaredHostnamesSameVerdict(t *testing.T) {
	e := evaluator(t)
	var st diffStats
	outcomes := map[findings.Code]int{}
	for _, tc := range validationtest.DeclarationCases() {
		d := tc.Declaration
		errs, _ := validation.Validate(tc.New, tc.Old, validation.Options{Cluster: d.Cluster()})
		for _, err := range errs {
			if c := findings.CodeOf(err); c != tc.Code {
				t.Errorf("%s: validation gives %s (%v), the case wants %q", tc.Name, c, err, tc.Code)
			}
		}
		if (len(errs) == 0) != (tc.Code == "") {
			t.Errorf("%s: validation errors %v, the case wants %q", tc.Name, errs, tc.Code)
		}
		outcomes[tc.Code]++
		compareIn(t, e, tc.Name, &d, tc.New, tc.Old, &st)
	}
	// the usual set: the rules' fast path skips it, the declarations'
	// policy judges it as validation does
	var usual int
	for _, tc := range validationtest.DeclarationCases() {
		if tc.Old != nil || len(tc.New.Spec.Listeners) != validation.MaxListeners {
			continue
		}
		usual++
		obj := crdDefaulted(t, tc.New)
		ns := namespaceOf(tc.Declaration)
		if r := fastOnly(t).EvaluateIn(ns, obj, nil, 0); r.Error || !r.Allowed {
			t.Errorf("%s: the rules' fast path does not skip it: %+v", tc.Name, r)
		}
		errs, _ := validation.Validate(tc.New, nil, validation.Options{Cluster: tc.Declaration.Cluster()})
		r := declarationsOnly(t).EvaluateIn(ns, obj, nil, 0)
		if r.Error || r.Allowed != (len(errs) == 0) {
			t.Errorf("%s: the declarations' policy allowed=%v (error %v), validation %v: %.300q", tc.Name, r.Allowed, r.Error, errs, r.Message)
		} else if !r.Allowed && !policytest.Cut(errs) {
			if got, want := policytest.SortedEntries(r.Message), policytest.ErrorEntries(errs); !slices.Equal(got, want) {
				t.Errorf("%s: the declarations' policy says\n %q\nvalidation\n %q", tc.Name, got, want)
			}
		}
	}
	if usual == 0 {
		t.Error("no case of the usual set")
	}
	t.Logf("%d requests (%v by code), %d denied, %d messages cut, %d with other details", st.cases, outcomes, st.denied, st.truncated, st.detailDiffs)
	if outcomes[""] == 0 || outcomes[validation.CodeHostnameNotDeclared] == 0 || outcomes[validation.CodeDeclarationMalformed] == 0 {
		t.Errorf("the cases reach neither verdict: %v", outcomes)
	}
}

// TestDeclarationsPolicyVariables: the declarations' policy declares only
// the annotation's key (which the chart sets) and the fast path, the rest
// bound in its validation and message: kube-apiserver builds every variable
// a policy declares for each evaluation, read or not, so each one more would
// cost every request in every Namespace.
func TestDeclarationsPolicyVariables(t *testing.T) {
	p, err := policy.Generate(policy.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, v := range p.Declarations.Policy.Spec.Variables {
		names = append(names, v.Name)
	}
	if want := []string{policy.AllowedHostnamesVariable, policy.FastPathVariable}; !slices.Equal(names, want) {
		t.Errorf("the declarations' policy declares the variables %q, want %q", names, want)
	}
}

// TestDeclaredHostnamesNamespaceObject: a request without a Namespace
// (namespaceObject null, as for a cluster-scoped one) and one whose
// Namespace has no annotations are judged as without a declaration, and a
// declaration under another key than the policy's
// (Options.AllowedHostnamesAnnotation) is none.
func TestDeclaredHostnamesNamespaceObject(t *testing.T) {
	e := evaluator(t)
	for _, tc := range validationtest.DeclarationCases() {
		obj, old := crdDefaulted(t, tc.New), map[string]any(nil)
		if tc.Old != nil {
			old = crdDefaulted(t, tc.Old)
		}
		errs, _ := validation.Validate(tc.New, tc.Old, validation.Options{})
		for name, ns := range map[string]*corev1.Namespace{"null": nil, "no annotations": namespaceOf(validationtest.NotDeclared)} {
			r := e.EvaluateIn(ns, obj, old, 0)
			if r.Error || r.Allowed != (len(errs) == 0) {
				t.Errorf("%s, Namespace %s: policy allowed=%v (error %v %.300q), validation without a declaration %v", tc.Name, name, r.Allowed, r.Error, r.Message, errs)
			}
		}
	}
}

// TestDeclaredHostnamesAnnotationKey: with Options.AllowedHostnamesAnnotation
// the policy reads the declaration under that key, in its rules and its
// fast path, and a declaration under the default key is none.
func TestDeclaredHostnamesAnnotationKey(t *testing.T) {
	const key = "example.com/hosts"
	p, err := policy.Generate(policy.Options{AllowedHostnamesAnnotation: key})
	if err != nil {
		t.Fatal(err)
	}
	e, err := policytest.CompilePolicies(p, utilversion.MustParseGeneric("1.29"))
	if err != nil {
		t.Fatal(err)
	}
	var checked int
	for _, tc := range validationtest.DeclarationCases() {
		if tc.Old != nil || !tc.Declaration.Declared {
			continue
		}
		obj, _, admitted := throughCRD(t, tc.New)
		if !admitted {
			continue
		}
		ns := namespaceOf(tc.Declaration)
		if r := e.EvaluateIn(ns, obj, nil, 0); r.Error || !r.Allowed {
			t.Errorf("%s, declared under the default key: denied (error %v): %.300q", tc.Name, r.Error, r.Message)
		}
		ns.Annotations = map[string]string{key: tc.Declaration.Value}
		r := e.EvaluateIn(ns, obj, nil, 0)
		if r.Error || r.Allowed != (tc.Code == "") {
			t.Errorf("%s, declared under %s: allowed=%v (error %v), want %v: %.300q", tc.Name, key, r.Allowed, r.Error, tc.Code == "", r.Message)
		}
		if !r.Allowed && !strings.Contains(r.Message, key) {
			t.Errorf("%s: the denial does not name %s: %.300q", tc.Name, key, r.Message)
		}
		checked++
	}
	if checked == 0 {
		t.Fatal("no case checked")
	}
	if _, err := policy.Generate(policy.Options{AllowedHostnamesAnnotation: "not a key"}); err == nil {
		t.Error("an annotation key no annotation can have is accepted")
	}
}

// TestDeclaredHostnamesFuzz holds the policy to validation on random
// objects of the fuzz generator, as creates and updates, each in one of
// validationtest.Declarations' Namespaces in turn.
func TestDeclaredHostnamesFuzz(t *testing.T) {
	e := evaluator(t)
	declarations := validationtest.Declarations()
	n := 1500
	if testing.Short() {
		n = 150
	}
	var st diffStats
	rng := rand.New(rand.NewPCG(41, 2))
	for i := range n {
		d := declarations[i%len(declarations)]
		data := validationtest.BiasedFuzzBytes(rng)
		ls := validationtest.FuzzListenerSet(data)
		ls.Name, ls.Namespace = "fuzz", d.Namespace
		compareIn(t, e, "fuzz create in "+d.Namespace, &d, ls, nil, &st)
		changed := slices.Clone(data)
		for range 1 + rng.IntN(3) {
			changed[rng.IntN(len(changed))] = byte(rng.UintN(256))
		}
		nls := validationtest.FuzzListenerSet(changed)
		nls.Name, nls.Namespace = "fuzz", d.Namespace
		compareIn(t, e, "fuzz update in "+d.Namespace, &d, nls, ls, &st)
		if t.Failed() && i > 20 {
			break
		}
	}
	t.Logf("%d requests, %d denied, %d messages cut, %d with other details; %d admitted by the CRD and judged by the whole policy too: %d valid",
		st.cases, st.denied, st.truncated, st.detailDiffs, st.throughCRD, st.validThroughCRD)
}

// TestWorstDeclarationCost: the policy decides, within kube-apiserver's
// runtime CEL budget (each expression within its per-call limit, which the
// evaluator enforces), the costliest objects (the policy's own worst, 64
// listeners of the longest hostnames with nearly every field an error, as
// a create and as an update of every value; the usual 64-listener set, one
// hostname left out) in a Namespace of each of
// policytest.WorstDeclarations and validationtest.DeclaredShapes, as
// validation does; the figures are logged.
func TestWorstDeclarationCost(t *testing.T) {
	if testing.Short() {
		t.Skip("minutes of CEL")
	}
	e := whole(t)
	worst := policytest.WorstListenerSet(policytest.Worst{ValueLen: 4096, RefNameLen: 253, Selector: 8})
	requests := map[string]struct{ new, old *gwv1.ListenerSet }{
		"the policy's worst":                        {worst, nil},
		"the policy's worst, update of every value": {worst, everyValueChanged(worst)},
		"the usual set":                             {validationtest.DeclarationCases()[1].New, nil},
	}
	declarations := policytest.WorstDeclarations()
	for _, shape := range validationtest.DeclaredShapes {
		declarations[shape.Name] = shape.Declaration
	}
	names := make([]string, 0, len(declarations))
	for name := range declarations {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, request := range []string{"the policy's worst", "the policy's worst, update of every value", "the usual set"} {
		for _, name := range names {
			t.Run(request+" in "+name, func(t *testing.T) {
				rq := requests[request]
				d := validationtest.Declaration{Namespace: rq.new.Namespace, Declared: true, Value: declarations[name]}
				obj, typed, _ := throughCRD(t, rq.new)
				if obj == nil {
					t.Fatal("the CRD cannot decode the object")
				}
				var old map[string]any
				var oldTyped *gwv1.ListenerSet
				if rq.old != nil {
					old, oldTyped, _ = throughCRD(t, rq.old)
				}
				errs, _ := validation.Validate(typed, oldTyped, validation.Options{Cluster: d.Cluster()})
				r, cost, elapsed := decided(t, e, namespaceOf(d), obj, old, errs)
				entries, _ := policytest.Entries(r.Message)
				t.Logf("declaration of %d bytes, %d entries: %d errors, cost %d of %d (%.1f%%), one evaluation %v in process, %d entries shown",
					len(d.Value), strings.Count(d.Value, ",")+1, len(errs), cost, celconfig.RuntimeCELCostBudget,
					100*float64(cost)/celconfig.RuntimeCELCostBudget, elapsed.Round(time.Millisecond), len(entries))
			})
		}
	}
}
