package validation

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/airlock/listenerset-webhook/defaults"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
	"sigs.k8s.io/yaml"
)

// The values a fuzzed ListenerSet picks from. Random bytes almost never spell
// a supported protocol or option name, so most choices come from these lists
// (valid values, near misses and limits); the last choice of every string is
// a string of the input's own bytes, which reaches everything else.
var (
	fuzzNamespaces = []string{"team-a", "", "listenerset-certs", "Team-A"}
	fuzzGroups     = []gwv1.Group{"", "gateway.networking.k8s.io", "core", "example.com"}
	fuzzKinds      = []gwv1.Kind{"Gateway", "Secret", "HTTPRoute", "GRPCRoute", "", "ConfigMap"}
	fuzzNames      = []string{"web", "gw", "web-tls", "a", "", "Web", "-web", "a.b", strings.Repeat("a", 254)}
	fuzzProtocols  = []gwv1.ProtocolType{"HTTP", "HTTPS", ProtocolHTTP3, "TLS", "", "http"}
	fuzzHostnames  = []gwv1.Hostname{
		"example.com", "*.example.com", "10.0.0.1", "", "a:1", "*", "Example.com", "::1", "*.*.example.com",
		gwv1.Hostname(strings.Repeat("a", 254)), gwv1.Hostname("*." + strings.Repeat("a", 252)),
	}
	fuzzPorts   = []gwv1.PortNumber{80, 443, 8080, 0, 65535, 65536, -1}
	fuzzModes   = []gwv1.TLSModeType{gwv1.TLSModeTerminate, gwv1.TLSModePassthrough, ""}
	fuzzOptions = append(append([]gwv1.AnnotationKey{}, SupportedOptions...),
		"example.com/x", "minimumVersion", "microgateway.airlock.com/x", "/", "Example.com/x", "")
	fuzzValues = []gwv1.AnnotationValue{
		"", "h2,http/1.1", "h2,,h2", "TLSv1_0", "TLSv1_2", "TLSv1_3", "X25519,P-256", "TLS_AES_128_GCM_SHA256",
		"AES128-SHA, ed25519", "ECDHE-RSA-AES128-GCM-SHA256,AES128-SHA", "ed25519,rsa_pss_rsae_sha256",
		gwv1.AnnotationValue(strings.Repeat("h2,", 1366)),
	}
	fuzzFroms       = []gwv1.FromNamespaces{"Same", "All", "Selector", "None", ""}
	fuzzLabelKeys   = []string{"team", "example.com/team", "", "-bad", strings.Repeat("k", 64)}
	fuzzLabelValues = []string{"a", "", "-bad", strings.Repeat("v", 64)}
	fuzzOperators   = []metav1.LabelSelectorOperator{"In", "NotIn", "Exists", "DoesNotExist", "Bad"}
)

// fuzzBytes turns the fuzzer's input into the choices that build a
// ListenerSet, one byte per choice (a string of the input's own takes a
// length byte and that many bytes). A mutated byte therefore changes one
// field and leaves the rest of the object alone, which is what lets
// coverage-guided mutation work on the structure; randfill, used before,
// turns the input into a random stream (a changed byte reshuffles everything
// after it) and cost about 200 µs per object against a few here. Past the
// end of the input every choice is the first, so every input builds an
// object.
type fuzzBytes struct{ data []byte }

func (b *fuzzBytes) next() byte {
	if len(b.data) == 0 {
		return 0
	}
	c := b.data[0]
	b.data = b.data[1:]
	return c
}

func (b *fuzzBytes) intn(n int) int { return int(b.next()) % n }

func (b *fuzzBytes) present() bool { return b.next()&1 == 1 }

func fuzzString[T ~string](b *fuzzBytes, from []T) T {
	if i := b.intn(len(from) + 1); i < len(from) {
		return from[i]
	}
	n := min(int(b.next()), len(b.data))
	s := T(b.data[:n])
	b.data = b.data[n:]
	return s
}

func fuzzPtr[T any](b *fuzzBytes, value func() T) *T {
	if !b.present() {
		return nil
	}
	v := value()
	return &v
}

