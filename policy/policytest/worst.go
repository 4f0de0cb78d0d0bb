package policytest

import (
	"fmt"
	"strings"

	"github.com/airlock/listenerset-webhook/validation"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/validation/validationtest"
)

// Worst sizes the costliest object for the policy's CEL.
type Worst struct {
	// ValueLen is the length of every option value (the CRD allows 4096).
	ValueLen int
	// RefNameLen is the length of every certificateRef's name (253).
	RefNameLen int
	// Selector is the number of matchLabels, matchExpressions and values
	// per expression (the CRD sets no limit).
	Selector int
}

// WorstListenerSet is the object the policy's CEL costs the most on within
// the CRD's limits (the shapes of validationtest.WorstShapes each maximise
// one kind of error; this one has nearly every kind at once, sized by w, so
// that test/policy can fit it into kube-apiserver's request limit): 64 listeners of 253-character names and hostnames, each
// with 64 certificateRefs, 16 options (every Airlock option: the
// list-valued ones full of names it must judge one by one, the versions out
// of order, any other none of its values; then options of other domains),
// 8 route kinds and a selector; nearly every field an error, so that every
// entry of the message is built.
func WorstListenerSet(w Worst) *gwv1.ListenerSet {
	ls := &gwv1.ListenerSet{
		TypeMeta:   metav1.TypeMeta{APIVersion: "gateway.networking.k8s.io/v1", Kind: "ListenerSet"},
		ObjectMeta: metav1.ObjectMeta{Name: "worst", Namespace: "policy-test"},
		Spec: gwv1.ListenerSetSpec{ParentRef: gwv1.ParentGatewayReference{
			Group: ptr.To[gwv1.Group]("example.com"), Kind: ptr.To[gwv1.Kind]("Service"), Name: gwv1.ObjectName(strings.Repeat("g", 253)),
		}},
	}
	// a list value of distinct unsupported names, as long as allowed
	list := func(prefix string) gwv1.AnnotationValue {
		var b strings.Builder
		for i := 0; b.Len() < w.ValueLen; i++ {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, "%s%d", prefix, i)
		}
		return gwv1.AnnotationValue(b.String()[:w.ValueLen])
	}
	for i := range validation.MaxListeners {
		name := fmt.Sprintf("%03d", i) + strings.Repeat("l", 250)
		host := fmt.Sprintf("%03d", i) + strings.Repeat("h", 250)
		l := gwv1.ListenerEntry{
			Name: gwv1.SectionName(name), Port: 443, Protocol: validation.ProtocolHTTP3,
			Hostname: ptr.To(gwv1.Hostname(host[:63] + "." + host[64:])),
			TLS: &gwv1.ListenerTLSConfig{
				Mode:    ptr.To(gwv1.TLSModeTerminate),
				Options: map[gwv1.AnnotationKey]gwv1.AnnotationValue{},
			},
			AllowedRoutes: &gwv1.AllowedRoutes{Namespaces: &gwv1.RouteNamespaces{
				From:     ptr.To(gwv1.NamespacesFromSelector),
				Selector: &metav1.LabelSelector{MatchLabels: map[string]string{}},
			}},
		}
		for j := range 64 {
			l.TLS.CertificateRefs = append(l.TLS.CertificateRefs, gwv1.SecretObjectReference{
				Group: ptr.To[gwv1.Group](""), Kind: ptr.To[gwv1.Kind]("Secret"),
				Name: gwv1.ObjectName(fmt.Sprintf("%02d", j) + strings.Repeat("s", w.RefNameLen-2)), Namespace: ptr.To[gwv1.Namespace]("certs"),
			})
		}
		for _, o := range validation.AirlockOptions {
			switch {
			case o.List:
				l.TLS.Options[o.Key] = list("n")
			case o.Key == validation.OptionMinimumVersion:
				l.TLS.Options[o.Key] = "TLSv1_3"
			case o.Key == validation.OptionMaximumVersion:
				l.TLS.Options[o.Key] = "TLSv1_2" // below the minimum
			default:
				l.TLS.Options[o.Key] = list("v") // none of its values
			}
		}
		for j := range validation.MaxOptions - len(validation.AirlockOptions) {
			l.TLS.Options[gwv1.AnnotationKey(fmt.Sprintf("example.com/o%d", j))] = gwv1.AnnotationValue(strings.Repeat("v", w.ValueLen))
		}
		for j := range 8 {
			l.AllowedRoutes.Kinds = append(l.AllowedRoutes.Kinds, gwv1.RouteGroupKind{Group: ptr.To[gwv1.Group]("example.com"), Kind: gwv1.Kind(fmt.Sprintf("Route%d", j))})
		}
		sel := l.AllowedRoutes.Namespaces.Selector
		for j := range w.Selector {
			sel.MatchLabels[fmt.Sprintf("-k%d", j)] = "-v"
			e := metav1.LabelSelectorRequirement{Key: fmt.Sprintf("-e%d", j), Operator: "In"}
			for m := range w.Selector {
				e.Values = append(e.Values, fmt.Sprintf("-%d", m))
			}
			sel.MatchExpressions = append(sel.MatchExpressions, e)
		}
		ls.Spec.Listeners = append(ls.Spec.Listeners, l)
	}
	return ls
}

// WorstDeclarations are the declarations of the hostnames a Namespace's
// ListenerSets may claim (validation.DefaultAllowedHostnamesAnnotation)
// that the policy's CEL costs the most on (validationtest.DeclaredShapes
// are the webhook's), by name: the valid ones of
// validation.MaxAllowedHostnames entries of a hostname's whole length,
// wildcards (each compared with every listener's hostname by a suffix
// test) or names of digits and dots (each also matched against the IPv4
// pattern); malformed, as many IPv6 addresses with a zone of that length
// (each matched against the address pattern); over the limit, as many
// entries as an annotation holds; and one entry of almost all of it.
func WorstDeclarations() map[string]string {
	const maxLen = 253
	pad := func(s string, c byte) string { return s + strings.Repeat(string(c), maxLen-len(s)) }
	digits := func(i int) string {
		s := fmt.Sprintf("%d", i)
		for len(s)+2 <= maxLen {
			s += ".9"
		}
		return s
	}
	room := validationtest.MaxAnnotationBytes - len(validation.DefaultAllowedHostnamesAnnotation)
	return map[string]string{
		"wildcards":  validationtest.DeclarationOf(validation.MaxAllowedHostnames, func(i int) string { return pad(fmt.Sprintf("*.w%d.", i), 'w') }),
		"digits":     validationtest.DeclarationOf(validation.MaxAllowedHostnames, digits),
		"zones":      validationtest.DeclarationOf(validation.MaxAllowedHostnames, func(i int) string { return pad(fmt.Sprintf("fe80::%x%%", i), 'z') }),
		"over limit": strings.Repeat("a,", room/2-1) + "a",
		"one entry":  "fe80::1%" + strings.Repeat("z", room-len("fe80::1%")),
	}
}
