package judge

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/offline/read"
	"github.com/airlock/listenerset-webhook/validation"
)

// overlay is cluster with input's objects in place of the cluster's of the
// same namespace and name (Options.Cluster). Its Sets are set by
// judgeSets (storedRivals).
func overlay(cluster, input *validation.Objects) validation.Objects {
	return validation.Objects{
		Gateways:   replace(cluster.Gateways, input.Gateways, func(g *gwv1.Gateway) string { return read.Name(g.Namespace, g.Name) }),
		Classes:    replace(cluster.Classes, input.Classes, func(g *gwv1.GatewayClass) string { return g.Name }),
		Grants:     replace(cluster.Grants, input.Grants, func(g *gwv1.ReferenceGrant) string { return read.Name(g.Namespace, g.Name) }),
		Namespaces: replace(cluster.Namespaces, input.Namespaces, func(m *metav1.PartialObjectMetadata) string { return m.Name }),
		Secrets:    cluster.Secrets,
		Routes:     replace(cluster.Routes, input.Routes, func(r *gwv1.HTTPRoute) string { return read.Name(r.Namespace, r.Name) }),
	}
}

// replace is base without the objects over has a key of, then over. A
// known kind stays known (non-nil) when either list is.
func replace[T any](base, over []*T, key func(*T) string) []*T {
	if base == nil && over == nil {
		return nil
	}
	replaced := make(map[string]bool, len(over))
	for _, o := range over {
		replaced[key(o)] = true
	}
	out := make([]*T, 0, len(base)+len(over))
	for _, b := range base {
		if !replaced[key(b)] {
			out = append(out, b)
		}
	}
	return append(out, over...)
}

// storedRivals are the stored sets the input does not replace, the first
// rivals of the input's sets. An input set that replaces a stored one is
// an update of it: it takes the stored one's creationTimestamp, whatever
// its manifest says (kube-apiserver restores it), and with it the set's
// place in the merged listener list, and is judged with the stored one as
// the old object (ratcheting, and whether the update moves it to another
// Gateway), as the webhook judges the update.
func storedRivals(stored []*gwv1.ListenerSet, views []apiserverView) []*gwv1.ListenerSet {
	byName := make(map[string]*gwv1.ListenerSet, len(stored))
	for _, ls := range stored {
		byName[read.Name(ls.Namespace, ls.Name)] = ls
	}
	for i := range views {
		view := &views[i]
		if view.ls == nil {
			continue
		}
		k := read.Name(view.ls.Namespace, view.ls.Name)
		if old, ok := byName[k]; ok {
			// kube-apiserver keeps the stored metadata on update: when
			// the set came to its Gateway (validation's arrival) too
			view.ls.CreationTimestamp, view.ls.ManagedFields, view.ls.Generation = old.CreationTimestamp, old.ManagedFields, old.Generation
			view.old = old
			delete(byName, k)
		}
	}
	out := make([]*gwv1.ListenerSet, 0, len(byName))
	for _, ls := range stored {
		if byName[read.Name(ls.Namespace, ls.Name)] == ls {
			out = append(out, ls)
		}
	}
	return out
}