// fuzzListenerSet builds the ListenerSet that data describes. Only what
// validation reads is filled: the namespace and the spec.
func fuzzListenerSet(data []byte) *gwv1.ListenerSet {
	b := &fuzzBytes{data}
	ls := &gwv1.ListenerSet{}
	ls.Namespace = fuzzString(b, fuzzNamespaces)
	ref := &ls.Spec.ParentRef
	ref.Group = fuzzPtr(b, func() gwv1.Group { return fuzzString(b, fuzzGroups) })
	ref.Kind = fuzzPtr(b, func() gwv1.Kind { return fuzzString(b, fuzzKinds) })
	ref.Name = gwv1.ObjectName(fuzzString(b, fuzzNames))
	ref.Namespace = fuzzPtr(b, func() gwv1.Namespace { return gwv1.Namespace(fuzzString(b, fuzzNamespaces)) })
	n := int(b.next())
	if n == 0xff {
		n = MaxListeners + 1 // past the limit, where validation judges only the first 64
	} else {
		n %= 7
	}
	if n > 0 {
		ls.Spec.Listeners = make([]gwv1.ListenerEntry, n)
	}
	for i := range ls.Spec.Listeners {
		l := &ls.Spec.Listeners[i]
		if len(b.data) == 0 || i >= 7 {
			// Past the end of the input, and past the seventh of a set over
			// the limit, distinct valid listeners: as copies of the first
			// choices they would each add errors, error paths cost a
			// hundred times more than valid ones, and 65 listeners built
			// from the input made an execution cost milliseconds (the
			// campaign's rate fell tenfold as such inputs filled the corpus).
			*l = gwv1.ListenerEntry{Name: gwv1.SectionName("l" + strconv.Itoa(i)), Port: gwv1.PortNumber(1024 + i), Protocol: ProtocolHTTP}
			continue
		}
		l.Name = gwv1.SectionName(fuzzString(b, fuzzNames))
		l.Hostname = fuzzPtr(b, func() gwv1.Hostname { return fuzzString(b, fuzzHostnames) })
		l.Port = fuzzPort(b)
		l.Protocol = fuzzString(b, fuzzProtocols)
		l.TLS = fuzzPtr(b, func() gwv1.ListenerTLSConfig { return fuzzTLS(b) })
		l.AllowedRoutes = fuzzPtr(b, func() gwv1.AllowedRoutes { return fuzzAllowedRoutes(b) })
	}
	return ls
}

func fuzzPort(b *fuzzBytes) gwv1.PortNumber {
	if i := b.intn(len(fuzzPorts) + 1); i < len(fuzzPorts) {
		return fuzzPorts[i]
	}
	return gwv1.PortNumber(int32(b.next())<<24 | int32(b.next())<<16 | int32(b.next())<<8 | int32(b.next()))
}

func fuzzTLS(b *fuzzBytes) gwv1.ListenerTLSConfig {
	var tls gwv1.ListenerTLSConfig
	tls.Mode = fuzzPtr(b, func() gwv1.TLSModeType { return fuzzString(b, fuzzModes) })
	if n := b.intn(4); n > 0 {
		tls.CertificateRefs = make([]gwv1.SecretObjectReference, n)
	}
	for i := range tls.CertificateRefs {
		ref := &tls.CertificateRefs[i]
		ref.Group = fuzzPtr(b, func() gwv1.Group { return fuzzString(b, fuzzGroups) })
		ref.Kind = fuzzPtr(b, func() gwv1.Kind { return fuzzString(b, fuzzKinds) })
		ref.Name = gwv1.ObjectName(fuzzString(b, fuzzNames))
		ref.Namespace = fuzzPtr(b, func() gwv1.Namespace { return gwv1.Namespace(fuzzString(b, fuzzNamespaces)) })
	}
	if n := b.intn(MaxOptions + 4); n > 0 { // up to a few past the limit
		tls.Options = make(map[gwv1.AnnotationKey]gwv1.AnnotationValue, n)
		for range n {
			tls.Options[fuzzString(b, fuzzOptions)] = fuzzString(b, fuzzValues)
		}
	}
	return tls
}

