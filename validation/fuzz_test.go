package validation_test

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
	"sigs.k8s.io/yaml"

	"github.com/airlock/listenerset-webhook/defaults"
	"github.com/airlock/listenerset-webhook/validation"
	"github.com/airlock/listenerset-webhook/validation/internal/object"
	"github.com/airlock/listenerset-webhook/validation/validationtest"
)

// FuzzValidateListenerSet: validation never panics and leaves its input as
// it was; defaulting leaves nothing to default and a second pass changes
// nothing; an update that changes nothing is never blocked, and neither is
// one that only reorders listeners with distinct names (ratcheting pairs
// them by name, not by position); every finding has its code.
func FuzzValidateListenerSet(f *testing.F) {
	f.Add([]byte{}) // every first choice; the committed corpus has the examples
	f.Fuzz(func(t *testing.T, data []byte) {
		ls := validationtest.FuzzListenerSet(data)
		input := ls.DeepCopy()
		errs, warnings := validation.Validate(ls, nil, validation.Options{})
		validation.Coded(t, errs)
		validation.CodedWarnings(t, warnings)
		if !reflect.DeepEqual(ls, input) {
			t.Fatal("Validate changed its input")
		}

		defaults.ListenerSet(ls)
		if defaults.Needed(ls) {
			t.Fatal("defaults.Needed is true after defaulting")
		}
		twice := ls.DeepCopy()
		defaults.ListenerSet(twice)
		if !reflect.DeepEqual(ls, twice) { // exact, and cheaper than equality.Semantic
			t.Fatal("a second defaulting pass changed the object")
		}
		if len(errs) == 0 {
			return // nothing to ratchet
		}
		if blocking, _ := validation.Validate(ls, input, validation.Options{}); len(blocking) > 0 {
			t.Fatalf("an unchanged update was blocked: %v", blocking)
		}
		if !distinctNames(ls.Spec.Listeners) || len(ls.Spec.Listeners) > object.MaxListeners {
			return
		}
		reordered := ls.DeepCopy()
		slices.Reverse(reordered.Spec.Listeners)
		if blocking, _ := validation.Validate(reordered, input, validation.Options{}); len(blocking) > 0 {
			t.Fatalf("an update that only reorders listeners was blocked: %v", blocking)
		}
	})
}

func distinctNames(listeners []gwv1.ListenerEntry) bool {
	seen := map[gwv1.SectionName]bool{}
	for _, l := range listeners {
		if seen[l.Name] {
			return false
		}
		seen[l.Name] = true
	}
	return true
}

// sameErrors compares two error lists in order, field by field: formatting
// them (Error) would cost more than all the rest of an execution.
func sameErrors(a, b []*field.Error) bool {
	return slices.EqualFunc(a, b, func(x, y *field.Error) bool { return reflect.DeepEqual(*x, *y) })
}

// The committed seeds of FuzzValidateListenerSet are these examples, encoded
// as validationtest.FuzzListenerSet reads them: each names a rule it reaches.
var fuzzSeedExamples = []string{
	"valid/minimal.yaml", "valid/https.yaml", "valid/http3.yaml", "valid/warnings.yaml",
	"invalid/many-errors.yaml", "invalid/protocol-conflict.yaml", "invalid/bad-tls-option.yaml",
	"invalid/unsupported-route-kind.yaml", "invalid/http3-passthrough.yaml",
}

// TestFuzzSeedsAreExamples: each committed seed still builds its example (or
// its regression test's object), so a change to validationtest.FuzzListenerSet cannot
// quietly turn the seeds into noise. UPDATE_FUZZ_SEEDS=1 rewrites them.
func TestFuzzSeedsAreExamples(t *testing.T) {
	seeds := map[string]*gwv1.ListenerSet{"regression-selector-label-order": selectorOrderRegression()}
	for _, example := range fuzzSeedExamples {
		data, err := os.ReadFile(filepath.Join("..", "examples", example))
		if err != nil {
			t.Fatal(err)
		}
		var ls gwv1.ListenerSet
		if err := yaml.UnmarshalStrict(data, &ls); err != nil {
			t.Fatalf("%s: %v", example, err)
		}
		seeds[strings.ReplaceAll(strings.TrimSuffix(example, ".yaml"), "/", "-")] = &ls
	}
	for name, ls := range seeds {
		want := &gwv1.ListenerSet{ObjectMeta: metav1.ObjectMeta{Namespace: ls.Namespace}, Spec: ls.Spec}
		seed, err := validationtest.EncodeFuzzListenerSet(want)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got := validationtest.FuzzListenerSet(seed); !equality.Semantic.DeepEqual(got, want) {
			t.Fatalf("%s: the encoding builds another object:\ngot  %+v\nwant %+v", name, got.Spec, want.Spec)
		}
		file := filepath.Join("testdata", "fuzz", "FuzzValidateListenerSet", name)
		entry := fmt.Sprintf("go test fuzz v1\n[]byte(%s)\n", strconv.Quote(string(seed)))
		if os.Getenv("UPDATE_FUZZ_SEEDS") != "" {
			if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(file, []byte(entry), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if committed, err := os.ReadFile(file); err != nil || string(committed) != entry {
			t.Errorf("seed %s is missing or stale (UPDATE_FUZZ_SEEDS=1 rewrites it): %v", file, err)
		}
	}
}

// TestSelectorErrorsAreDeterministic is the regression test of
// testdata/fuzz/FuzzValidateListenerSet/regression-selector-label-order:
// apimachinery validates matchLabels in map order, so the same object got its
// errors in another order from call to call (and kubectl printed other lines).
func TestSelectorErrorsAreDeterministic(t *testing.T) {
	ls := selectorOrderRegression()
	first, _ := validation.Validate(ls, nil, validation.Options{})
	if len(first) < 6 {
		t.Fatalf("expected an error per bad label and expression, got %v", first)
	}
	for range 50 {
		if again, _ := validation.Validate(ls, nil, validation.Options{}); !sameErrors(first, again) {
			t.Fatalf("errors in another order:\nfirst: %v\nagain: %v", first, again)
		}
	}
}

func selectorOrderRegression() *gwv1.ListenerSet {
	return &gwv1.ListenerSet{Spec: gwv1.ListenerSetSpec{
		ParentRef: gwv1.ParentGatewayReference{Name: "gw"},
		Listeners: []gwv1.ListenerEntry{{
			Name: "web", Port: 80, Protocol: object.ProtocolHTTP,
			AllowedRoutes: &gwv1.AllowedRoutes{Namespaces: &gwv1.RouteNamespaces{
				From: new(gwv1.NamespacesFromSelector),
				Selector: &metav1.LabelSelector{
					MatchLabels:      map[string]string{"-a": "x", "-b": "-bad", "c": "-bad", strings.Repeat("k", 64): "v"},
					MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "-e", Operator: "Bad"}},
				},
			}},
		}},
	}}
}
