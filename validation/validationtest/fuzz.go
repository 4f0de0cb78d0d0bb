package validationtest

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
	"sigs.k8s.io/yaml"

	"github.com/airlock/listenerset-webhook/validation/internal/object"
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
	fuzzProtocols  = []gwv1.ProtocolType{"HTTP", "HTTPS", object.ProtocolHTTP3, "TLS", "", "http"}
	fuzzHostnames  = []gwv1.Hostname{
		"example.com", "*.example.com", "10.0.0.1", "", "a:1", "*", "Example.com", "::1", "*.*.example.com",
		gwv1.Hostname(strings.Repeat("a", 254)), gwv1.Hostname("*." + strings.Repeat("a", 252)),
	}
	fuzzPorts   = []gwv1.PortNumber{80, 443, 8080, 0, 65535, 65536, -1}
	fuzzModes   = []gwv1.TLSModeType{gwv1.TLSModeTerminate, gwv1.TLSModePassthrough, ""}
	fuzzOptions = append(append([]gwv1.AnnotationKey{}, object.SupportedOptions...),
		"example.com/x", "minimumVersion", "microgateway.airlock.com/x", "/", "Example.com/x", "")
	fuzzValues = withOptionValues([]gwv1.AnnotationValue{
		"", "h2,http/1.1", "h2,,h2", "TLSv1_0", "TLSv1_2", "TLSv1_3", "X25519,P-256", "TLS_AES_128_GCM_SHA256",
		"AES128-SHA, ed25519", "ECDHE-RSA-AES128-GCM-SHA256,AES128-SHA", "ed25519,rsa_pss_rsae_sha256",
		gwv1.AnnotationValue(strings.Repeat("h2,", 1366)),
	})
	fuzzFroms       = []gwv1.FromNamespaces{"Same", "All", "Selector", "None", ""}
	fuzzLabelKeys   = []string{"team", "example.com/team", "", "-bad", strings.Repeat("k", 64)}
	fuzzLabelValues = []string{"a", "", "-bad", strings.Repeat("v", 64)}
	fuzzOperators   = []metav1.LabelSelectorOperator{"In", "NotIn", "Exists", "DoesNotExist", "Bad"}
)

// The pools of the listener's strings with the ListenerValueRules'
// examples, built on first use (after a test's TestMain may have added a
// rule), not per listener: parsing the examples each time would cost the
// fuzzer more than the object it builds.
var (
	listenerNames     = sync.OnceValue(func() []string { return withRuleExamples(fuzzNames, "name") })
	listenerHostnames = sync.OnceValue(func() []gwv1.Hostname { return withRuleExamples(fuzzHostnames, "hostname") })
	listenerProtocols = sync.OnceValue(func() []gwv1.ProtocolType { return withRuleExamples(fuzzProtocols, "protocol") })
)

// withRuleExamples is pool and, after it, the values of the examples of
// each ListenerValueRule on the listener's field path, so that the
// differential tests build values each rule allows and denies.
func withRuleExamples[T ~string](pool []T, path string) []T {
	for _, r := range object.ListenerValueRules {
		if r.Path != path {
			continue
		}
		for _, e := range []object.Example{r.Valid, r.Invalid} {
			var v string
			if err := yaml.Unmarshal([]byte(e.Value), &v); err == nil && !slices.Contains(pool, T(v)) {
				pool = append(pool[:len(pool):len(pool)], T(v))
			}
		}
	}
	return pool
}

// withOptionValues is values and, for each Airlock option of one value
// (validation.AirlockOptions) none of whose values it holds, that option's
// example: so that every option can be set right.
func withOptionValues(values []gwv1.AnnotationValue) []gwv1.AnnotationValue {
	for _, o := range object.AirlockOptions {
		if !o.List && !slices.ContainsFunc(o.Values, func(v string) bool { return slices.Contains(values, gwv1.AnnotationValue(v)) }) {
			values = append(values, gwv1.AnnotationValue(o.ExampleValue()))
		}
	}
	return values
}

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

