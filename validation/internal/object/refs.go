package object

import (
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/defaults"
)

const ListenerSetKind = "ListenerSet"

// isGatewayRef tells whether a parentRef names a Gateway (unset group and
// kind are their defaults). Decided here only: the object rules reject
// anything else, and the cluster-aware rules look only such parents up.
func isGatewayRef(ref *gwv1.ParentGatewayReference) bool {
	return (ref.Group == nil || *ref.Group == gwv1.GroupName) && (ref.Kind == nil || *ref.Kind == defaults.GatewayKind)
}

// IsSecretRef tells whether a certificateRef names a core Secret (unset
// group and kind are their defaults). Decided here only, as isGatewayRef.
func IsSecretRef(ref *gwv1.SecretObjectReference) bool {
	return (ref.Group == nil || *ref.Group == defaults.SecretGroup) && (ref.Kind == nil || *ref.Kind == defaults.SecretKind)
}

// parentNamespace is the namespace of ls's parent: the ListenerSet's own
// unless the parentRef names one.
func parentNamespace(ls *gwv1.ListenerSet) string {
	if ns := ls.Spec.ParentRef.Namespace; ns != nil && *ns != "" {
		return string(*ns)
	}
	return ls.Namespace
}

// SecretNamespace is the namespace of a certificateRef's Secret.
func SecretNamespace(ls *gwv1.ListenerSet, ref *gwv1.SecretObjectReference) string {
	if ref.Namespace != nil && *ref.Namespace != "" {
		return string(*ref.Namespace)
	}
	return ls.Namespace
}

// objectName is "namespace/name" as messages name a Gateway or ListenerSet;
// an object created with generateName may not have its name yet.
func objectName(namespace, name, generateName string) string {
	if name == "" {
		name = generateName
	}
	if namespace == "" {
		return name
	}
	return namespace + "/" + name
}

// ParentOf names the Gateway ls's parentRef points to, ok=false when it
// names none (another group or kind, or no name: an error of the object's
// own rules). It is the one decision of which Gateway a ListenerSet belongs
// to: the Gateway a ListenerSet under admission is judged against, and the
// Gateway a ListenerSet in the cluster is a rival under (ParentKey, which
// the cluster view's index calls), so the two cannot drift apart.
func ParentOf(ls *gwv1.ListenerSet) (namespace, name string, ok bool) {
	ref := &ls.Spec.ParentRef
	if !isGatewayRef(ref) || ref.Name == "" {
		return "", "", false
	}
	return parentNamespace(ls), string(ref.Name), true
}
