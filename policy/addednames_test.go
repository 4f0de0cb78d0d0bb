package policy_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	utilversion "k8s.io/apimachinery/pkg/util/version"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/policy"
	"github.com/airlock/listenerset-webhook/policy/policytest"
	"github.com/airlock/listenerset-webhook/validation"
)

// TestAddedNames: a name the setting adds is admitted by the policy as by
// validation, on every path (the fast path, the checks, the
// message); an unknown name beside it is still denied, with the message
// validation gives (which lists the added names among the supported ones).
func TestAddedNames(t *testing.T) {
	added, err := validation.ParseAddedNames([]string{"ecdhCurves=SecP256r1MLKEM768", "ciphers=ECDHE-RSA-AES128-CCM,AES128-CCM"})
	if err != nil {
		t.Fatal(err)
	}
	e, builtin := compiledWith(t, added), compiledWith(t, nil)
	for _, tc := range []struct {
		name     string
		curves   string
		ciphers  string
		accepted bool
	}{
		{"an added curve", "SecP256r1MLKEM768,X25519", "ECDHE-RSA-AES128-GCM-SHA256", true},
		{"two added ciphers", "X25519", "AES128-CCM,ECDHE-RSA-AES128-GCM-SHA256,ECDHE-RSA-AES128-CCM", true},
		{"every accepted cipher once", "X25519", joined(added.Names(validation.OptionCiphers)), true},
		{"an unknown curve beside an added one", "SecP256r1MLKEM768,X25519Kyber768", "ECDHE-RSA-AES128-GCM-SHA256", false},
		{"an added cipher twice", "X25519", "AES128-CCM,AES128-CCM", false},
	} {
		ls := fastBase()
		for i := range ls.Spec.Listeners {
			if tls := ls.Spec.Listeners[i].TLS; tls != nil {
				tls.Options[validation.OptionECDHCurves] = gwv1.AnnotationValue(tc.curves)
				tls.Options[validation.OptionCiphers] = gwv1.AnnotationValue(tc.ciphers)
			}
		}
		errs, _ := validation.Validate(ls, nil, validation.Options{AddedNames: added})
		if (len(errs) == 0) != tc.accepted {
			t.Fatalf("%s: validation errors %v, want accepted=%v", tc.name, errs, tc.accepted)
		}
		obj, _, ok := throughCRD(t, ls)
		if !ok {
			t.Fatalf("%s: the CRD refuses the object", tc.name)
		}
		got := e.Evaluate(obj, nil, 0)
		if got.Error || got.Allowed != tc.accepted {
			t.Errorf("%s: policy allowed=%v (error %v), want %v; message %q", tc.name, got.Allowed, got.Error, tc.accepted, got.Message)
			continue
		}
		if tc.accepted {
			// without the setting, the same object is denied: the test
			// would pass for a policy that ignored the names otherwise
			if r := builtin.Evaluate(obj, nil, 0); r.Allowed {
				t.Errorf("%s: the policy without added names admits it too", tc.name)
			}
			continue
		}
		if entries, want := policytest.SortedEntries(got.Message), policytest.ErrorEntries(errs); !slices.Equal(entries, want) {
			t.Errorf("%s: the policy's message\n %q\nvalidation's\n %q", tc.name, entries, want)
		}
	}
}

// compiledWith is the policy generated with added, compiled as a 1.30
// kube-apiserver compiles it.
func compiledWith(t testing.TB, added validation.AddedNames) *policytest.Evaluator {
	p, err := policy.Generate(policy.Options{AddedNames: added})
	if err != nil {
		t.Fatal(err)
	}
	e, err := policytest.CompilePolicies(p, utilversion.MustParseGeneric("1.29"))
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func joined(names []string) string { return strings.Join(names, ",") }

// TestAddedNamesCost: with the most names the setting may add
// (validation.MaxAddedNames per option, each of the longest length), the
// policy still decides within kube-apiserver's CEL budget: its own
// costliest object, and the largest valid one, whose every listener names
// every accepted name of every list-valued option.
func TestAddedNamesCost(t *testing.T) {
	if testing.Short() {
		t.Skip("minutes of CEL")
	}
	var settings []string
	for _, key := range validation.ListOptions {
		names := make([]string, validation.MaxAddedNames)
		for i := range names {
			names[i] = fmt.Sprintf("%s-%02d", strings.Repeat("N", 20), i)
		}
		settings = append(settings, strings.TrimPrefix(string(key), validation.OptionPrefix)+"="+strings.Join(names, ","))
	}
	added, err := validation.ParseAddedNames(settings)
	if err != nil {
		t.Fatal(err)
	}
	e := compiledWith(t, added)
	largest := fastBase()
	largest.Spec.Listeners = largest.Spec.Listeners[:1]
	for i := 1; len(largest.Spec.Listeners) < validation.MaxListeners; i++ {
		l := *largest.Spec.Listeners[0].DeepCopy()
		l.Name, l.Port = gwv1.SectionName(fmt.Sprintf("l%d", i)), gwv1.PortNumber(8443+i)
		largest.Spec.Listeners = append(largest.Spec.Listeners, l)
	}
	for i := range largest.Spec.Listeners {
		for _, key := range validation.ListOptions {
			largest.Spec.Listeners[i].TLS.Options[key] = gwv1.AnnotationValue(joined(added.Names(key)))
		}
	}
	worst := policytest.WorstListenerSet(policytest.Worst{ValueLen: 4096, RefNameLen: 253, Selector: 8})
	for _, rq := range []struct {
		name string
		ls   *gwv1.ListenerSet
	}{{"largest valid, every accepted name", largest}, {"policy's worst", worst}} {
		obj, typed, ok := throughCRD(t, rq.ls)
		if !ok {
			t.Fatalf("%s: the CRD refuses it", rq.name)
		}
		errs, _ := validation.Validate(typed, nil, validation.Options{AddedNames: added})
		r := e.Evaluate(obj, nil, 0)
		if r.Error || r.Allowed != (len(errs) == 0) {
			t.Fatalf("%s: policy allowed=%v (error %v), validation %d errors; message %.300q", rq.name, r.Allowed, r.Error, len(errs), r.Message)
		}
		cost, ok := e.Cost(obj, nil, celconfig.RuntimeCELCostBudget)
		if !ok {
			t.Fatalf("%s: over kube-apiserver's budget of %d", rq.name, celconfig.RuntimeCELCostBudget)
		}
		t.Logf("%s: allowed=%v, cost %d of %d (%.1f%%)", rq.name, r.Allowed, cost, celconfig.RuntimeCELCostBudget, 100*float64(cost)/celconfig.RuntimeCELCostBudget)
	}
}
