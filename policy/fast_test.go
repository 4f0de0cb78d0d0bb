package policy_test

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"k8s.io/utils/ptr"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/validation"
)

// TestFastPathTaken: the usual valid objects skip the policy through its
// fast path (a copy of the policy whose validation always fails
// admits them only so), and an invalid one does not. That the fast path
// never admits what validation denies is TestSameVerdictInProcess's and
// test/policy's job.
func TestFastPathTaken(t *testing.T) {
	e := fastOnly(t)
	fast := func(name string, obj map[string]any) bool {
		r := e.Evaluate(obj, nil, 0)
		if r.Error {
			t.Fatalf("%s: %s", name, r.Message)
		}
		return r.Allowed
	}
	for _, ex := range examples(t) {
		name, ls := ex.Path, ex.ListenerSet
		usual := strings.Contains(name, filepath.Join("examples", "valid")) && !strings.HasSuffix(name, "warnings.yaml")
		obj, _, admitted := throughCRD(t, ls)
		if !admitted {
			continue // kube-apiserver never hands it to admission
		}
		if got := fast(name, obj); got != usual {
			t.Errorf("%s: fast path %v, want %v", name, got, usual)
		}
	}
	if !fast("64 listeners", crdDefaulted(t, sixtyFourListeners())) {
		t.Error("64 plain listeners: not on the fast path")
	}
	if errs, _ := validation.Validate(sixtyFourListeners(), nil, validation.Options{}); len(errs) > 0 {
		t.Fatalf("the benchmark's object is invalid: %v", errs)
	}
}

// TestFastPathCost: the fast path is charged against kube-apiserver's
// budget for match conditions (a quarter of the validation's; the
// declarations' policy charges it to its validation's budget, twice, in a
// Namespace with a declaration), and running out of it fails the request
// (failurePolicy Fail): the object it judges in full at the greatest cost
// (64 valid listeners, names and hostnames of 253 characters, every option,
// the lists holding every name in reverse order, so that the one-match
// test of the usual order fails and each item is compared with every
// other) costs at most half of it.
func TestFastPathCost(t *testing.T) {
	e := conditionOnly(t)
	reversed := func(names []string) gwv1.AnnotationValue {
		r := slices.Clone(names)
		slices.Reverse(r)
		return gwv1.AnnotationValue(strings.Join(r, ","))
	}
	ls := sixtyFourListeners()
	for i := range ls.Spec.Listeners {
		l := &ls.Spec.Listeners[i]
		long := fmt.Sprintf("%02d", i) + strings.Repeat("a", 61)
		l.Name = gwv1.SectionName(long + "." + long + "." + long + "." + long[:61])
		l.Hostname = ptr.To(gwv1.Hostname(l.Name))
		// a port of its own and options of its own (one cipher left out):
		// nothing is judged once for all listeners, each listener's options
		// are judged on their own, and the ports by the general rule
		l.Port = gwv1.PortNumber(1000 + i)
		l.TLS.Options = map[gwv1.AnnotationKey]gwv1.AnnotationValue{
			validation.OptionALPNProtocols:       reversed(validation.ALPNProtocols),
			validation.OptionCiphers:             reversed(slices.Delete(slices.Clone(validation.Ciphers), i%len(validation.Ciphers), i%len(validation.Ciphers)+1)),
			validation.OptionECDHCurves:          reversed(validation.ECDHCurves),
			validation.OptionSignatureAlgorithms: reversed(validation.SignatureAlgorithms),
			validation.OptionMinimumVersion:      "TLSv1_2",
			validation.OptionMaximumVersion:      "TLSv1_3",
		}
	}
	if errs, _ := validation.Validate(ls, nil, validation.Options{}); len(errs) > 0 {
		t.Fatalf("the test's object is invalid: %v", errs)
	}
	obj := crdDefaulted(t, ls)
	if r := e.Evaluate(obj, nil, 0); r.Error || !r.Allowed {
		t.Fatalf("not on the fast path: %+v", r)
	}
	cost, ok := e.Cost(obj, nil, celconfig.RuntimeCELCostBudgetMatchConditions)
	if !ok || cost > celconfig.RuntimeCELCostBudgetMatchConditions/2 {
		t.Fatalf("the fast path costs %d (within the budget: %v), want at most half of %d", cost, ok, celconfig.RuntimeCELCostBudgetMatchConditions)
	}
	t.Logf("the fast path's costliest object: cost %d of %d", cost, celconfig.RuntimeCELCostBudgetMatchConditions)
}

