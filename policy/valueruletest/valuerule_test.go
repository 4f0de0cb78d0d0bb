package valueruletest

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/findings"
	"github.com/airlock/listenerset-webhook/offline/crdcheck"
	"github.com/airlock/listenerset-webhook/policy"
	"github.com/airlock/listenerset-webhook/policy/policytest"
	"github.com/airlock/listenerset-webhook/validation"
	"github.com/airlock/listenerset-webhook/validation/validationtest"
)

// added is the rule this test adds: a hostname must not end in a
// suffix no real rule names, so that a real rule of the same shape (a
// .local rule, say) does not meet it here.
var added = validation.ListenerValueRule{
	Rule: validation.Rule{Number: 7, Field: "`spec.listeners[i].hostname`", Summary: "not under `.valueruletest`", Errors: "Invalid",
		Codes:   []findings.Code{validation.CodeHostname},
		Valid:   validation.Example{At: "spec.listeners[1].hostname", Value: "shop.example.com"},
		Invalid: validation.Example{At: "spec.listeners[1].hostname", Value: "shop.valueruletest"}},
	Name: "hostname-not-valueruletest", Path: "hostname", Detail: "must not end in .valueruletest",
	Allows: func(h string) bool { return !strings.HasSuffix(h, ".valueruletest") },
}

func TestMain(m *testing.M) {
	validationtest.AddListenerValueRule(added)
	policy.ValueRuleCEL[added.Name] = `!x.endsWith(".valueruletest")`
	os.Exit(m.Run())
}

// TestValueRule: the added rule denies shop.valueruletest in Go and in the policy
// with one and the same entry, at the hostname, with its code; an update
// that leaves it as stored is admitted by both; the fast path never
// admits it, and still admits the valid example.
func TestValueRule(t *testing.T) {
	invalid, err := validationtest.Apply(added.Invalid)
	if err != nil {
		t.Fatal(err)
	}
	valid, _ := validationtest.Apply(added.Valid)
	errs, _ := validation.Validate(invalid, nil, validation.Options{})
	if len(errs) != 1 || errs[0].Field != "spec.listeners[1].hostname" || errs[0].Detail != added.Detail || findings.CodeOf(errs[0]) != validation.CodeHostname {
		t.Fatalf("validation: %v", errs)
	}
	if !policytest.SameVerdict(t, "create", invalid, nil) {
		t.Error("create: admitted")
	}
	if policytest.SameVerdict(t, "update as stored", invalid, invalid) {
		t.Error("update that leaves it as stored: denied")
	}
	if _, warns := validation.Validate(invalid, invalid, validation.Options{}); len(warns) == 0 {
		t.Error("update as stored: no ratcheting warning")
	}
	if !policytest.SameVerdict(t, "update to it", invalid, valid) {
		t.Error("update to it: admitted")
	}
	crd, err := crdcheck.Default()
	if err != nil {
		t.Fatal(err)
	}
	fast := policytest.GeneratedFastPath(t)
	for _, c := range []struct {
		ls   *gwv1.ListenerSet
		want bool
	}{{invalid, false}, {valid, true}} {
		raw, _ := json.Marshal(c.ls)
		d, err := crd.DecodeCreate(raw)
		if err != nil {
			t.Fatal(err)
		}
		if errs, _ := crd.ValidateCreate(context.Background(), d.Object); len(errs) > 0 {
			t.Fatalf("the CRD refuses %s: %v", *c.ls.Spec.Listeners[1].Hostname, errs)
		}
		if r := fast.Evaluate(d.Object.Object, nil, 0); r.Allowed != c.want || r.Error {
			t.Errorf("%s: fast path %+v, want %v", *c.ls.Spec.Listeners[1].Hostname, r, c.want)
		}
	}
}

// TestValueRuleFuzzed: the fuzz generator builds hostnames of the rule's
// examples, and on random objects (uniformly random inputs: every choice
// of the generator as likely) the policy's rules and validation agree.
func TestValueRuleFuzzed(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	suffixed, denied := 0, 0
	for range 400 {
		data := make([]byte, 16+rng.IntN(200))
		for j := range data {
			data[j] = byte(rng.UintN(256))
		}
		ls := validationtest.FuzzListenerSet(data)
		ls.Name = "fuzz"
		errs, _ := validation.Validate(ls, nil, validation.Options{})
		if slices.ContainsFunc(errs, func(e *field.Error) bool { return e.Detail == added.Detail }) {
			suffixed++
		}
		if policytest.SameVerdict(t, "fuzz", ls, nil) {
			denied++
		}
		if t.Failed() {
			break
		}
	}
	t.Logf("400 random objects: %d denied, %d of them for a hostname under .valueruletest", denied, suffixed)
	if suffixed < 10 {
		t.Errorf("%d of 400 random objects are denied for a hostname under .valueruletest: the generator does not take the rule's examples", suffixed)
	}
}
