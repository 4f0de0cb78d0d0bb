package policy_test

import (
	"fmt"
	"testing"

	"k8s.io/utils/ptr"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/validation"
	"github.com/airlock/listenerset-webhook/validation/validationtest"
)

// sixtyFourListeners is a plain valid set of 64 HTTPS listeners, each with
// a certificate, a hostname and the usual options.
func sixtyFourListeners() *gwv1.ListenerSet {
	ls := &gwv1.ListenerSet{Spec: gwv1.ListenerSetSpec{ParentRef: gwv1.ParentGatewayReference{Name: "gw"}}}
	ls.Namespace, ls.Name = "team-a", "sixty-four"
	for i := range validation.MaxListeners {
		ls.Spec.Listeners = append(ls.Spec.Listeners, gwv1.ListenerEntry{
			Name: gwv1.SectionName(fmt.Sprintf("l%d", i)), Port: 443, Protocol: validation.ProtocolHTTPS,
			Hostname: ptr.To(gwv1.Hostname(fmt.Sprintf("h%d.example.com", i))),
			TLS: &gwv1.ListenerTLSConfig{
				CertificateRefs: []gwv1.SecretObjectReference{{Name: gwv1.ObjectName(fmt.Sprintf("cert-%d", i))}},
				Options: map[gwv1.AnnotationKey]gwv1.AnnotationValue{
					validation.OptionMinimumVersion: "TLSv1_2", validation.OptionALPNProtocols: "h2,http/1.1",
				},
			},
		})
	}
	return ls
}

func one() *gwv1.ListenerSet {
	ls := sixtyFourListeners()
	ls.Spec.Listeners = ls.Spec.Listeners[:1]
	return ls
}

// BenchmarkPolicy: one evaluation of both policies in process
// (k8s.io/apiserver's validator, as kube-apiserver runs them), with their
// CEL cost per op: the fast path's (fast-cost/op, the rules' match
// condition, charged to a budget of its own) and, where the fast path does
// not skip the rules, the validation's and message's (cost/op, 0
// otherwise); "without fast path", the same object judged by the rules
// alone, as every object would be without it.
func BenchmarkPolicy(b *testing.B) {
	e := whole(b)
	for _, bc := range []struct {
		name string
		ls   *gwv1.ListenerSet
	}{
		{"1 listener", one()},
		{"64 listeners", sixtyFourListeners()},
		{"largest valid", validationtest.LargestValid(validation.MaxListeners)},
	} {
		obj := crdDefaulted(b, bc.ls)
		b.Run(bc.name, func(b *testing.B) {
			if r := e.Evaluate(obj, nil, 0); !r.Allowed {
				b.Fatalf("%+v", r)
			}
			fastCost, _ := conditionOnly(b).Cost(obj, nil, 10_000_000)
			var cost int64
			if r := fastOnly(b).Evaluate(obj, nil, 0); !r.Allowed {
				cost, _ = e.Cost(obj, nil, 10_000_000)
			}
			for b.Loop() {
				e.Evaluate(obj, nil, 0)
			}
			b.ReportMetric(float64(fastCost), "fast-cost/op")
			b.ReportMetric(float64(cost), "cost/op")
		})
		// what the fast path saves: the same object judged by the rules
		b.Run(bc.name+"/without fast path", func(b *testing.B) {
			full := evaluator(b)
			if r := full.Evaluate(obj, nil, 0); !r.Allowed {
				b.Fatalf("%+v", r)
			}
			cost, _ := full.Cost(obj, nil, 10_000_000)
			for b.Loop() {
				full.Evaluate(obj, nil, 0)
			}
			b.ReportMetric(float64(cost), "cost/op")
		})
	}
}
