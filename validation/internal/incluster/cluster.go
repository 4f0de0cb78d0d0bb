package incluster

import (
	"cmp"
	"fmt"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation/field"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/defaults"
	"github.com/airlock/listenerset-webhook/findings"
	"github.com/airlock/listenerset-webhook/validation/internal/object"
	"github.com/airlock/listenerset-webhook/validation/internal/verdict"
	"github.com/airlock/listenerset-webhook/validation/internal/views"
)

// ValidateInCluster applies the cluster-aware rules: what would make a
// controller mark ls NotAllowed, Conflicted or RefNotPermitted later, told at
// apply time instead. Listener conflicts with the merged listener list
// (ProtocolConflict, HostnameConflict) and references no ReferenceGrant
// permits (RefNotPermitted) deny in strict mode, ratcheted by the values of
// the listener they involve (a conflict its port, protocol and, for
// HostnameConflict, hostname; RefNotPermitted its certificateRefs, an
// atomic list), and are warnings otherwise. Problems that may well resolve
// themselves (the Gateway or Secret does not exist yet, the Gateway does not
// admit the namespace yet) are warnings only.
//
// how says how ls stands on its Gateway for the first-claim rule (Claiming);
// a Staying update's stored object is v.Ratchet.Old.
func ValidateInCluster(ls *gwv1.ListenerSet, c views.Cluster, strict bool, t Tenancy, how Claiming, v *verdict.Verdict) {
	type finding struct {
		err      *field.Error
		listener int
		involved []verdict.Value
	}
	var found []finding
	listenersPath := field.NewPath("spec", "listeners")
	gw, admission, ok, known := parentGateway(ls, c, field.NewPath("spec", "parentRef"), &v.Warnings)
	if ok {
		self := object.ListenerSource{Kind: object.SourceListenerSet, Namespace: ls.Namespace, Name: ls.Name}
		for _, row := range ListenersInMerge(ls, gw, admission, c) {
			// A conflict within the set is the object's own rule's error,
			// an overlap within it the object's own warning.
			if row.State == ListenerConflicted && row.Winner.Source != self {
				found = append(found, finding{row.Errors[0], row.Index, object.ConflictValues(row.Reason)})
			}
			if row.Overlaps != nil && row.Overlaps.Source != self {
				object.WarnOverlap(&v.Warnings, object.KindMergedOverlappingHostnames, row.Index, &ls.Spec.Listeners[row.Index], *row.Overlaps, row.OverlapsHostname)
			}
		}
	}
	if ns, name, named := object.ParentOf(ls); named && known {
		validateFirstClaims(ls, ns, name, admission, c, t, how, v)
	}
	validateDeclaredHostnames(ls, c, t, v)
	for i := range ls.Spec.Listeners {
		l := &ls.Spec.Listeners[i]
		if l.TLS == nil {
			continue
		}
		refsPath := listenersPath.Index(i).Child("tls", "certificateRefs")
		for j := range l.TLS.CertificateRefs {
			if err := validateCertificateRefInCluster(ls, &l.TLS.CertificateRefs[j], c, refsPath.Index(j), &v.Warnings); err != nil {
				found = append(found, finding{err, i, []verdict.Value{object.CertificateRefsValue}})
			}
		}
	}
	for _, f := range found {
		if strict {
			v.Judge(v.Ratchet.Same(f.listener, f.involved...), f.err)
		} else {
			v.Warnings.Add(findings.Warning{Path: f.err.Field, Kind: KindClusterFinding, Code: findings.CodeOf(f.err), Message: f.err.Detail})
		}
	}
}

