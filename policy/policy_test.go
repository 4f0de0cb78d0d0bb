package policy_test

import (
	"testing"

	utilversion "k8s.io/apimachinery/pkg/util/version"

	"github.com/airlock/listenerset-webhook/policy"
	"github.com/airlock/listenerset-webhook/policy/policytest"
)

// TestCompiles: every expression of both policies compiles in the CEL
// environment a 1.30 kube-apiserver gives a new policy (compatibility
// version 1.29), and in this module's apiserver's own.
func TestCompiles(t *testing.T) {
	p, err := policy.Generate(policy.Options{})
	if err != nil {
		t.Fatal(err)
	}
	versions := []string{"1.29", "1.36"}
	if testing.Short() {
		versions = versions[:1] // the oldest; test/policy runs the newest for real
	}
	for _, v := range versions {
		for _, pair := range p.Pairs() {
			for _, err := range policytest.CompileErrors(pair.Policy, utilversion.MustParseGeneric(v)) {
				t.Errorf("%s, CEL %s: %v", pair.Policy.Name, v, err)
			}
		}
	}
}
