package policy_test

import (
	"encoding/json"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/policy/policytest"
	"github.com/airlock/listenerset-webhook/validation"
	"github.com/airlock/listenerset-webhook/validation/validationtest"
)

// TestWorstObjectCost: every worst object the CRD admits
// (validationtest.WorstShapes at validation.MaxListeners listeners, the
// Update shapes as updates of their stored object) and the policy's own
// costliest (policytest.WorstListenerSet: nearly every field an error, as a
// create and as an update that changes its last listener, so that every
// listener is compared with its stored pair, and as an update of an object
// whose every value differs, so that every ratchet condition is evaluated
// and every entry still built) is decided within
// kube-apiserver's runtime CEL budget (and each expression within its
// per-call limit, which the evaluator enforces): denied with a message
// when validation.Validate denies it, admitted when it admits it. The cost
// (the fast path's included) is the apiserver
// validator's own accounting (bisection on its budget); the figures are
// logged.
func TestWorstObjectCost(t *testing.T) {
	if testing.Short() {
		t.Skip("minutes of CEL")
	}
	// the whole policy, on the objects defaulted as the CRD hands them over
	e := whole(t)
	type request struct {
		name     string
		new, old *gwv1.ListenerSet
	}
	var requests []request
	for _, s := range validationtest.WorstShapes {
		r := request{name: s.Name, new: s.Build(validation.MaxListeners)}
		if s.Update != nil {
			r.old = s.Update(validation.MaxListeners)
		}
		requests = append(requests, r)
	}
	worst := policytest.WorstListenerSet(policytest.Worst{ValueLen: 4096, RefNameLen: 253, Selector: 8})
	changed := worst.DeepCopy()
	changed.Spec.Listeners[len(changed.Spec.Listeners)-1].Port = 444
	requests = append(requests, request{"policy's worst, create", worst, nil}, request{"policy's worst, update", worst, changed},
		request{"policy's worst, update of every value", worst, everyValueChanged(worst)})

	for _, rq := range requests {
		t.Run(rq.name, func(t *testing.T) {
			obj, typed, _ := throughCRD(t, rq.new)
			var old map[string]any
			var oldTyped *gwv1.ListenerSet
			if rq.old != nil {
				old, oldTyped, _ = throughCRD(t, rq.old)
			}
			if obj == nil || (rq.old != nil && old == nil) {
				t.Fatal("the CRD cannot decode the object")
			}
			errs, _ := validation.Validate(typed, oldTyped, validation.Options{})
			r, cost, elapsed := decided(t, e, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: typed.Namespace}}, obj, old, errs)
			fastCost, _ := conditionOnly(t).Cost(obj, old, celconfig.RuntimeCELCostBudget)
			data, _ := json.Marshal(rq.new)
			verdict := "admitted"
			if !r.Allowed {
				verdict = "denied"
			}
			t.Logf("%s (%d bytes of JSON): %s, cost %d of %d (%.1f%%; the fast path, a match condition, %d), one evaluation %v in process, message %d bytes",
				rq.name, len(data), verdict, cost, celconfig.RuntimeCELCostBudget, 100*float64(cost)/celconfig.RuntimeCELCostBudget,
				fastCost, elapsed.Round(time.Millisecond), len(r.Message))
		})
	}
}

// decided: the policy e decides obj (old on update) in the Namespace ns
// within kube-apiserver's runtime budget, as validation (errs) does,
// denying with a message; its result, its cost (the least budget that
// decides it) and one evaluation's time in process.
func decided(t *testing.T, e *policytest.Evaluator, ns *corev1.Namespace, obj, old map[string]any, errs field.ErrorList) (policytest.Result, int64, time.Duration) {
	t.Helper()
	start := time.Now()
	r := e.EvaluateIn(ns, obj, old, 0)
	elapsed := time.Since(start)
	switch {
	case r.Error:
		t.Fatalf("not decided within kube-apiserver's budget: %s", r.Message)
	case r.Allowed != (len(errs) == 0):
		t.Fatalf("policy allowed=%v, validation %d errors; message %.300q", r.Allowed, len(errs), r.Message)
	case !r.Allowed && r.Message == "":
		t.Fatal("denied without a message")
	}
	cost, ok := e.CostIn(ns, obj, old, celconfig.RuntimeCELCostBudget)
	if !ok {
		t.Fatalf("over kube-apiserver's budget of %d", celconfig.RuntimeCELCostBudget)
	}
	return r, cost, elapsed
}

// everyValueChanged is ls's stored object with every value the ratchet
// compares changed, names (the key) kept: each of ls's errors is judged.
func everyValueChanged(ls *gwv1.ListenerSet) *gwv1.ListenerSet {
	old := ls.DeepCopy()
	other := func(s string) string { return s[:len(s)-1] + "x" }
	old.Spec.ParentRef.Name = gwv1.ObjectName(other(string(old.Spec.ParentRef.Name)))
	*old.Spec.ParentRef.Group, *old.Spec.ParentRef.Kind = "example.org", "Pod"
	for i := range old.Spec.Listeners {
		l := &old.Spec.Listeners[i]
		l.Port, l.Protocol = l.Port+1, validation.ProtocolHTTPS
		*l.Hostname = gwv1.Hostname(other(string(*l.Hostname)))
		for k, v := range l.TLS.Options {
			l.TLS.Options[k] = gwv1.AnnotationValue(other(string(v)))
		}
		l.TLS.CertificateRefs[0].Name = gwv1.ObjectName(other(string(l.TLS.CertificateRefs[0].Name)))
		l.AllowedRoutes.Kinds[0].Kind += "x"
		sel := l.AllowedRoutes.Namespaces.Selector
		for k := range sel.MatchLabels {
			sel.MatchLabels[k] += "x"
		}
		sel.MatchExpressions[0].Key += "x"
	}
	return old
}
