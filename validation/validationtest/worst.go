package validationtest

import (
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/test/load/fixtures"
	"github.com/airlock/listenerset-webhook/validation/internal/object"
)

// The worst objects: ListenerSets the Gateway API CRD admits (its schema and
// CEL rules pass, so kube-apiserver does call the webhook), each built to
// cost the most of one kind. Each takes the number of listeners (1 to
// validation.MaxListeners), so that a test can fit cost against size, and
// every one at validation.MaxListeners is under kube-apiserver's 3 MiB
// request limit. WorstShapes lists them for the tests and benchmarks that
// run them all.

// Shape is one worst object: its name and its builder.
type Shape struct {
	Name string
	// Build makes the object with n listeners.
	Build func(n int) *gwv1.ListenerSet
	// Update, when set, makes the object it is an update of (the stored
	// object): the shapes whose cost is in ratcheting.
	Update func(n int) *gwv1.ListenerSet
}

// WorstShapes are the worst objects, one per shape.
var WorstShapes = []Shape{
	{Name: "most-list-errors", Build: MostListErrors},
	{Name: "most-ref-errors", Build: MostRefErrors},
	{Name: "most-selector-errors", Build: MostSelectorErrors},
	{Name: "longest-selector", Build: LongestSelector},
	{Name: "most-warnings", Build: MostWarnings},
	{Name: "most-ratcheted", Build: MostListErrors, Update: MostListErrors},
	{Name: "largest-valid", Build: LargestValid},
	{Name: "every-list-full", Build: EveryListFull},
}

// EveryListFull is the load tool's costliest object for the policy
// (fixtures.Largest: every list of the CRD at its maximum, long names and
// values; invalid) with n listeners.
func EveryListFull(n int) *gwv1.ListenerSet {
	ls := fixtures.Largest()
	ls.Spec.Listeners = ls.Spec.Listeners[:n]
	return ls
}

func worstBase(name string) *gwv1.ListenerSet {
	return &gwv1.ListenerSet{
		TypeMeta:   metav1.TypeMeta{APIVersion: gwv1.GroupVersion.String(), Kind: "ListenerSet"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "worst"},
		Spec:       gwv1.ListenerSetSpec{ParentRef: gwv1.ParentGatewayReference{Name: "gw"}},
	}
}

// httpsListener is listener i: HTTPS on 443 with its own hostname and one
// Secret, as tenants share a Gateway.
func httpsListener(i int) gwv1.ListenerEntry {
	return gwv1.ListenerEntry{
		Name:     gwv1.SectionName(fmt.Sprintf("l%02d", i)),
		Hostname: ptr.To(gwv1.Hostname(fmt.Sprintf("l%02d.example.com", i))),
		Port:     443, Protocol: gwv1.HTTPSProtocolType,
		TLS: &gwv1.ListenerTLSConfig{
			Mode:            ptr.To(gwv1.TLSModeTerminate),
			CertificateRefs: []gwv1.SecretObjectReference{{Name: gwv1.ObjectName(fmt.Sprintf("l%02d-tls", i))}},
			Options:         map[gwv1.AnnotationKey]gwv1.AnnotationValue{},
		},
	}
}

// UnknownNames is a list value of n distinct three-letter names no Airlock
// list has ("aaa,aab,..."): 1024 of them are 4095 bytes, inside the CRD's
// 4096.
func UnknownNames(n int) gwv1.AnnotationValue {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteByte(byte('a' + i/676%26))
		b.WriteByte(byte('a' + i/26%26))
		b.WriteByte(byte('a' + i%26))
	}
	return gwv1.AnnotationValue(b.String())
}

// MostListErrors is the worst object of list errors: n HTTPS listeners, each with one
// certificateRef and the four list-valued Airlock options set to 1 024
// distinct unknown names: 4 096 unsupported items a listener, 262 144 at
// 64 listeners (1.07 MB of JSON).
func MostListErrors(n int) *gwv1.ListenerSet {
	ls := worstBase("most-list-errors")
	names := UnknownNames(1024)
	for i := range n {
		l := httpsListener(i)
		for _, k := range object.ListOptions {
			l.TLS.Options[k] = names
		}
		ls.Spec.Listeners = append(ls.Spec.Listeners, l)
	}
	return ls
}

