package validation

import (
	"cmp"
	"fmt"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation/field"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// Cluster is a read-only view of the objects around a ListenerSet: its parent
// Gateway, that Gateway's other ListenerSets, namespaces, ReferenceGrants and
// Secrets. Each method says known=false when the view cannot tell (a cache
// that has not synced, an offline input without objects of that kind); the
// rule that needs the answer is then skipped, never guessed.
type Cluster interface {
	// Gateway returns the Gateway, or nil when it does not exist.
	Gateway(namespace, name string) (gw *gwv1.Gateway, known bool)
	// ListenerSets returns every ListenerSet in the view; the rules pick the
	// ones whose parentRef names a given Gateway.
	ListenerSets() (sets []*gwv1.ListenerSet, known bool)
	// NamespaceLabels returns a namespace's labels (nil when it does not exist).
	NamespaceLabels(name string) (labels map[string]string, known bool)
	// ReferenceGrants returns the ReferenceGrants of a namespace.
	ReferenceGrants(namespace string) (grants []*gwv1.ReferenceGrant, known bool)
	// SecretExists tells whether a Secret exists, from its metadata only.
	SecretExists(namespace, name string) (exists, known bool)
}

// ValidateListenerSetInCluster checks ls against the cluster c: what would
// make a controller mark it NotAllowed, Conflicted or RefNotPermitted later,
// told at apply time instead. Listener conflicts with the merged listener list
// (ProtocolConflict, HostnameConflict) and references no ReferenceGrant
// permits (RefNotPermitted) are returned as errors: the webhook denies them in
// strict mode and otherwise passes them on as warnings (AsWarnings). Problems
// that may well resolve themselves (the Gateway or Secret does not exist yet,
// the Gateway does not admit the namespace yet) are warnings only.
func ValidateListenerSetInCluster(ls *gwv1.ListenerSet, c Cluster) (field.ErrorList, Warnings) {
	var (
		errs     field.ErrorList
		warnings Warnings
		spec     = newPath("spec")
	)
	if gw, ok := parentGateway(ls, c, spec.Child("parentRef"), &warnings); ok {
		errs = append(errs, validateMergedListeners(ls, gw, c, spec.Child("listeners"))...)
	}
	for i := range ls.Spec.Listeners {
		l := &ls.Spec.Listeners[i]
		if l.TLS == nil {
			continue
		}
		refsPath := spec.Child("listeners").Index(i).Child("tls").Child("certificateRefs")
		for j := range l.TLS.CertificateRefs {
			errs = append(errs, validateCertificateRefInCluster(ls, &l.TLS.CertificateRefs[j], c, refsPath.Index(j), &warnings)...)
		}
	}
	return errs, warnings
}

// MergeClusterFindings adds the findings of ValidateListenerSetInCluster
// (or ...UpdateInCluster) about ls in c to ls's own errors and warnings, the
// one way the webhook and the offline command both report them: in strict
// mode the findings' errors deny; otherwise they become warnings, after the
// cluster's own warnings. The object-only guess that a cross-namespace
// certificateRef needs a ReferenceGrant is dropped where c knows the grants:
// either one permits the reference, or RefNotPermitted says so exactly.
func MergeClusterFindings(ls *gwv1.ListenerSet, c Cluster, errs field.ErrorList, warnings Warnings, clusterErrs field.ErrorList, clusterWarnings Warnings, strict bool) (field.ErrorList, Warnings) {
	warnings = append(settleGrantWarnings(ls, c, warnings), clusterWarnings...)
	if strict {
		return append(errs, clusterErrs...), warnings
	}
	return errs, append(warnings, AsWarnings(clusterErrs)...)
}

// settleGrantWarnings drops WarnCrossNamespaceCertificateRef for the
// references whose namespace's ReferenceGrants c knows.
func settleGrantWarnings(ls *gwv1.ListenerSet, c Cluster, warnings Warnings) Warnings {
	var settled []string
	refs := newPath("spec").Child("listeners")
	for i := range ls.Spec.Listeners {
		l := &ls.Spec.Listeners[i]
		if l.TLS == nil {
			continue
		}
		for j, ref := range l.TLS.CertificateRefs {
			if ref.Namespace == nil || string(*ref.Namespace) == ls.Namespace {
				continue
			}
			if _, known := c.ReferenceGrants(string(*ref.Namespace)); known {
				p := refs.Index(i).Child("tls").Child("certificateRefs").Index(j).Child("namespace")
				settled = append(settled, p.String()+": "+fmt.Sprintf(WarnCrossNamespaceCertificateRef, *ref.Namespace))
			}
		}
	}
	if len(settled) == 0 {
		return warnings
	}
	return slices.DeleteFunc(warnings, func(w string) bool { return slices.Contains(settled, w) })
}

// AsWarnings turns errors into warnings ("path: detail"), for the findings
// that only deny in strict mode.
func AsWarnings(errs field.ErrorList) Warnings {
	w := make(Warnings, 0, len(errs))
	for _, e := range errs {
		w = append(w, e.Field+": "+e.Detail)
	}
	return w
}

func parentNamespace(ls *gwv1.ListenerSet) string {
	if ns := ls.Spec.ParentRef.Namespace; ns != nil && *ns != "" {
		return string(*ns)
	}
	return ls.Namespace
}

func isParent(ls *gwv1.ListenerSet, gw *gwv1.Gateway) bool {
	ref := ls.Spec.ParentRef
	return string(ref.Name) == gw.Name && parentNamespace(ls) == gw.Namespace &&
		(ref.Kind == nil || *ref.Kind == "Gateway") && (ref.Group == nil || *ref.Group == gwv1.GroupName)
}

// parentGateway returns the parent Gateway when it exists and admits ls, with
// a warning naming the reason when it does not.
func parentGateway(ls *gwv1.ListenerSet, c Cluster, fldPath *fieldPath, w *Warnings) (*gwv1.Gateway, bool) {
	ref := ls.Spec.ParentRef
	if ref.Kind != nil && *ref.Kind != "Gateway" || ref.Group != nil && *ref.Group != gwv1.GroupName || ref.Name == "" {
		return nil, false // not a Gateway: rejected by ValidateListenerSet already
	}
	ns, name := parentNamespace(ls), string(ref.Name)
	gw, known := c.Gateway(ns, name)
	switch {
	case !known:
		return nil, false
	case gw == nil:
		w.add(fldPath.Child("name"), WarnGatewayNotFound, ns, name)
		return nil, false
	}
	allowed, known, why := admits(gw, ls.Namespace, c)
	if known && !allowed {
		w.add(fldPath, WarnNotAllowed, ns, name, why)
	}
	return gw, known && allowed
}

// admits applies the Gateway's spec.allowedListeners to a ListenerSet
// namespace. why names the setting that refuses it.
func admits(gw *gwv1.Gateway, namespace string, c Cluster) (allowed, known bool, why string) {
	from, selector := gwv1.NamespacesFromNone, (*metav1.LabelSelector)(nil)
	if al := gw.Spec.AllowedListeners; al != nil && al.Namespaces != nil {
		if al.Namespaces.From != nil {
			from = *al.Namespaces.From
		}
		selector = al.Namespaces.Selector
	}
	switch from {
	case gwv1.NamespacesFromAll:
		return true, true, ""
	case gwv1.NamespacesFromSame:
		return namespace == gw.Namespace, true, "allowedListeners.namespaces.from is Same"
	case gwv1.NamespacesFromSelector:
		nsLabels, known := c.NamespaceLabels(namespace)
		if !known || selector == nil {
			return false, known && selector != nil, ""
		}
		sel, err := metav1.LabelSelectorAsSelector(selector)
		if err != nil {
			return false, false, ""
		}
		return sel.Matches(labels.Set(nsLabels)), true, "namespace labels do not match allowedListeners.namespaces.selector"
	default:
		return false, true, "allowedListeners.namespaces.from is None (the default)"
	}
}

// claim is a listener that holds a port, or a port+protocol+hostname, in the
// Gateway's merged listener list, and the words that name it in a message.
type claim struct {
	protocol gwv1.ProtocolType
	// namespace, name and listener name the owner; they are only formatted
	// (String) when a conflict is reported, not for every listener taken.
	namespace, name string
	listener        gwv1.SectionName
}

// String names the claiming listener, e.g. "gateway-ns/gw listener https".
func (c claim) String() string {
	return fmt.Sprintf("%s/%s listener %s", c.namespace, c.name, c.listener)
}

// validateMergedListeners finds the listeners of ls that lose to an earlier
// listener of the merged list, in Gateway API's precedence: the Gateway's own
// listeners, then its admitted ListenerSets oldest first, then by
// "namespace/name". ls itself is placed by its creation time (a new object,
// without one, comes last).
func validateMergedListeners(ls *gwv1.ListenerSet, gw *gwv1.Gateway, c Cluster, fldPath *fieldPath) field.ErrorList {
	onPort := map[gwv1.PortNumber]claim{}
	at := map[endpoint]claim{}
	take := func(port gwv1.PortNumber, protocol gwv1.ProtocolType, hostname *gwv1.Hostname, owner claim) {
		owner.protocol = protocol
		e := endpointOf(&gwv1.ListenerEntry{Port: port, Protocol: protocol, Hostname: hostname})
		if _, taken := onPort[port]; !taken {
			onPort[port] = owner
		}
		if _, taken := at[e]; !taken {
			at[e] = owner
		}
	}
	for _, l := range gw.Spec.Listeners {
		take(l.Port, l.Protocol, l.Hostname, claim{namespace: gw.Namespace, name: gw.Name, listener: l.Name})
	}
	for _, other := range earlierListenerSets(ls, gw, c) {
		for _, l := range other.Spec.Listeners {
			take(l.Port, l.Protocol, l.Hostname, claim{namespace: other.Namespace, name: other.Name, listener: l.Name})
		}
	}

	var errs field.ErrorList
	for i := range ls.Spec.Listeners {
		l := &ls.Spec.Listeners[i]
		first, taken := onPort[l.Port]
		switch {
		case !taken:
		case first.protocol != l.Protocol:
			errs = append(errs, field.Invalid(fldPath.Index(i).Child("protocol").Path(), string(l.Protocol),
				fmt.Sprintf(DetailProtocolConflict, l.Port, first.protocol, first)))
		default:
			if winner, dup := at[endpointOf(l)]; dup {
				errs = append(errs, field.Invalid(fldPath.Index(i).Child("hostname").Path(), string(endpointOf(l).hostname),
					fmt.Sprintf(DetailHostnameConflict, winner)))
			}
		}
	}
	return errs
}

// earlierListenerSets returns the ListenerSets of gw that the Gateway admits
// and that precede ls in the merged list, in that order.
func earlierListenerSets(ls *gwv1.ListenerSet, gw *gwv1.Gateway, c Cluster) []*gwv1.ListenerSet {
	all, known := c.ListenerSets()
	if !known {
		return nil
	}
	var earlier []*gwv1.ListenerSet
	for _, other := range all {
		if other.Namespace == ls.Namespace && other.Name == ls.Name || !isParent(other, gw) {
			continue
		}
		if allowed, _, _ := admits(gw, other.Namespace, c); allowed && precedes(other, ls) {
			earlier = append(earlier, other)
		}
	}
	slices.SortFunc(earlier, func(a, b *gwv1.ListenerSet) int {
		if precedes(a, b) {
			return -1
		}
		return 1
	})
	return earlier
}

// precedes orders ListenerSets as Gateway API merges them: by creation time,
// then "namespace/name". A zero creation time (an object being created) is
// the newest.
func precedes(a, b *gwv1.ListenerSet) bool {
	ta, tb := a.CreationTimestamp, b.CreationTimestamp
	switch {
	case ta.IsZero() != tb.IsZero():
		return tb.IsZero()
	case !ta.Equal(&tb):
		return ta.Before(&tb)
	}
	return cmp.Compare(a.Namespace+"/"+a.Name, b.Namespace+"/"+b.Name) < 0
}

// validateCertificateRefInCluster: a Secret in another namespace needs a
// ReferenceGrant there (RefNotPermitted otherwise), and a Secret that does not
// exist leaves the listener without a certificate.
func validateCertificateRefInCluster(ls *gwv1.ListenerSet, ref *gwv1.SecretObjectReference, c Cluster, fldPath *fieldPath, w *Warnings) field.ErrorList {
	if ref.Group != nil && *ref.Group != "" || ref.Kind != nil && *ref.Kind != "Secret" || ref.Name == "" {
		return nil // not a Secret: rejected by ValidateListenerSet already
	}
	ns := ls.Namespace
	if ref.Namespace != nil && *ref.Namespace != "" {
		ns = string(*ref.Namespace)
	}
	var errs field.ErrorList
	if ns != ls.Namespace {
		if grants, known := c.ReferenceGrants(ns); known && !permitted(grants, ls.Namespace, ref.Name) {
			errs = append(errs, field.Forbidden(fldPath.Child("namespace").Path(), fmt.Sprintf(DetailRefNotPermitted, ns, ls.Namespace)))
		}
	}
	if exists, known := c.SecretExists(ns, string(ref.Name)); known && !exists {
		w.add(fldPath.Child("name"), WarnSecretNotFound, ns, ref.Name)
	}
	return errs
}

// permitted tells whether a ReferenceGrant lets ListenerSets of fromNamespace
// reference the Secret name.
func permitted(grants []*gwv1.ReferenceGrant, fromNamespace string, name gwv1.ObjectName) bool {
	for _, g := range grants {
		from := slices.ContainsFunc(g.Spec.From, func(f gwv1.ReferenceGrantFrom) bool {
			return f.Group == gwv1.GroupName && f.Kind == "ListenerSet" && string(f.Namespace) == fromNamespace
		})
		to := slices.ContainsFunc(g.Spec.To, func(t gwv1.ReferenceGrantTo) bool {
			return t.Group == "" && t.Kind == "Secret" && (t.Name == nil || *t.Name == "" || *t.Name == name)
		})
		if from && to {
			return true
		}
	}
	return false
}