// parentGateway returns the parent Gateway (nil when it does not exist)
// and its allowedListeners for judging ls's rivals, ok when it exists and
// admits ls, with a warning naming the reason when it does not; known is
// false when the parentRef names no Gateway or the view cannot tell.
func parentGateway(ls *gwv1.ListenerSet, c views.Cluster, fldPath *field.Path, w *findings.WarningReport) (gw *gwv1.Gateway, admission *GatewayAdmission, ok, known bool) {
	ns, name, named := object.ParentOf(ls)
	if !named {
		return nil, nil, false, false // not a Gateway: an error of the object's own rules
	}
	gw, known = c.Gateway(ns, name)
	switch {
	case !known:
		return nil, nil, false, false
	case gw == nil:
		clusterWarn(w, fldPath.Child("name"), KindGatewayNotFound, warnGatewayNotFound, ns, name)
		return nil, nil, false, true
	}
	admission = NewGatewayAdmission(gw, c)
	allowed, admissionKnown, why := admission.Admits(ls.Namespace)
	if admissionKnown && !allowed {
		clusterWarn(w, fldPath, KindNotAllowed, warnNotAllowed, ns, name, why)
	}
	return gw, admission, admissionKnown && allowed, true
}

// GatewayAdmission applies a Gateway's spec.allowedListeners to ListenerSet
// namespaces. The selector is parsed once and each namespace judged once per
// request: every rival of the ListenerSet under admission is judged too, and
// parsing the selector per rival was more than half of a request with 100
// rivals (make bench-scale, docs/performance.md).
type GatewayAdmission struct {
	gw   *gwv1.Gateway
	c    views.Cluster
	from gwv1.FromNamespaces
	// selector is the parsed allowedListeners.namespaces.selector; nil when
	// it is unset or does not parse (Selector then admits nothing known).
	selector labels.Selector
	judged   map[string]admitted
}

type admitted struct {
	allowed, known bool
	// why is the refusal as the NotAllowed warning words it; setting is
	// the setting that refuses (or leaves unknown) as a merged listener's
	// Reason names it.
	why, setting string
}

// NewGatewayAdmission is gw's admission of ListenerSet namespaces, read
// through c, each namespace judged once.
func NewGatewayAdmission(gw *gwv1.Gateway, c views.Cluster) *GatewayAdmission {
	a := &GatewayAdmission{gw: gw, c: c, from: gwv1.NamespacesFromNone, judged: map[string]admitted{}}
	if al := gw.Spec.AllowedListeners; al != nil && al.Namespaces != nil {
		if al.Namespaces.From != nil {
			a.from = *al.Namespaces.From
		}
		if al.Namespaces.Selector != nil {
			if sel, err := metav1.LabelSelectorAsSelector(al.Namespaces.Selector); err == nil {
				a.selector = sel
			}
		}
	}
	return a
}

// Admits tells whether the Gateway admits ListenerSets of namespace; why
// names the setting that refuses it. known is false when the namespace's
// labels are needed and unknown, or the selector is unset or invalid.
func (a *GatewayAdmission) Admits(namespace string) (allowed, known bool, why string) {
	r := a.judge(namespace)
	return r.allowed, r.known, r.why
}

// admitsSetting is admits with the setting that refuses the namespace, or
// leaves it unknown, e.g. "allowedListeners.namespaces.from: Same".
func (a *GatewayAdmission) admitsSetting(namespace string) (allowed, known bool, setting string) {
	r := a.judge(namespace)
	return r.allowed, r.known, r.setting
}

func (a *GatewayAdmission) judge(namespace string) admitted {
	if r, ok := a.judged[namespace]; ok {
		return r
	}
	var r admitted
	switch a.from {
	case gwv1.NamespacesFromAll:
		r = admitted{allowed: true, known: true}
	case gwv1.NamespacesFromSame:
		r = admitted{allowed: namespace == a.gw.Namespace, known: true, why: "allowedListeners.namespaces.from is Same",
			setting: "allowedListeners.namespaces.from: Same"}
	case gwv1.NamespacesFromSelector:
		nsLabels, known := a.c.NamespaceLabels(namespace)
		switch {
		case a.selector == nil:
			r.setting = "allowedListeners.namespaces.selector: unset or invalid"
		case !known:
			r.setting = fmt.Sprintf("labels of namespace %q unknown (allowedListeners.namespaces.selector: %s)", namespace, a.selector)
		default:
			r = admitted{allowed: a.selector.Matches(labels.Set(nsLabels)), known: true,
				why:     "namespace labels do not match allowedListeners.namespaces.selector",
				setting: "allowedListeners.namespaces.selector: " + a.selector.String()}
		}
	default:
		r = admitted{known: true, why: "allowedListeners.namespaces.from is None (the default)",
			setting: "allowedListeners.namespaces.from: None"}
	}
	if r.allowed {
		r.setting = ""
	}
	a.judged[namespace] = r
	return r
}

