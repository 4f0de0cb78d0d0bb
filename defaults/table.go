package defaults

import (
	"k8s.io/utils/ptr"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// Default is one field the CRD schema defaults, defined once: where it is,
// whether it is unset in an object, and setting it. ListenerSet applies
// every Default, Needed asks each whether it is unset, and Expression is the
// same question in CEL, written from the paths.
type Default struct {
	// Path is the field as the schema (and CEL) spells it, from the
	// object's root: "spec.parentRef.group". A list is name[v], v the
	// name its items take in CEL's exists; an object whose absence is
	// left as it is (only its fields are defaulted when it is there) is
	// name?. Any other object on the way is created when absent: its
	// absence needs defaults too.
	Path string
	// unset tells whether the field is unset in ls, anywhere the path
	// reaches (any listener, any certificateRef).
	unset func(ls *gwv1.ListenerSet) bool
	// set sets it wherever it is unset, creating the objects on the way.
	set func(ls *gwv1.ListenerSet)
}

// Defaults are the ListenerSet fields the CRD schema defaults, in the order
// the schema lists them.
var Defaults = []Default{
	{Path: "spec.parentRef.group",
		unset: func(ls *gwv1.ListenerSet) bool { return ls.Spec.ParentRef.Group == nil },
		set: func(ls *gwv1.ListenerSet) {
			if ls.Spec.ParentRef.Group == nil {
				ls.Spec.ParentRef.Group = ptr.To(GatewayGroup)
			}
		}},
	{Path: "spec.parentRef.kind",
		unset: func(ls *gwv1.ListenerSet) bool { return ls.Spec.ParentRef.Kind == nil },
		set: func(ls *gwv1.ListenerSet) {
			if ls.Spec.ParentRef.Kind == nil {
				ls.Spec.ParentRef.Kind = ptr.To(GatewayKind)
			}
		}},
	{Path: "spec.listeners[l].tls?.mode",
		unset: anyListener(func(l *gwv1.ListenerEntry) bool { return l.TLS != nil && l.TLS.Mode == nil }),
		set: eachListener(func(l *gwv1.ListenerEntry) {
			if l.TLS != nil && l.TLS.Mode == nil {
				l.TLS.Mode = ptr.To(gwv1.TLSModeTerminate)
			}
		})},
	{Path: "spec.listeners[l].tls?.certificateRefs[r].group",
		unset: anyCertificateRef(func(r *gwv1.SecretObjectReference) bool { return r.Group == nil }),
		set: eachCertificateRef(func(r *gwv1.SecretObjectReference) {
			if r.Group == nil {
				r.Group = ptr.To(SecretGroup)
			}
		})},
	{Path: "spec.listeners[l].tls?.certificateRefs[r].kind",
		unset: anyCertificateRef(func(r *gwv1.SecretObjectReference) bool { return r.Kind == nil }),
		set: eachCertificateRef(func(r *gwv1.SecretObjectReference) {
			if r.Kind == nil {
				r.Kind = ptr.To(SecretKind)
			}
		})},
	{Path: "spec.listeners[l].allowedRoutes.namespaces.from",
		unset: anyListener(func(l *gwv1.ListenerEntry) bool {
			ar := l.AllowedRoutes
			return ar == nil || ar.Namespaces == nil || ar.Namespaces.From == nil
		}),
		set: eachListener(func(l *gwv1.ListenerEntry) {
			if l.AllowedRoutes == nil {
				l.AllowedRoutes = &gwv1.AllowedRoutes{}
			}
			if l.AllowedRoutes.Namespaces == nil {
				l.AllowedRoutes.Namespaces = &gwv1.RouteNamespaces{}
			}
			if l.AllowedRoutes.Namespaces.From == nil {
				l.AllowedRoutes.Namespaces.From = ptr.To(gwv1.NamespacesFromSame)
			}
		})},
	{Path: "spec.listeners[l].allowedRoutes.kinds[k].group",
		unset: anyListener(func(l *gwv1.ListenerEntry) bool {
			if l.AllowedRoutes == nil {
				return false // the rule above creates it, without kinds
			}
			for i := range l.AllowedRoutes.Kinds {
				if l.AllowedRoutes.Kinds[i].Group == nil {
					return true
				}
			}
			return false
		}),
		set: eachListener(func(l *gwv1.ListenerEntry) {
			if l.AllowedRoutes == nil {
				return
			}
			for i := range l.AllowedRoutes.Kinds {
				if l.AllowedRoutes.Kinds[i].Group == nil {
					l.AllowedRoutes.Kinds[i].Group = ptr.To(GatewayGroup)
				}
			}
		})},
}

// anyListener and eachListener read and change every listener; the
// certificateRef ones every certificateRef of a listener with tls.
func anyListener(f func(*gwv1.ListenerEntry) bool) func(*gwv1.ListenerSet) bool {
	return func(ls *gwv1.ListenerSet) bool {
		for i := range ls.Spec.Listeners {
			if f(&ls.Spec.Listeners[i]) {
				return true
			}
		}
		return false
	}
}

func eachListener(f func(*gwv1.ListenerEntry)) func(*gwv1.ListenerSet) {
	return func(ls *gwv1.ListenerSet) {
		for i := range ls.Spec.Listeners {
			f(&ls.Spec.Listeners[i])
		}
	}
}

func anyCertificateRef(f func(*gwv1.SecretObjectReference) bool) func(*gwv1.ListenerSet) bool {
	return anyListener(func(l *gwv1.ListenerEntry) bool {
		if l.TLS == nil {
			return false
		}
		for i := range l.TLS.CertificateRefs {
			if f(&l.TLS.CertificateRefs[i]) {
				return true
			}
		}
		return false
	})
}

func eachCertificateRef(f func(*gwv1.SecretObjectReference)) func(*gwv1.ListenerSet) {
	return eachListener(func(l *gwv1.ListenerEntry) {
		if l.TLS == nil {
			return
		}
		for i := range l.TLS.CertificateRefs {
			f(&l.TLS.CertificateRefs[i])
		}
	})
}