// everyName sets every Airlock option to every name it takes, a
// list-valued one, or to its example.
func everyName() map[gwv1.AnnotationKey]gwv1.AnnotationValue {
	opts := object.ExampleOptions()
	for _, o := range object.AirlockOptions {
		if o.List {
			opts[o.Key] = gwv1.AnnotationValue(strings.Join(o.Values, ","))
		}
	}
	return opts
}

// MostRefErrors: n listeners with the CRD's 64 certificateRefs each, every
// one of another group and kind in another namespace, with a name of 253
// characters: a Too many, and two errors and a cross-namespace warning a
// reference.
func MostRefErrors(n int) *gwv1.ListenerSet {
	ls := worstBase("most-ref-errors")
	for i := range n {
		l := httpsListener(i)
		l.TLS.CertificateRefs = nil
		for j := range 64 {
			l.TLS.CertificateRefs = append(l.TLS.CertificateRefs, gwv1.SecretObjectReference{
				Group: ptr.To[gwv1.Group]("example.com"), Kind: ptr.To[gwv1.Kind]("ConfigMap"),
				Name:      gwv1.ObjectName(fmt.Sprintf("%02d", j) + strings.Repeat("s", 251)),
				Namespace: ptr.To(gwv1.Namespace(fmt.Sprintf("certs-%02d", j))),
			})
		}
		ls.Spec.Listeners = append(ls.Spec.Listeners, l)
	}
	return ls
}

// MostSelectorErrors: n listeners whose allowedRoutes selector (its lists
// are the ones the CRD does not bound) has every list at validation's
// bound, each item invalid: validation.MaxSelectorItems labels with an
// invalid key and value, as many expressions with an invalid key and as
// many invalid values (5 632 errors at 64 listeners).
func MostSelectorErrors(n int) *gwv1.ListenerSet {
	ls := worstBase("most-selector-errors")
	for i := range n {
		l := httpsListener(i)
		sel := &metav1.LabelSelector{MatchLabels: map[string]string{}}
		for j := range object.MaxSelectorItems {
			sel.MatchLabels[fmt.Sprintf("-%d", j)] = "-"
			e := metav1.LabelSelectorRequirement{Key: fmt.Sprintf("-%d", j), Operator: metav1.LabelSelectorOpIn}
			for m := range object.MaxSelectorItems {
				e.Values = append(e.Values, fmt.Sprintf("-%d", m))
			}
			sel.MatchExpressions = append(sel.MatchExpressions, e)
		}
		l.AllowedRoutes = selectorRoutes(sel)
		ls.Spec.Listeners = append(ls.Spec.Listeners, l)
	}
	return ls
}

// longSelector is how many matchExpressions LongestSelector gives each
// listener: the CRD sets no limit, and 64 listeners of them fill about
// 2.5 MB, under kube-apiserver's 3 MiB.
const longSelector = 1000

// LongestSelector: n listeners whose selector has longSelector invalid
// expressions, far over validation.MaxSelectorItems: the largest input
// the selector takes, which every engine must refuse by its length alone.
func LongestSelector(n int) *gwv1.ListenerSet {
	ls := worstBase("longest-selector")
	for i := range n {
		l := httpsListener(i)
		sel := &metav1.LabelSelector{}
		for j := range longSelector {
			sel.MatchExpressions = append(sel.MatchExpressions, metav1.LabelSelectorRequirement{
				Key: fmt.Sprintf("-%d", j), Operator: metav1.LabelSelectorOpIn, Values: []string{"-"},
			})
		}
		l.AllowedRoutes = selectorRoutes(sel)
		ls.Spec.Listeners = append(ls.Spec.Listeners, l)
	}
	return ls
}