// FuzzListenerSet builds the ListenerSet that data describes (the fuzz
// target FuzzValidateListenerSet's generator, also the random objects of the
// policy's differential test). Only what
// validation reads is filled: the namespace and the spec.
func FuzzListenerSet(data []byte) *gwv1.ListenerSet {
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
		n = object.MaxListeners + 1 // past the limit, where validation judges only the first 64
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
			*l = gwv1.ListenerEntry{Name: gwv1.SectionName("l" + strconv.Itoa(i)), Port: gwv1.PortNumber(1024 + i), Protocol: object.ProtocolHTTP}
			continue
		}
		l.Name = gwv1.SectionName(fuzzString(b, listenerNames()))
		l.Hostname = fuzzPtr(b, func() gwv1.Hostname { return fuzzString(b, listenerHostnames()) })
		l.Port = fuzzPort(b)
		l.Protocol = fuzzString(b, listenerProtocols())
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
	if n := b.intn(object.MaxOptions + 4); n > 0 { // up to a few past the limit
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

// fuzzEncoder writes the choices that make FuzzListenerSet build an object:
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

// EncodeFuzzListenerSet returns the input FuzzListenerSet builds ls from (an
// error when ls has what the encoding cannot say, e.g. too many items).
func EncodeFuzzListenerSet(ls *gwv1.ListenerSet) ([]byte, error) {
	e := &fuzzEncoder{}
	encodeString(e, fuzzNamespaces, ls.Namespace)
	ref := ls.Spec.ParentRef
	encodePtr(e, ref.Group, func(g gwv1.Group) { encodeString(e, fuzzGroups, g) })
	encodePtr(e, ref.Kind, func(k gwv1.Kind) { encodeString(e, fuzzKinds, k) })
	encodeString(e, fuzzNames, string(ref.Name))
	encodePtr(e, ref.Namespace, func(ns gwv1.Namespace) { encodeString(e, fuzzNamespaces, string(ns)) })
	e.count(len(ls.Spec.Listeners), 7)
	for _, l := range ls.Spec.Listeners {
		encodeString(e, listenerNames(), string(l.Name))
		encodePtr(e, l.Hostname, func(h gwv1.Hostname) { encodeString(e, listenerHostnames(), h) })
		if i := slices.Index(fuzzPorts, l.Port); i >= 0 {
			e.put(byte(i))
		} else {
			e.put(byte(len(fuzzPorts)), byte(l.Port>>24), byte(l.Port>>16), byte(l.Port>>8), byte(l.Port))
		}
		encodeString(e, listenerProtocols(), l.Protocol)
		encodePtr(e, l.TLS, func(tls gwv1.ListenerTLSConfig) {
			encodePtr(e, tls.Mode, func(m gwv1.TLSModeType) { encodeString(e, fuzzModes, m) })
			e.count(len(tls.CertificateRefs), 4)
			for _, ref := range tls.CertificateRefs {
				encodePtr(e, ref.Group, func(g gwv1.Group) { encodeString(e, fuzzGroups, g) })
				encodePtr(e, ref.Kind, func(k gwv1.Kind) { encodeString(e, fuzzKinds, k) })
				encodeString(e, fuzzNames, string(ref.Name))
				encodePtr(e, ref.Namespace, func(ns gwv1.Namespace) { encodeString(e, fuzzNamespaces, string(ns)) })
			}
			e.count(len(tls.Options), object.MaxOptions+4)
			for _, k := range slices.Sorted(maps.Keys(tls.Options)) {
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

// BiasedFuzzBytes is a FuzzListenerSet input of mostly its first (valid)
// choices: most of the objects it describes pass the CRD's schema and
// rules, so that what kube-apiserver hands to admission gets tested, where
// uniformly random bytes almost never describe such an object.
func BiasedFuzzBytes(rng *rand.Rand) []byte {
	data := make([]byte, 16+rng.IntN(200))
	for j := range data {
		if rng.IntN(100) < 6 {
			data[j] = byte(rng.UintN(256))
		} else {
			data[j] = byte(rng.IntN(2))
		}
	}
	return data
}