func fuzzAllowedRoutes(b *fuzzBytes) gwv1.AllowedRoutes {
	var ar gwv1.AllowedRoutes
	if n := b.intn(4); n > 0 {
		ar.Kinds = make([]gwv1.RouteGroupKind, n)
	}
	for i := range ar.Kinds {
		ar.Kinds[i].Group = fuzzPtr(b, func() gwv1.Group { return fuzzString(b, fuzzGroups) })
		ar.Kinds[i].Kind = fuzzString(b, fuzzKinds)
	}
	ar.Namespaces = fuzzPtr(b, func() gwv1.RouteNamespaces {
		var ns gwv1.RouteNamespaces
		ns.From = fuzzPtr(b, func() gwv1.FromNamespaces { return fuzzString(b, fuzzFroms) })
		ns.Selector = fuzzPtr(b, func() metav1.LabelSelector { return fuzzSelector(b) })
		return ns
	})
	return ar
}

func fuzzSelector(b *fuzzBytes) metav1.LabelSelector {
	var s metav1.LabelSelector
	if n := b.intn(5); n > 0 {
		s.MatchLabels = make(map[string]string, n)
		for range n {
			s.MatchLabels[fuzzString(b, fuzzLabelKeys)] = fuzzString(b, fuzzLabelValues)
		}
	}
	if n := b.intn(3); n > 0 {
		s.MatchExpressions = make([]metav1.LabelSelectorRequirement, n)
	}
	for i := range s.MatchExpressions {
		e := &s.MatchExpressions[i]
		e.Key = fuzzString(b, fuzzLabelKeys)
		e.Operator = fuzzString(b, fuzzOperators)
		for range b.intn(3) {
			e.Values = append(e.Values, fuzzString(b, fuzzLabelValues))
		}
	}
	return s
}

// FuzzValidateListenerSet: validation never panics and leaves its input as
// it was; defaulting leaves nothing to default and a second pass changes
// nothing; an update that changes nothing is never blocked, and neither is
// one that only reorders listeners with distinct names (ratcheting pairs
// them by name, not by position).
func FuzzValidateListenerSet(f *testing.F) {
	f.Add([]byte{}) // every first choice; the committed corpus has the examples
	f.Fuzz(func(t *testing.T, data []byte) {
		ls := fuzzListenerSet(data)
		input := ls.DeepCopy()
		errs, _ := Validate(ls, nil, Options{})
		if !reflect.DeepEqual(ls, input) {
			t.Fatal("Validate changed its input")
		}

		defaults.ListenerSet(ls)
		if defaults.Needed(ls) {
			t.Fatal("defaults.Needed is true after defaulting")
		}
		twice := ls.DeepCopy()
		defaults.ListenerSet(twice)
		if !reflect.DeepEqual(ls, twice) { // exact, and cheaper than equality.Semantic
			t.Fatal("a second defaulting pass changed the object")
		}
		if len(errs) == 0 {
			return // nothing to ratchet
		}
		if blocking, _ := Validate(ls, input, Options{}); len(blocking) > 0 {
			t.Fatalf("an unchanged update was blocked: %v", blocking)
		}
		if !distinctNames(ls.Spec.Listeners) || len(ls.Spec.Listeners) > MaxListeners {
			return
		}
		reordered := ls.DeepCopy()
		slices.Reverse(reordered.Spec.Listeners)
		if blocking, _ := Validate(reordered, input, Options{}); len(blocking) > 0 {
			t.Fatalf("an update that only reorders listeners was blocked: %v", blocking)
		}
	})
}

func distinctNames(listeners []gwv1.ListenerEntry) bool {
	seen := map[gwv1.SectionName]bool{}
	for _, l := range listeners {
		if seen[l.Name] {
			return false
		}
		seen[l.Name] = true
	}
	return true
}

// sameErrors compares two error lists in order, field by field: formatting
// them (Error) would cost more than all the rest of an execution.
func sameErrors(a, b []*field.Error) bool {
	return slices.EqualFunc(a, b, func(x, y *field.Error) bool { return reflect.DeepEqual(*x, *y) })
}

// The committed seeds of FuzzValidateListenerSet are these examples, encoded
// as fuzzListenerSet reads them: each names a rule it reaches.
var fuzzSeedExamples = []string{
	"valid/minimal.yaml", "valid/https.yaml", "valid/http3.yaml", "valid/warnings.yaml",
	"invalid/many-errors.yaml", "invalid/protocol-conflict.yaml", "invalid/bad-tls-option.yaml",
	"invalid/unsupported-route-kind.yaml", "invalid/http3-passthrough.yaml",
}

