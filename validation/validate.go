package validation

import (
	"reflect"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/defaults"
	"github.com/airlock/listenerset-webhook/validation/findings"
	"github.com/airlock/listenerset-webhook/validation/views"
)

// Options carry what the verdict needs besides the objects.
type Options struct {
	// Cluster is the view of the objects around the ListenerSet (the
	// webhook's caches, or the other documents of an offline input); nil
	// judges the object alone.
	Cluster views.Cluster
	// Strict makes the cluster-aware errors (conflicts with the merged
	// listener list, references no ReferenceGrant permits) deny; otherwise
	// they are warnings.
	Strict bool
	// AddedNames are names the list-valued options accept besides the
	// built-in ones (an Airlock Microgateway release newer than this
	// build's lists); nil adds none.
	AddedNames AddedNames
	// Scope says which ListenerSets are Airlock's; the zero Scope judges
	// every one. Classes answers its reads (the Cluster, when it has
	// GatewayClasses too, serves both).
	Scope   Scope
	Classes views.Classes
	// Routes are the HTTPRoutes naming ListenerSets: with them an update
	// or a deletion is told the routes it detaches (warnings only); nil
	// gives no such warning.
	Routes views.Routes
	// Tenancy says who owns the listeners and how claims across owners
	// are judged (tenancy.go); its rules need the Cluster.
	Tenancy Tenancy
}

// Validate is the verdict on a ListenerSet: every reason Airlock
// Microgateway cannot serve newLS, each with the path of the offending field,
// and the warnings it earns. oldLS is the stored object on update, nil on
// create. The webhook, the offline command and every other engine call it.
//
// Both objects are judged as defaults.ListenerSet defaults them, so an
// object written against an older CRD (or none, offline) is judged as it
// will be stored; the objects passed in are not changed.
//
// On update, errors ratchet as Kubernetes' CRD validation ratcheting does
// (apiextensions-apiserver's ratcheting.go): by the value at the error's
// own path, never by position. A new listener is paired with the stored
// listener of the same name (spec.listeners is a map list keyed by name),
// an option with the stored option of the same key (tls.options is a map),
// a route selector's label likewise; the atomic lists (certificateRefs,
// allowedRoutes.kinds, matchExpressions) are compared whole, so an error in
// one of their items ratchets only when the whole list is as stored. An
// error that involves several values ratchets when all of them are as
// stored: maximumVersion below minimumVersion both versions, http3's TLS
// 1.3 the protocol and maximumVersion, "tls required" or "forbidden" the
// protocol and tls, "certificateRefs required" (an absent value, which
// Kubernetes correlates through its parent) the whole tls, a conflict
// between listeners the port, protocol (and,
// for a HostnameConflict, hostname) of both, a duplicate name both
// listeners' pairing, the count of listeners the whole list. Such an error
// does not block the update and becomes a warning (KindRatcheted). So
// changing one option of a listener next to a stored invalid one is
// allowed, as are renaming, reordering, inserting or deleting listeners
// around it; changing the invalid value (or a value its error involves),
// or renaming its listener, is judged in full.
//
// The lists are a bounded report (findings.ErrorReport, findings.WarningReport): the first errors and warnings
// that fit its budget, each value cut to a readable length, then one entry
// that says how many more there were. Judge gives the same report with its
// exact counts.
func Validate(newLS, oldLS *gwv1.ListenerSet, opts Options) (field.ErrorList, findings.Warnings) {
	r := Judge(newLS, oldLS, opts)
	return r.Errors.List(), r.Warnings.List()
}

// Report is a verdict as the rules gave it: its errors and warnings, each a
// bounded report with the exact count of everything the rules found.
type Report struct {
	Errors   findings.ErrorReport
	Warnings findings.WarningReport
	// Scope is the scope's decision; a ListenerSet it does not judge has
	// no errors, and no warning but the decision's note.
	Scope Decision
}

// Judge is Validate's verdict as a Report, for a caller that needs the
// exact counts (the webhook's log line, the offline command's merge).
func Judge(newLS, oldLS *gwv1.ListenerSet, opts Options) *Report {
	d := opts.Scope.Decide(newLS, opts.Classes)
	if !d.Judge {
		r := &Report{Scope: d}
		if d.Note != nil {
			r.Warnings.Add(*d.Note)
		}
		return r
	}
	if oldLS != nil && storedScope(d, newLS, oldLS, opts) == OutcomeOther {
		// The stored object was another implementation's, never judged by
		// these rules: nothing of it is grandfathered, and the update
		// that brings it to Airlock is judged as a create.
		oldLS = nil
	}
	v := &verdict{ratchet: newRatchet(defaulted(newLS), defaulted(oldLS)), added: opts.AddedNames}
	ls := v.ratchet.new
	validateSpec(ls, opts.Cluster, field.NewPath("spec"), v)
	v.endPhase()
	if opts.Cluster != nil {
		// Whether anything will program the set at all comes first: the
		// class the scope's decision read (with the scope off, the one
		// the view has), warnings only.
		classWarnings(d.Class, &v.warnings)
		validateInCluster(ls, opts.Cluster, opts.Strict, opts.Tenancy, v)
		v.endPhase()
		// Warnings only, whatever the mode: a detached route is the
		// route owner's to fix, and the change may be meant.
		warnDetached(v.ratchet.old, ls, opts.Cluster, opts.Routes, &v.warnings)
	}
	if d.Note != nil && (v.errs.Total() > 0 || v.warnings.Total() > 0) {
		// Whose ListenerSet this is could not be told, and Airlock's
		// rules found something: say first why they applied. A set they
		// find nothing in is not told (nothing it would have to act on).
		ws := findings.WarningReport{}
		ws.Add(*d.Note)
		ws.AddReport(&v.warnings)
		v.warnings = ws
	}
	return &Report{Errors: v.errs, Warnings: v.warnings, Scope: d}
}

// storedScope is the scope's outcome for the stored object: the new
// object's decision d when the parentRef is unchanged (same Gateway, same
// class), so that an update reads the Gateway and its class once.
func storedScope(d Decision, newLS, oldLS *gwv1.ListenerSet, opts Options) Outcome {
	if reflect.DeepEqual(newLS.Spec.ParentRef, oldLS.Spec.ParentRef) && oldLS.Namespace == newLS.Namespace {
		return d.Outcome
	}
	return opts.Scope.Decide(oldLS, opts.Classes).Outcome
}

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
