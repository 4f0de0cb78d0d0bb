package defaults

import (
	"k8s.io/utils/ptr"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// Values the upstream v1.6 CRD schema defaults to. They are repeated here,
// not read from the CRD, because the webhook must give the same result where
// the CRD is older or absent (offline validation).
const (
	// GatewayGroup is the API group of Gateway API.
	GatewayGroup gwv1.Group = gwv1.GroupName
	// GatewayKind is the only kind a ListenerSet attaches to.
	GatewayKind gwv1.Kind = "Gateway"
	// SecretGroup is the core API group, spelled as Gateway API spells it.
	SecretGroup gwv1.Group = ""
	// SecretKind is the kind of a certificateRef when unset.
	SecretKind gwv1.Kind = "Secret"
)

// ListenerSet sets every unset field of ls that has a default, in place. It
// only ever adds: a field that is set, even to an invalid value, is left for
// validation to judge. Calling it twice changes nothing the second time.
func ListenerSet(ls *gwv1.ListenerSet) {
	parentRef(&ls.Spec.ParentRef)
	for i := range ls.Spec.Listeners {
		listener(&ls.Spec.Listeners[i])
	}
}

func parentRef(ref *gwv1.ParentGatewayReference) {
	if ref.Group == nil {
		ref.Group = ptr.To(GatewayGroup)
	}
	if ref.Kind == nil {
		ref.Kind = ptr.To(GatewayKind)
	}
}

func listener(l *gwv1.ListenerEntry) {
	if l.TLS != nil {
		tls(l.TLS)
	}
	if l.AllowedRoutes == nil {
		l.AllowedRoutes = &gwv1.AllowedRoutes{}
	}
	allowedRoutes(l.AllowedRoutes)
}

func tls(t *gwv1.ListenerTLSConfig) {
	if t.Mode == nil {
		t.Mode = ptr.To(gwv1.TLSModeTerminate)
	}
	for i := range t.CertificateRefs {
		ref := &t.CertificateRefs[i]
		if ref.Group == nil {
			ref.Group = ptr.To(SecretGroup)
		}
		if ref.Kind == nil {
			ref.Kind = ptr.To(SecretKind)
		}
	}
}

func allowedRoutes(ar *gwv1.AllowedRoutes) {
	if ar.Namespaces == nil {
		ar.Namespaces = &gwv1.RouteNamespaces{}
	}
	if ar.Namespaces.From == nil {
		ar.Namespaces.From = ptr.To(gwv1.NamespacesFromSame)
	}
	for i := range ar.Kinds {
		if ar.Kinds[i].Group == nil {
			ar.Kinds[i].Group = ptr.To(GatewayGroup)
		}
	}
}

// Needed reports whether ListenerSet would change ls: whether a field it
// defaults is unset. It reads only, so callers that must not change the
// object they were given copy it only when needed (kube-apiserver's CRD
// defaulting usually has set everything). The mutating webhook's
// matchConditions (webhook.NeedsDefaultsExpression) say the same in CEL.
func Needed(ls *gwv1.ListenerSet) bool {
	if ref := &ls.Spec.ParentRef; ref.Group == nil || ref.Kind == nil {
		return true
	}
	for i := range ls.Spec.Listeners {
		l := &ls.Spec.Listeners[i]
		if t := l.TLS; t != nil {
			if t.Mode == nil {
				return true
			}
			for j := range t.CertificateRefs {
				if t.CertificateRefs[j].Group == nil || t.CertificateRefs[j].Kind == nil {
					return true
				}
			}
		}
		ar := l.AllowedRoutes
		if ar == nil || ar.Namespaces == nil || ar.Namespaces.From == nil {
			return true
		}
		for k := range ar.Kinds {
			if ar.Kinds[k].Group == nil {
				return true
			}
		}
	}
	return false
}