// TestFuzzSeedsAreExamples: each committed seed still builds its example (or
// its regression test's object), so a change to fuzzListenerSet cannot
// quietly turn the seeds into noise. UPDATE_FUZZ_SEEDS=1 rewrites them.
func TestFuzzSeedsAreExamples(t *testing.T) {
	seeds := map[string]*gwv1.ListenerSet{"regression-selector-label-order": selectorOrderRegression()}
	for _, example := range fuzzSeedExamples {
		data, err := os.ReadFile(filepath.Join("..", "examples", example))
		if err != nil {
			t.Fatal(err)
		}
		var ls gwv1.ListenerSet
		if err := yaml.UnmarshalStrict(data, &ls); err != nil {
			t.Fatalf("%s: %v", example, err)
		}
		seeds[strings.ReplaceAll(strings.TrimSuffix(example, ".yaml"), "/", "-")] = &ls
	}
	for name, ls := range seeds {
		want := &gwv1.ListenerSet{ObjectMeta: metav1.ObjectMeta{Namespace: ls.Namespace}, Spec: ls.Spec}
		seed, err := encodeFuzzListenerSet(want)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got := fuzzListenerSet(seed); !equality.Semantic.DeepEqual(got, want) {
			t.Fatalf("%s: the encoding builds another object:\ngot  %+v\nwant %+v", name, got.Spec, want.Spec)
		}
		file := filepath.Join("testdata", "fuzz", "FuzzValidateListenerSet", name)
		entry := fmt.Sprintf("go test fuzz v1\n[]byte(%s)\n", strconv.Quote(string(seed)))
		if os.Getenv("UPDATE_FUZZ_SEEDS") != "" {
			if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(file, []byte(entry), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if committed, err := os.ReadFile(file); err != nil || string(committed) != entry {
			t.Errorf("seed %s is missing or stale (UPDATE_FUZZ_SEEDS=1 rewrites it): %v", file, err)
		}
	}
}

// fuzzEncoder writes the choices that make fuzzListenerSet build an object:
// its exact mirror.
type fuzzEncoder struct {
	buf []byte
	err error
}

func (e *fuzzEncoder) put(c ...byte) { e.buf = append(e.buf, c...) }

func (e *fuzzEncoder) count(n, limit int) {
	if n >= limit {
		e.err = fmt.Errorf("%d items; the encoding has room for %d", n, limit-1)
	}
	e.put(byte(n))
}

func encodeString[T ~string](e *fuzzEncoder, from []T, s T) {
	if i := slices.Index(from, s); i >= 0 {
		e.put(byte(i))
		return
	}
	if len(s) > 255 {
		e.err = fmt.Errorf("%q: longer than a string of the input can be", s)
	}
	e.put(byte(len(from)), byte(len(s)))
	e.buf = append(e.buf, s...)
}

func encodePtr[T any](e *fuzzEncoder, p *T, value func(T)) {
	if p == nil {
		e.put(0)
		return
	}
	e.put(1)
	value(*p)
}

func encodeFuzzListenerSet(ls *gwv1.ListenerSet) ([]byte, error) {
	e := &fuzzEncoder{}
	encodeString(e, fuzzNamespaces, ls.Namespace)
	ref := ls.Spec.ParentRef
	encodePtr(e, ref.Group, func(g gwv1.Group) { encodeString(e, fuzzGroups, g) })
	encodePtr(e, ref.Kind, func(k gwv1.Kind) { encodeString(e, fuzzKinds, k) })
	encodeString(e, fuzzNames, string(ref.Name))
	encodePtr(e, ref.Namespace, func(ns gwv1.Namespace) { encodeString(e, fuzzNamespaces, string(ns)) })
	e.count(len(ls.Spec.Listeners), 7)
	for _, l := range ls.Spec.Listeners {
		encodeString(e, fuzzNames, string(l.Name))
		encodePtr(e, l.Hostname, func(h gwv1.Hostname) { encodeString(e, fuzzHostnames, h) })
		if i := slices.Index(fuzzPorts, l.Port); i >= 0 {
			e.put(byte(i))
		} else {
			e.put(byte(len(fuzzPorts)), byte(l.Port>>24), byte(l.Port>>16), byte(l.Port>>8), byte(l.Port))
		}
		encodeString(e, fuzzProtocols, l.Protocol)
		encodePtr(e, l.TLS, func(tls gwv1.ListenerTLSConfig) {
			encodePtr(e, tls.Mode, func(m gwv1.TLSModeType) { encodeString(e, fuzzModes, m) })
			e.count(len(tls.CertificateRefs), 4)
			for _, ref := range tls.CertificateRefs {
				encodePtr(e, ref.Group, func(g gwv1.Group) { encodeString(e, fuzzGroups, g) })
				encodePtr(e, ref.Kind, func(k gwv1.Kind) { encodeString(e, fuzzKinds, k) })
				encodeString(e, fuzzNames, string(ref.Name))
				encodePtr(e, ref.Namespace, func(ns gwv1.Namespace) { encodeString(e, fuzzNamespaces, string(ns)) })
			}
			e.count(len(tls.Options), MaxOptions+4)
			for _, k := range sortedKeys(tls.Options, nil) {
				encodeString(e, fuzzOptions, k)
				encodeString(e, fuzzValues, tls.Options[k])
			}
		})
		encodePtr(e, l.AllowedRoutes, func(ar gwv1.AllowedRoutes) {
			e.count(len(ar.Kinds), 4)
			for _, k := range ar.Kinds {
				encodePtr(e, k.Group, func(g gwv1.Group) { encodeString(e, fuzzGroups, g) })
				encodeString(e, fuzzKinds, k.Kind)
			}
			encodePtr(e, ar.Namespaces, func(ns gwv1.RouteNamespaces) {
				encodePtr(e, ns.From, func(f gwv1.FromNamespaces) { encodeString(e, fuzzFroms, f) })
				encodePtr(e, ns.Selector, func(s metav1.LabelSelector) {
					e.count(len(s.MatchLabels), 5)
					for _, k := range slices.Sorted(maps.Keys(s.MatchLabels)) {
						encodeString(e, fuzzLabelKeys, k)
						encodeString(e, fuzzLabelValues, s.MatchLabels[k])
					}
					e.count(len(s.MatchExpressions), 3)
					for _, x := range s.MatchExpressions {
						encodeString(e, fuzzLabelKeys, x.Key)
						encodeString(e, fuzzOperators, x.Operator)
						e.count(len(x.Values), 3)
						for _, v := range x.Values {
							encodeString(e, fuzzLabelValues, v)
						}
					}
				})
			})
		})
	}
	return e.buf, e.err
}

// TestSelectorErrorsAreDeterministic is the regression test of
// testdata/fuzz/FuzzValidateListenerSet/regression-selector-label-order:
// apimachinery validates matchLabels in map order, so the same object got its
// errors in another order from call to call (and kubectl printed other lines).
func TestSelectorErrorsAreDeterministic(t *testing.T) {
	ls := selectorOrderRegression()
	first, _ := Validate(ls, nil, Options{})
	if len(first) < 6 {
		t.Fatalf("expected an error per bad label and expression, got %v", first)
	}
	for range 50 {
		if again, _ := Validate(ls, nil, Options{}); !sameErrors(first, again) {
			t.Fatalf("errors in another order:\nfirst: %v\nagain: %v", first, again)
		}
	}
}

func selectorOrderRegression() *gwv1.ListenerSet {
	return &gwv1.ListenerSet{Spec: gwv1.ListenerSetSpec{
		ParentRef: gwv1.ParentGatewayReference{Name: "gw"},
		Listeners: []gwv1.ListenerEntry{{
			Name: "web", Port: 80, Protocol: ProtocolHTTP,
			AllowedRoutes: &gwv1.AllowedRoutes{Namespaces: &gwv1.RouteNamespaces{
				From: new(gwv1.NamespacesFromSelector),
				Selector: &metav1.LabelSelector{
					MatchLabels:      map[string]string{"-a": "x", "-b": "-bad", "c": "-bad", strings.Repeat("k", 64): "v"},
					MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "-e", Operator: "Bad"}},
				},
			}},
		}},
	}}
}
