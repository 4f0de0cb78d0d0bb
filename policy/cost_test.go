package policy_test

import (
	"encoding/json"
	"testing"
	"time"

	celconfig "k8s.io/apiserver/pkg/apis/cel"

	"github.com/airlock/listenerset-webhook/policy/policytest"
)

// TestWorstObjectCost: the costliest object within the CRD's limits (64
// listeners, 16 options of 4096 bytes, every list at its maximum; the
// selector, which the CRD does not limit, with 8 labels and 8 expressions of
// 8 values) is decided within kube-apiserver's runtime CEL budget, as a
// create and as an update that changes its last listener (every listener
// compared with its stored pair), and denied with a message; so is the
// largest valid object, admitted. The cost is the apiserver validator's own
// accounting (bisection on its budget); the figures are logged.
func TestWorstObjectCost(t *testing.T) {
	if testing.Short() {
		t.Skip("about 30 s of CEL")
	}
	// the whole policy, on the objects defaulted as the CRD hands them over
	e := whole(t)
	// The largest valid object: every list full, every option at 4096
	// bytes (the list-valued ones hold only their names, so foreign keys).
	valid := policytest.WorstValidListenerSet()
	if r := e.Evaluate(crdDefaulted(t, valid), nil, 0); r.Error || !r.Allowed {
		t.Fatalf("the largest valid object: want it admitted within the budget, got %+v", r)
	}
	cost, ok := e.Cost(crdDefaulted(t, valid), crdDefaulted(t, valid), celconfig.RuntimeCELCostBudget)
	if !ok {
		t.Fatal("the largest valid object: an unchanged update is over the budget")
	}
	data, _ := json.Marshal(valid)
	t.Logf("largest valid object (%d bytes of JSON), unchanged update: cost %d of %d (%.1f%%)", len(data), cost, celconfig.RuntimeCELCostBudget, 100*float64(cost)/celconfig.RuntimeCELCostBudget)

	// The costliest object: an error in nearly every field, so that the
	// checks find every one and the message details the first listeners.
	ls := policytest.WorstListenerSet(policytest.Worst{ValueLen: 4096, RefNameLen: 253, Selector: 8})
	obj := crdDefaulted(t, ls)
	changed := ls.DeepCopy()
	changed.Spec.Listeners[63].Port = 444
	old := crdDefaulted(t, changed)
	data, _ = json.Marshal(ls)
	for _, tc := range []struct {
		name     string
		new, old map[string]any
	}{{"create", obj, nil}, {"update", obj, old}} {
		start := time.Now()
		r := e.Evaluate(tc.new, tc.old, 0)
		elapsed := time.Since(start)
		if r.Error || r.Allowed {
			t.Fatalf("%s: want a denial within the budget, got %+v", tc.name, r)
		}
		cost, ok := e.Cost(tc.new, tc.old, celconfig.RuntimeCELCostBudget)
		if !ok {
			t.Fatalf("%s: over kube-apiserver's budget of %d", tc.name, celconfig.RuntimeCELCostBudget)
		}
		t.Logf("%s of the worst object (%d bytes of JSON): cost %d of %d (%.1f%%), one evaluation %v in process, message %d bytes",
			tc.name, len(data), cost, celconfig.RuntimeCELCostBudget, 100*float64(cost)/celconfig.RuntimeCELCostBudget, elapsed, len(r.Message))
	}
}
