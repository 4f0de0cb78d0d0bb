package validation

import (
	"reflect"

	"github.com/airlock/listenerset-webhook/defaults"
	"github.com/airlock/listenerset-webhook/validation/findings"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// defaulted returns ls defaulted, as a copy when defaulting changes anything.
// Objects from kube-apiserver come defaulted by the CRD, so usually nothing
// is copied.
func defaulted(ls *gwv1.ListenerSet) *gwv1.ListenerSet {
	if ls == nil || !defaults.Needed(ls) {
		return ls
	}
	ls = ls.DeepCopy()
	defaults.ListenerSet(ls)
	return ls
}

// verdict collects what the rules find. Rules that may ratchet hand their
// errors to judge with whether what the errors involve is unchanged.
type verdict struct {
	ratchet  ratchet
	added    AddedNames
	errs     findings.ErrorReport
	warnings findings.WarningReport
	// ratcheted are the phase's let-through errors; they follow the
	// phase's own warnings.
	ratcheted findings.WarningReport
}

// judge records errs: as errors, or as KindRatcheted warnings when unchanged
// says the update leaves everything they involve as stored.
func (v *verdict) judge(unchanged bool, errs ...*field.Error) {
	if !unchanged {
		v.errs.Add(errs...)
		return
	}
	v.ratcheted.AddErrors(KindRatcheted, WarnRatcheted, errs)
}

// endPhase puts the phase's ratcheted errors after its warnings.
func (v *verdict) endPhase() {
	v.warnings.AddReport(&v.ratcheted)
	v.ratcheted = findings.WarningReport{}
}

// ratchet pairs an update's listeners with the stored ones by name, so that
// each error is judged by the values it involves.
type ratchet struct {
	new, old *gwv1.ListenerSet
	// stored[i] is the stored listener new listener i is paired with; nil
	// when it has none (a create, or a name the stored object lacks).
	stored []*gwv1.ListenerEntry
}

// newRatchet pairs the k-th listener named n of newLS with the k-th listener
// named n of oldLS: names are unique in a valid set, and counting keeps a
// copy of a stored listener from passing as unchanged twice. On create
// (oldLS nil) nothing is paired.
func newRatchet(newLS, oldLS *gwv1.ListenerSet) ratchet {
	r := ratchet{new: newLS, old: oldLS}
	if oldLS == nil {
		return r
	}
	r.stored = make([]*gwv1.ListenerEntry, len(newLS.Spec.Listeners))
	stored := make(map[gwv1.SectionName][]int, len(oldLS.Spec.Listeners))
	for i, l := range oldLS.Spec.Listeners {
		stored[l.Name] = append(stored[l.Name], i)
	}
	for i := range newLS.Spec.Listeners {
		candidates := stored[newLS.Spec.Listeners[i].Name]
		if len(candidates) == 0 {
			continue
		}
		stored[newLS.Spec.Listeners[i].Name] = candidates[1:]
		r.stored[i] = &oldLS.Spec.Listeners[candidates[0]]
	}
	return r
}

// A value reads, from a listener (the new one or its stored pair), one of
// the values an error involves: by default the value at the error's own
// path. Absent parts read as nil.
type value = func(*gwv1.ListenerEntry) any

// unchanged reports whether newV and oldV (nil: nothing stored) hold equal
// values, read by each of values: what Kubernetes' CRD validation
// ratcheting asks of the value at an error's path (apiextensions'
// ratcheting.go, CorrelatedObject.CachedDeepEqual). As there, an absent
// field differs from an empty one (CorrelatedObject does not correlate a
// field absent on one side; decoding keeps nil and empty apart), as it
// does in the policy's CEL.
func unchanged[T any](newV, oldV *T, values ...func(*T) any) bool {
	if oldV == nil {
		return false
	}
	for _, value := range values {
		if !reflect.DeepEqual(value(newV), value(oldV)) {
			return false
		}
	}
	return true
}

// same reports whether new listener i has a stored pair holding the values
// it holds. With no values it reports whether i is paired: its name, the
// key it is paired by, is as stored.
func (r ratchet) same(i int, values ...value) bool {
	if i >= len(r.stored) {
		return false
	}
	return unchanged(&r.new.Spec.Listeners[i], r.stored[i], values...)
}

// check records errs of new listener i, ratcheted when its stored pair holds
// every value they involve. Nothing is compared when there is no error.
func (v *verdict) check(i int, errs field.ErrorList, values ...value) {
	if len(errs) > 0 {
		v.judge(v.ratchet.same(i, values...), errs...)
	}
}

// parentRef reports whether the update leaves the values of spec.parentRef
// as stored.
func (r ratchet) parentRef(values ...func(*gwv1.ParentGatewayReference) any) bool {
	if r.old == nil {
		return false
	}
	return unchanged(&r.new.Spec.ParentRef, &r.old.Spec.ParentRef, values...)
}

// listenerList reports whether the update leaves spec.listeners as stored,
// as Kubernetes compares a map list: the same number of items, each equal
// to the stored item of its key, in any order. A count error is about the
// list.
func (r ratchet) listenerList() bool {
	if r.old == nil || len(r.new.Spec.Listeners) != len(r.old.Spec.Listeners) {
		return false
	}
	for i := range r.new.Spec.Listeners {
		if !r.same(i, listenerValue) {
			return false
		}
	}
	return true
}

// The values the rules' errors involve, read from a listener.
var (
	listenerValue        value = func(l *gwv1.ListenerEntry) any { return l }
	portValue            value = func(l *gwv1.ListenerEntry) any { return l.Port }
	protocolValue        value = func(l *gwv1.ListenerEntry) any { return l.Protocol }
	hostnameValue        value = func(l *gwv1.ListenerEntry) any { return l.Hostname }
	tlsValue             value = func(l *gwv1.ListenerEntry) any { return l.TLS }
	modeValue                  = inTLS(func(t *gwv1.ListenerTLSConfig) any { return t.Mode })
	certificateRefsValue       = inTLS(func(t *gwv1.ListenerTLSConfig) any { return t.CertificateRefs })
	optionsValue               = inTLS(func(t *gwv1.ListenerTLSConfig) any { return t.Options })
	kindsValue                 = inRoutes(func(ar *gwv1.AllowedRoutes) any { return ar.Kinds })
	fromValue                  = inNamespaces(func(ns *gwv1.RouteNamespaces) any { return ns.From })
	selectorValue              = inNamespaces(func(ns *gwv1.RouteNamespaces) any { return ns.Selector })
	matchLabelsValue           = inSelector(func(s *metav1.LabelSelector) any { return s.MatchLabels })
	// matchExpressions is an atomic list (the CRD's x-kubernetes-list-type),
	// as are certificateRefs and kinds: Kubernetes does not correlate their
	// items, so an error in one ratchets only when the whole list is as
	// stored.
	matchExpressionsValue = inSelector(func(s *metav1.LabelSelector) any { return s.MatchExpressions })
)

// optionValue is the value of tls.options[key], nil when absent: map
// entries are correlated by key.
func optionValue(key gwv1.AnnotationKey) value {
	return inTLS(func(t *gwv1.ListenerTLSConfig) any { return mapEntry(t.Options, key) })
}

// matchLabelValue is the value of a route selector's matchLabels[key].
func matchLabelValue(key string) value {
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
func inTLS(part func(*gwv1.ListenerTLSConfig) any) value {
	return func(l *gwv1.ListenerEntry) any {
		if l.TLS == nil {
			return nil
		}
		return part(l.TLS)
	}
}

func inRoutes(part func(*gwv1.AllowedRoutes) any) value {
	return func(l *gwv1.ListenerEntry) any {
		if l.AllowedRoutes == nil {
			return nil
		}
		return part(l.AllowedRoutes)
	}
}

func inNamespaces(part func(*gwv1.RouteNamespaces) any) value {
	return inRoutes(func(ar *gwv1.AllowedRoutes) any {
		if ar.Namespaces == nil {
			return nil
		}
		return part(ar.Namespaces)
	})
}

func inSelector(part func(*metav1.LabelSelector) any) value {
	return inNamespaces(func(ns *gwv1.RouteNamespaces) any {
		if ns.Selector == nil {
			return nil
		}
		return part(ns.Selector)
	})
}
