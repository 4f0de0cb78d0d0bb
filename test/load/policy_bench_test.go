package main

import (
	"encoding/json"
	"testing"

	"github.com/airlock/listenerset-webhook/validation"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilversion "k8s.io/apimachinery/pkg/util/version"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/policy"
	"github.com/airlock/listenerset-webhook/policy/policytest"
	"github.com/airlock/listenerset-webhook/test/load/fixtures"
	"github.com/airlock/listenerset-webhook/validation/validationtest"
)

// BenchmarkPolicyCreate is the generated ValidatingAdmissionPolicies'
// evaluation of a create (both, the rules' and the declarations'), in
// process, with k8s.io/apiserver's validator (policytest) at the CEL
// compatibility version the policies target: the CPU the
// ValidatingAdmissionPolicy plugin spends per write, without kube-apiserver
// around it (the API server figure measures it there, from kube-apiserver's
// admission metrics). The objects are those of the API server figure's
// policy cost, as kube-apiserver hands them to admission (defaulted by the
// CRD), in a Namespace without a hostname declaration; "two-listeners-declared"
// is the 2-listener set in one whose declaration covers its hostname (the
// declarations' policy judges it).
func BenchmarkPolicyCreate(b *testing.B) {
	p, err := policy.Generate(policy.Options{})
	if err != nil {
		b.Fatal(err)
	}
	e, err := policytest.CompilePolicies(p, utilversion.MajorMinor(1, 29))
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name     string
		ls       func() *gwv1.ListenerSet
		declared string
		allowed  bool
	}{
		{"two-listeners", fixtures.TwoListeners, "", true},
		{"two-listeners-declared", fixtures.TwoListeners, "*.example.com", true},
		{"sixty-four-tls", fixtures.SixtyFour, "", true},
		{"largest-valid", func() *gwv1.ListenerSet { return validationtest.LargestValid(validation.MaxListeners) }, "", true},
		{"every-list-full-invalid", fixtures.Largest, "", false},
	} {
		b.Run(c.name, func(b *testing.B) {
			data, err := json.Marshal(fixtures.Defaulted(c.ls()))
			if err != nil {
				b.Fatal(err)
			}
			var obj map[string]any
			if err := json.Unmarshal(data, &obj); err != nil {
				b.Fatal(err)
			}
			ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: fixtures.Namespace}}
			if c.declared != "" {
				ns.Annotations = map[string]string{validation.DefaultAllowedHostnamesAnnotation: c.declared}
			}
			for b.Loop() {
				if r := e.EvaluateIn(ns, obj, nil, 0); r.Error || r.Allowed != c.allowed {
					b.Fatalf("want allowed=%v, got %+v", c.allowed, r)
				}
			}
		})
	}
}