// ComparePrecedence orders ListenerSets as Gateway API merges them: by
// creation time, oldest first, then "namespace/name". A zero creation time
// (an object being created, or a manifest that does not say) is the newest.
// The offline command admits its input in this order.
func ComparePrecedence(a, b *gwv1.ListenerSet) int {
	ta, tb := a.CreationTimestamp, b.CreationTimestamp
	switch {
	case ta.IsZero() != tb.IsZero():
		if ta.IsZero() {
			return 1
		}
		return -1
	case !ta.Equal(&tb):
		return ta.Time.Compare(tb.Time)
	}
	return CompareNamespacedName(a.Namespace, a.Name, b.Namespace, b.Name)
}

// CompareNamespacedName compares "ans/aname" with "bns/bname" as strings,
// without building them: the sort runs on every request.
func CompareNamespacedName(ans, aname, bns, bname string) int {
	if ans == bns {
		return cmp.Compare(aname, bname)
	}
	// The namespaces differ: at the first byte where they do, or where
	// the shorter one ends and its "/" meets the other's next byte.
	n := min(len(ans), len(bns))
	if c := cmp.Compare(ans[:n], bns[:n]); c != 0 {
		return c
	}
	if len(ans) < len(bns) {
		return cmp.Compare(byte('/'), bns[n])
	}
	return cmp.Compare(ans[n], byte('/'))
}

// validateCertificateRefInCluster: a Secret in another namespace needs a
// ReferenceGrant there (the returned RefNotPermitted error otherwise), and a
// Secret that does not exist leaves the listener without a certificate.
func validateCertificateRefInCluster(ls *gwv1.ListenerSet, ref *gwv1.SecretObjectReference, c views.Cluster, fldPath *field.Path, w *findings.WarningReport) *field.Error {
	if !object.IsSecretRef(ref) || ref.Name == "" {
		return nil // not a Secret: an error of the object's own rules
	}
	ns := object.SecretNamespace(ls, ref)
	var err *field.Error
	if ns != ls.Namespace {
		if grants, known := c.ReferenceGrants(ns); known && !permitted(grants, ls.Namespace, ref.Name) {
			err = CodeRefNotPermitted.Err(field.Forbidden(fldPath.Child("namespace"), fmt.Sprintf(detailRefNotPermitted, ns, ls.Namespace)))
		}
	}
	if exists, known := c.SecretExists(ns, string(ref.Name)); known && !exists {
		clusterWarn(w, fldPath.Child("name"), KindSecretNotFound, warnSecretNotFound, ns, ref.Name)
	}
	return err
}

// permitted tells whether a ReferenceGrant lets ListenerSets of fromNamespace
// reference the Secret name.
func permitted(grants []*gwv1.ReferenceGrant, fromNamespace string, name gwv1.ObjectName) bool {
	return PermittingGrant(grants, fromNamespace, name) != nil
}

// PermittingGrant is the first of grants (a Secret's namespace's) that lets
// ListenerSets of fromNamespace reference the Secret name, nil when none
// does: the RefNotPermitted rule's decision, for a caller that names the
// grant (the why command).
func PermittingGrant(grants []*gwv1.ReferenceGrant, fromNamespace string, name gwv1.ObjectName) *gwv1.ReferenceGrant {
	for _, g := range grants {
		from := slices.ContainsFunc(g.Spec.From, func(f gwv1.ReferenceGrantFrom) bool {
			return f.Group == gwv1.GroupName && f.Kind == object.ListenerSetKind && string(f.Namespace) == fromNamespace
		})
		to := slices.ContainsFunc(g.Spec.To, func(t gwv1.ReferenceGrantTo) bool {
			return t.Group == defaults.SecretGroup && t.Kind == defaults.SecretKind && (t.Name == nil || *t.Name == "" || *t.Name == name)
		})
		if from && to {
			return g
		}
	}
	return nil
}
