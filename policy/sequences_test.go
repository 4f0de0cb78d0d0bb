package policy_test

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/policy/policytest"
	"github.com/airlock/listenerset-webhook/validation"
	"github.com/airlock/listenerset-webhook/validation/validationtest"
)

// TestSequencesDeclarationsSameVerdict: the policy mode on the declaration
// part of validation's TestSequences. Each write of validationtest's
// sequences that Airlock's rules judge (warn mode, the webhook's default)
// is judged by the whole policy too, from what kube-apiserver hands it (the
// object as the CRD stores it, oldObject, the Namespace as stored at that
// step): it must deny exactly when validation gives a declaration error
// (LS314; the sequences provoke no other error in warn mode), at the same
// paths. Not compared: the writes the policy cannot judge, which
// validation judges as creates from the cluster (after the Gateway was
// re-created, or of a set never judged), and writes to another
// implementation's Gateway (the policy without --gateways judges every
// set; its scope is policy/scope_test's). 400 sequences (-short: 20).
func TestSequencesDeclarationsSameVerdict(t *testing.T) {
	e := whole(t)
	n := uint64(400)
	if testing.Short() {
		n = 20
	}
	compared := map[string]int{}
	for seed := range n {
		seed++
		sim, model := validationtest.NewSim(), validationtest.NewModel(validation.ClaimWarn)
		judge := func(newLS, oldLS *gwv1.ListenerSet, c *validation.Objects) validationtest.Verdict {
			r := validation.Judge(newLS, oldLS, validation.Options{Cluster: c, Classes: c,
				Scope: validation.Scope{ControllerNames: []gwv1.GatewayController{validation.AirlockControllerName}}})
			return validationtest.VerdictOf(r.Errors.List(), r.Warnings.List())
		}
		for i, step := range validationtest.GenerateSequence(seed) {
			x := model.Expect(step)
			out := sim.Do(step, judge)
			model.Check(x, out)
			if !out.Write || !x.Judged || strings.HasPrefix(x.Why, "arriving: the ") {
				continue
			}
			why, _, _ := strings.Cut(x.Why, " from ")
			compared[why]++
			var want []string
			for _, f := range out.Verdict.Errors {
				want = append(want, f.Path)
			}
			slices.Sort(want)
			obj := crdDefaulted(t, out.New)
			var old map[string]any
			if out.Old != nil {
				old = crdDefaulted(t, out.Old)
			}
			stored := sim.Namespace(step.Namespace)
			ns := &corev1.Namespace{ObjectMeta: *stored.ObjectMeta.DeepCopy()}
			r := e.EvaluateIn(ns, obj, old, 0)
			var got []string
			if !r.Allowed {
				entries, _ := policytest.Entries(r.Message)
				got = policytest.Paths(entries)
			}
			if r.Error || !slices.Equal(got, want) {
				msg := fmt.Sprintf("seed %d step %d %s (%s): the policy denies at %v (evaluation error %v), validation at %v: %.300q",
					seed, i+1, step, x.Why, got, r.Error, want, r.Message)
				t.Error(msg)
			}
		}
	}
	for _, k := range slices.Sorted(maps.Keys(compared)) {
		t.Logf("%6d writes compared: %s", compared[k], k)
	}
}