// fastBase is a plain valid set of the shape the fast path admits
// in one pass: HTTPS and http3 listeners on a port each, with the first
// listener's options and allowedRoutes repeated, and an HTTP listener.
func fastBase() *gwv1.ListenerSet {
	ls := &gwv1.ListenerSet{Spec: gwv1.ListenerSetSpec{ParentRef: gwv1.ParentGatewayReference{Name: "gw"}}}
	ls.Namespace, ls.Name = "team-a", "base"
	options := map[gwv1.AnnotationKey]gwv1.AnnotationValue{
		validation.OptionMinimumVersion: "TLSv1_2", validation.OptionMaximumVersion: "TLSv1_3",
		validation.OptionCiphers: "ECDHE-RSA-AES128-GCM-SHA256",
	}
	for i, protocol := range []gwv1.ProtocolType{validation.ProtocolHTTPS, validation.ProtocolHTTP3, validation.ProtocolHTTPS, validation.ProtocolHTTP3} {
		ls.Spec.Listeners = append(ls.Spec.Listeners, gwv1.ListenerEntry{
			Name: gwv1.SectionName(fmt.Sprintf("l%d", i)), Port: gwv1.PortNumber(8443 + i%2), Protocol: protocol,
			Hostname: ptr.To(gwv1.Hostname(fmt.Sprintf("h%d.example.com", i))),
			TLS: &gwv1.ListenerTLSConfig{
				CertificateRefs: []gwv1.SecretObjectReference{{Name: gwv1.ObjectName(fmt.Sprintf("cert-%d", i))}},
				Options:         maps.Clone(options),
			},
			AllowedRoutes: &gwv1.AllowedRoutes{Kinds: []gwv1.RouteGroupKind{{Kind: "HTTPRoute"}}},
		})
	}
	ls.Spec.Listeners = append(ls.Spec.Listeners, gwv1.ListenerEntry{Name: "web", Port: 8080, Protocol: validation.ProtocolHTTP})
	return ls
}

