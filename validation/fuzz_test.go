package validation

import (
	"testing"

	"github.com/airlock/listenerset-webhook/defaults"
	"k8s.io/apimachinery/pkg/api/equality"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
	"sigs.k8s.io/randfill"
)

// interesting values: random strings almost never hit a supported protocol
// or option name, so the filler picks from these most of the time.
var (
	fuzzProtocols = []gwv1.ProtocolType{"HTTP", "HTTPS", ProtocolHTTP3, "TLS", ""}
	fuzzHostnames = []gwv1.Hostname{"example.com", "*.example.com", "10.0.0.1", "", "a:1", "*", "Example.com"}
	fuzzOptions   = append(append([]gwv1.AnnotationKey{}, SupportedOptions...), "example.com/x", "minimumVersion", "microgateway.airlock.com/x", "/")
	fuzzValues    = []gwv1.AnnotationValue{"", "h2,http/1.1", "h2,,h2", "TLSv1_0", "TLSv1_3", "X25519,P-256", "TLS_AES_128_GCM_SHA256", "AES128-SHA, ed25519"}
	fuzzPorts     = []gwv1.PortNumber{0, 80, 443, 443, 65535, 65536, -1}
)

func pick[T any](c randfill.Continue, from []T) T { return from[c.Intn(len(from))] }

// fuzzListenerSet fills a ListenerSet from the fuzzer's bytes, biased towards
// values that reach deep into the rules.
func fuzzListenerSet(data []byte) *gwv1.ListenerSet {
	ls := &gwv1.ListenerSet{}
	randfill.NewFromGoFuzz(data).NilChance(0.3).NumElements(0, 5).Funcs(
		func(p *gwv1.ProtocolType, c randfill.Continue) {
			if *p = pick(c, fuzzProtocols); c.Intn(8) == 0 {
				*p = gwv1.ProtocolType(c.String(0))
			}
		},
		func(h *gwv1.Hostname, c randfill.Continue) { *h = pick(c, fuzzHostnames) },
		func(n *gwv1.PortNumber, c randfill.Continue) { *n = pick(c, fuzzPorts) },
		func(o *map[gwv1.AnnotationKey]gwv1.AnnotationValue, c randfill.Continue) {
			*o = map[gwv1.AnnotationKey]gwv1.AnnotationValue{}
			for range c.Intn(20) {
				(*o)[pick(c, fuzzOptions)] = pick(c, fuzzValues)
			}
		},
	).Fill(ls)
	return ls
}

// FuzzValidateListenerSet: validation never panics, and defaulting neither
// adds nor hides a problem (validation judges an unset field as its
// default), and a second defaulting pass changes nothing.
func FuzzValidateListenerSet(f *testing.F) {
	for _, seed := range []string{"", "listenerset", "\x00\x01\x02\x03\x04\x05\x06\x07", "airlock microgateway http3 tls options"} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ls := fuzzListenerSet(data)
		errs, warnings := ValidateListenerSet(ls)

		defaulted := ls.DeepCopy()
		defaults.ListenerSet(defaulted)
		errsAfter, warningsAfter := ValidateListenerSet(defaulted)
		if errs.ToAggregate().Error() != errsAfter.ToAggregate().Error() {
			t.Fatalf("defaulting changed the errors:\nbefore: %v\nafter:  %v", errs, errsAfter)
		}
		if !equality.Semantic.DeepEqual(warnings, warningsAfter) {
			t.Fatalf("defaulting changed the warnings:\nbefore: %v\nafter:  %v", warnings, warningsAfter)
		}
		twice := defaulted.DeepCopy()
		defaults.ListenerSet(twice)
		if !equality.Semantic.DeepEqual(defaulted, twice) {
			t.Fatal("a second defaulting pass changed the object")
		}
		// An update that changes nothing is never blocked: every error is ratcheted.
		if errs, _ := ValidateListenerSetUpdate(defaulted, defaulted.DeepCopy()); len(errs) > 0 {
			t.Fatalf("an unchanged update was blocked: %v", errs)
		}
	})
}
