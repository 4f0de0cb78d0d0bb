package validation

import (
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// Objects is a Cluster made of plain objects, such as the documents the
// offline validate command reads, or a test's fixtures. A nil list means the
// kind is unknown, so its rules are skipped; a non-nil list, even empty, is
// taken as everything there is of that kind. Namespaces are known one by one:
// only a listed namespace has known labels.
type Objects struct {
	Gateways   []*gwv1.Gateway
	Sets       []*gwv1.ListenerSet
	Namespaces []*metav1.PartialObjectMetadata
	Grants     []*gwv1.ReferenceGrant
	Secrets    []*metav1.PartialObjectMetadata
}

var _ Cluster = (*Objects)(nil)

// Gateway implements Cluster.
func (o *Objects) Gateway(namespace, name string) (*gwv1.Gateway, bool) {
	i := slices.IndexFunc(o.Gateways, func(g *gwv1.Gateway) bool { return g.Namespace == namespace && g.Name == name })
	if i < 0 {
		return nil, o.Gateways != nil
	}
	return o.Gateways[i], true
}

// ListenerSetsOf implements Cluster by filtering Sets with ParentKey: an
// offline input or a test's fixtures are small, so no index.
func (o *Objects) ListenerSetsOf(gatewayNamespace, gatewayName string) ([]*gwv1.ListenerSet, bool) {
	want := GatewayKey(gatewayNamespace, gatewayName)
	var sets []*gwv1.ListenerSet
	for _, ls := range o.Sets {
		if key, ok := ParentKey(ls); ok && key == want {
			sets = append(sets, ls)
		}
	}
	return sets, o.Sets != nil
}

// NamespaceLabels implements Cluster.
func (o *Objects) NamespaceLabels(name string) (map[string]string, bool) {
	i := slices.IndexFunc(o.Namespaces, func(n *metav1.PartialObjectMetadata) bool { return n.Name == name })
	if i < 0 {
		return nil, false
	}
	return o.Namespaces[i].Labels, true
}

// ReferenceGrants implements Cluster.
func (o *Objects) ReferenceGrants(namespace string) ([]*gwv1.ReferenceGrant, bool) {
	var grants []*gwv1.ReferenceGrant
	for _, g := range o.Grants {
		if g.Namespace == namespace {
			grants = append(grants, g)
		}
	}
	return grants, o.Grants != nil
}

// SecretExists implements Cluster.
func (o *Objects) SecretExists(namespace, name string) (bool, bool) {
	exists := slices.ContainsFunc(o.Secrets, func(s *metav1.PartialObjectMetadata) bool {
		return s.Namespace == namespace && s.Name == name
	})
	return exists, o.Secrets != nil
}