// TestFastPathLeavesNothingToTheCRD: each mutation of fastBase is one the
// CRD admits (so kube-apiserver hands it to the policy) and validation
// denies; the whole policy must deny it too, whichever part of the match
// condition it slips past or fails. The fast path leaves to the CRD
// only what the CRD enforces, so every one of these is its own business.
func TestFastPathLeavesNothingToTheCRD(t *testing.T) {
	base := fastBase()
	if obj, _, ok := throughCRD(t, base); !ok {
		t.Fatal("the base: the CRD refuses it")
	} else if r := fastOnly(t).Evaluate(obj, nil, 0); !r.Allowed || r.Error {
		t.Fatalf("the base is not on the fast path: %+v", r)
	}
	l := func(ls *gwv1.ListenerSet, i int) *gwv1.ListenerEntry { return &ls.Spec.Listeners[i] }
	for name, mutate := range map[string]func(ls *gwv1.ListenerSet){
		"http3 listener passes TLS through": func(ls *gwv1.ListenerSet) { l(ls, 1).TLS.Mode = ptr.To(gwv1.TLSModePassthrough) },
		"certificate of another group":      func(ls *gwv1.ListenerSet) { l(ls, 2).TLS.CertificateRefs[0].Group = ptr.To[gwv1.Group]("example.com") },
		"certificate of another kind":       func(ls *gwv1.ListenerSet) { l(ls, 3).TLS.CertificateRefs[0].Kind = ptr.To[gwv1.Kind]("ConfigMap") },
		"certificate name not a subdomain":  func(ls *gwv1.ListenerSet) { l(ls, 2).TLS.CertificateRefs[0].Name = "Cert_2" },
		"two certificates": func(ls *gwv1.ListenerSet) {
			l(ls, 2).TLS.CertificateRefs = append(l(ls, 2).TLS.CertificateRefs, gwv1.SecretObjectReference{Name: "other"})
		},
		"no certificate, options only": func(ls *gwv1.ListenerSet) { l(ls, 2).TLS.CertificateRefs = nil },
		"HTTPS without tls":            func(ls *gwv1.ListenerSet) { l(ls, 2).TLS = nil },
		"http3 without tls":            func(ls *gwv1.ListenerSet) { l(ls, 3).TLS = nil },
		"hostname an address":          func(ls *gwv1.ListenerSet) { l(ls, 4).Hostname = ptr.To[gwv1.Hostname]("192.0.2.1") },
		"other options, one invalid": func(ls *gwv1.ListenerSet) {
			l(ls, 2).TLS.Options[validation.OptionCiphers] = "TLS_AES_128_GCM_SHA256"
		},
		"the first listener's options invalid": func(ls *gwv1.ListenerSet) {
			for i := range 4 {
				l(ls, i).TLS.Options[validation.OptionECDHCurves] = "X448"
			}
		},
		"the first listener's options too old for http3": func(ls *gwv1.ListenerSet) {
			for i := range 4 {
				l(ls, i).TLS.Options[validation.OptionMaximumVersion] = "TLSv1_2"
			}
		},
		"minimum above maximum, everywhere": func(ls *gwv1.ListenerSet) {
			for i := range 4 {
				l(ls, i).TLS.Options[validation.OptionMinimumVersion] = "TLSv1_3"
				l(ls, i).TLS.Options[validation.OptionMaximumVersion] = "TLSv1_2"
			}
		},
		"route kind GRPCRoute": func(ls *gwv1.ListenerSet) {
			l(ls, 3).AllowedRoutes.Kinds[0].Kind = "GRPCRoute"
		},
		"route group empty": func(ls *gwv1.ListenerSet) {
			l(ls, 3).AllowedRoutes.Kinds[0].Group = ptr.To[gwv1.Group]("")
		},
		"the first listener's route kind GRPCRoute": func(ls *gwv1.ListenerSet) {
			for i := range 4 {
				l(ls, i).AllowedRoutes.Kinds[0].Kind = "GRPCRoute"
			}
		},
		"routes from a selector without one": func(ls *gwv1.ListenerSet) {
			l(ls, 2).AllowedRoutes.Namespaces = &gwv1.RouteNamespaces{From: ptr.To(gwv1.NamespacesFromSelector)}
		},
		"HTTP on the first listener's port":  func(ls *gwv1.ListenerSet) { l(ls, 4).Port = 8443 },
		"HTTP on the second listener's port": func(ls *gwv1.ListenerSet) { l(ls, 4).Port = 8444 },
		"HTTPS on the second listener's port": func(ls *gwv1.ListenerSet) {
			l(ls, 2).Port = 8444
		},
		"the second listener on the first one's port": func(ls *gwv1.ListenerSet) { l(ls, 1).Port = 8443 },
		"two protocols on a port neither of the first two uses": func(ls *gwv1.ListenerSet) {
			l(ls, 2).Port = 9443
			l(ls, 3).Port = 9443
		},
		"HTTP on an HTTPS port past the first two": func(ls *gwv1.ListenerSet) {
			l(ls, 2).Port = 9443
			l(ls, 4).Port = 9443
		},
		"a protocol Airlock does not serve": func(ls *gwv1.ListenerSet) { l(ls, 4).Protocol = gwv1.TCPProtocolType },
		"parent of another kind":            func(ls *gwv1.ListenerSet) { ls.Spec.ParentRef.Kind = ptr.To[gwv1.Kind]("Service") },
		"parent of another group":           func(ls *gwv1.ListenerSet) { ls.Spec.ParentRef.Group = ptr.To[gwv1.Group]("example.com") },
		"parent name not a subdomain":       func(ls *gwv1.ListenerSet) { ls.Spec.ParentRef.Name = "GW" },
		// valid, but not in one pass (the http3 listeners do not repeat
		// the first listener's options, which http3 could not use): the
		// policy's rules admit it
		"http3 without options, the first listener's too old for it": func(ls *gwv1.ListenerSet) {
			for i := range 4 {
				l(ls, i).TLS.Options[validation.OptionMaximumVersion] = "TLSv1_2"
			}
			l(ls, 1).TLS.Options = nil
			l(ls, 3).TLS.Options = nil
		},
	} {
		t.Run(name, func(t *testing.T) {
			ls := fastBase()
			mutate(ls)
			obj, typed, ok := throughCRD(t, ls)
			if !ok {
				t.Fatal("the CRD refuses the mutation: kube-apiserver would never hand it to the policy")
			}
			errs, _ := validation.Validate(typed, nil, validation.Options{})
			if valid := strings.HasPrefix(name, "http3 without options"); valid != (len(errs) == 0) {
				t.Fatalf("validation: %v", errs)
			}
			if r := whole(t).Evaluate(obj, nil, 0); r.Allowed != (len(errs) == 0) || r.Error {
				t.Errorf("the policy: %+v; validation: %v", r, errs)
			}
		})
	}
}
