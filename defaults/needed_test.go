package defaults

import (
	"testing"

	"k8s.io/apimachinery/pkg/api/equality"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
	"sigs.k8s.io/randfill"
)

// TestNeeded: Needed is true exactly when ListenerSet changes the object,
// on random objects, half of them defaulted first.
func TestNeeded(t *testing.T) {
	needed := 0
	for seed := range int64(5000) {
		ls := &gwv1.ListenerSet{}
		randfill.NewWithSeed(seed).NilChance(0.2).NumElements(0, 3).MaxDepth(12).Fill(&ls.Spec)
		if seed%2 == 0 {
			ListenerSet(ls)
			if seed%4 == 0 { // then unset one thing at random
				randfill.NewWithSeed(seed).NilChance(0.05).NumElements(0, 3).Fill(&ls.Spec.ParentRef.Group)
			}
		}
		before := ls.DeepCopy()
		got := Needed(ls)
		ListenerSet(ls)
		if changed := !equality.Semantic.DeepEqual(before, ls); got != changed {
			t.Fatalf("seed %d: Needed = %v, but ListenerSet changed it: %v\n%+v", seed, got, changed, before.Spec)
		}
		if got {
			needed++
		}
	}
	if needed < 1000 || needed > 4500 {
		t.Errorf("%d of 5000 random objects need defaults: the test does not exercise both answers", needed)
	}
}
