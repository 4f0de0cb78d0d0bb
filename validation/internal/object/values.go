package object

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/defaults"
	"github.com/airlock/listenerset-webhook/validation/internal/verdict"
)

// Defaulted returns ls defaulted, as a copy when defaulting changes anything.
// Objects from kube-apiserver come defaulted by the CRD, so usually nothing
// is copied.
func Defaulted(ls *gwv1.ListenerSet) *gwv1.ListenerSet {
	if ls == nil || !defaults.Needed(ls) {
		return ls
	}
	ls = ls.DeepCopy()
	defaults.ListenerSet(ls)
	return ls
}

// The values the rules' errors involve, read from a listener.
var (
	portValue            verdict.Value = func(l *gwv1.ListenerEntry) any { return l.Port }
	protocolValue        verdict.Value = func(l *gwv1.ListenerEntry) any { return l.Protocol }
	HostnameValue        verdict.Value = func(l *gwv1.ListenerEntry) any { return l.Hostname }
	tlsValue             verdict.Value = func(l *gwv1.ListenerEntry) any { return l.TLS }
	modeValue                          = inTLS(func(t *gwv1.ListenerTLSConfig) any { return t.Mode })
	CertificateRefsValue               = inTLS(func(t *gwv1.ListenerTLSConfig) any { return t.CertificateRefs })
	optionsValue                       = inTLS(func(t *gwv1.ListenerTLSConfig) any { return t.Options })
	kindsValue                         = inRoutes(func(ar *gwv1.AllowedRoutes) any { return ar.Kinds })
	fromValue                          = inNamespaces(func(ns *gwv1.RouteNamespaces) any { return ns.From })
	selectorValue                      = inNamespaces(func(ns *gwv1.RouteNamespaces) any { return ns.Selector })
	matchLabelsValue                   = inSelector(func(s *metav1.LabelSelector) any { return s.MatchLabels })
	// matchExpressions is an atomic list (the CRD's x-kubernetes-list-type),
	// as are certificateRefs and kinds: Kubernetes does not correlate their
	// items, so an error in one ratchets only when the whole list is as
	// stored.
	matchExpressionsValue = inSelector(func(s *metav1.LabelSelector) any { return s.MatchExpressions })
)

// optionValue is the value of tls.options[key], nil when absent: map
// entries are correlated by key.
func optionValue(key gwv1.AnnotationKey) verdict.Value {
	return inTLS(func(t *gwv1.ListenerTLSConfig) any { return mapEntry(t.Options, key) })
}

// matchLabelValue is the value of a route selector's matchLabels[key].
func matchLabelValue(key string) verdict.Value {
	return inSelector(func(s *metav1.LabelSelector) any { return mapEntry(s.MatchLabels, key) })
}

// mapEntry is m[key], nil when absent.
func mapEntry[K comparable, V any](m map[K]V, key K) any {
	if v, ok := m[key]; ok {
		return v
	}
	return nil
}

// inTLS, inRoutes, inNamespaces and inSelector read a value within a part
// of the listener, nil when the part is absent.
func inTLS(part func(*gwv1.ListenerTLSConfig) any) verdict.Value {
	return func(l *gwv1.ListenerEntry) any {
		if l.TLS == nil {
			return nil
		}
		return part(l.TLS)
	}
}

func inRoutes(part func(*gwv1.AllowedRoutes) any) verdict.Value {
	return func(l *gwv1.ListenerEntry) any {
		if l.AllowedRoutes == nil {
			return nil
		}
		return part(l.AllowedRoutes)
	}
}

func inNamespaces(part func(*gwv1.RouteNamespaces) any) verdict.Value {
	return inRoutes(func(ar *gwv1.AllowedRoutes) any {
		if ar.Namespaces == nil {
			return nil
		}
		return part(ar.Namespaces)
	})
}

func inSelector(part func(*metav1.LabelSelector) any) verdict.Value {
	return inNamespaces(func(ns *gwv1.RouteNamespaces) any {
		if ns.Selector == nil {
			return nil
		}
		return part(ns.Selector)
	})
}