func selectorRoutes(sel *metav1.LabelSelector) *gwv1.AllowedRoutes {
	return &gwv1.AllowedRoutes{Namespaces: &gwv1.RouteNamespaces{From: ptr.To(gwv1.NamespacesFromSelector), Selector: sel}}
}

// MostWarnings: n valid listeners with every warning a listener can earn: a
// hostname label over 63 characters, a Secret in another namespace, a
// selector that from Same ignores, and 16 options of other domains.
func MostWarnings(n int) *gwv1.ListenerSet {
	ls := worstBase("most-warnings")
	for i := range n {
		l := httpsListener(i)
		l.Hostname = ptr.To(gwv1.Hostname(fmt.Sprintf("l%02d", i) + strings.Repeat("h", 80) + ".example.com"))
		l.TLS.CertificateRefs[0].Namespace = ptr.To[gwv1.Namespace]("certs")
		for j := range object.MaxOptions {
			l.TLS.Options[gwv1.AnnotationKey(fmt.Sprintf("example.com/o%02d", j))] = "x"
		}
		l.AllowedRoutes = &gwv1.AllowedRoutes{Namespaces: &gwv1.RouteNamespaces{
			From: ptr.To(gwv1.NamespacesFromSame), Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"team": "a"}},
		}}
		ls.Spec.Listeners = append(ls.Spec.Listeners, l)
	}
	return ls
}

// LargestValid: n valid listeners as large as the CRD lets them be: 253
// character names and hostnames, HTTP/3 with every Airlock option at every
// name it takes, options of other domains with 4 096-byte values up to
// MaxOptions (ten with six Airlock options), 8
// route kinds and a selector of 8 labels and 8 expressions of 8 values
// (2.8 MB of JSON at 64 listeners).
func LargestValid(n int) *gwv1.ListenerSet {
	ls := worstBase("largest-valid")
	ls.Spec.ParentRef.Name = gwv1.ObjectName(strings.Repeat("g", 253))
	for i := range n {
		name := fmt.Sprintf("%03d", i) + strings.Repeat("l", 250)
		l := gwv1.ListenerEntry{
			Name: gwv1.SectionName(name), Port: gwv1.PortNumber(1000 + i), Protocol: object.ProtocolHTTP3,
			Hostname: ptr.To(gwv1.Hostname(name[:63] + "." + name[64:])),
			TLS: &gwv1.ListenerTLSConfig{
				Mode:            ptr.To(gwv1.TLSModeTerminate),
				CertificateRefs: []gwv1.SecretObjectReference{{Name: gwv1.ObjectName(strings.Repeat("s", 253)), Namespace: ptr.To[gwv1.Namespace]("certs")}},
				Options:         everyName(),
			},
			AllowedRoutes: &gwv1.AllowedRoutes{Namespaces: &gwv1.RouteNamespaces{
				From:     ptr.To(gwv1.NamespacesFromSelector),
				Selector: &metav1.LabelSelector{MatchLabels: map[string]string{}},
			}},
		}
		for j := range object.MaxOptions - len(object.AirlockOptions) {
			l.TLS.Options[gwv1.AnnotationKey(fmt.Sprintf("example.com/o%d", j))] = gwv1.AnnotationValue(strings.Repeat("v", 4096))
		}
		for range 8 {
			l.AllowedRoutes.Kinds = append(l.AllowedRoutes.Kinds, gwv1.RouteGroupKind{Kind: "HTTPRoute"})
		}
		sel := l.AllowedRoutes.Namespaces.Selector
		for j := range 8 {
			sel.MatchLabels[fmt.Sprintf("k%d", j)] = "v"
			e := metav1.LabelSelectorRequirement{Key: fmt.Sprintf("e%d", j), Operator: metav1.LabelSelectorOpIn}
			for m := range 8 {
				e.Values = append(e.Values, fmt.Sprintf("v%d", m))
			}
			sel.MatchExpressions = append(sel.MatchExpressions, e)
		}
		ls.Spec.Listeners = append(ls.Spec.Listeners, l)
	}
	return ls
}
