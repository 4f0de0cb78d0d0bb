package validation

import (
	"fmt"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/util/validation/field"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/defaults"
)

// Options carry what the verdict needs besides the objects.
type Options struct {
	// Cluster is the view of the objects around the ListenerSet (the
	// webhook's caches, or the other documents of an offline input); nil
	// judges the object alone.
	Cluster Cluster
	// Strict makes the cluster-aware errors (conflicts with the merged
	// listener list, references no ReferenceGrant permits) deny; otherwise
	// they are warnings.
	Strict bool
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
// On update, errors ratchet as Kubernetes' CRD validation ratcheting does:
// by key and value, never by position. A new listener is paired with the
// stored listener of the same name (spec.listeners is a map list keyed by
// name); an error that involves only listeners equal to their stored pair,
// or only a spec field equal to the stored one, does not block the update
// and becomes a warning (KindRatcheted). So renaming, reordering, inserting
// or deleting listeners around an unchanged invalid one is allowed, and
// changing the invalid listener itself is judged in full.
//
// The lists are a bounded report (report.go): the first errors and warnings
// that fit its budget, each value cut to a readable length, then one entry
// that says how many more there were. Judge gives the same report with its
// exact counts.
func Validate(newLS, oldLS *gwv1.ListenerSet, opts Options) (field.ErrorList, Warnings) {
	r := Judge(newLS, oldLS, opts)
	return r.Errors.List(), r.Warnings.List()
}

// Report is a verdict as the rules gave it: its errors and warnings, each a
// bounded report with the exact count of everything the rules found.
type Report struct {
	Errors   ErrorReport
	Warnings WarningReport
}

// Judge is Validate's verdict as a Report, for a caller that needs the
// exact counts (the webhook's log line, the offline command's merge).
func Judge(newLS, oldLS *gwv1.ListenerSet, opts Options) *Report {
	v := &verdict{ratchet: newRatchet(defaulted(newLS), defaulted(oldLS))}
	ls := v.ratchet.new
	validateSpec(ls, opts.Cluster, field.NewPath("spec"), v)
	v.endPhase()
	if opts.Cluster != nil {
		validateInCluster(ls, opts.Cluster, opts.Strict, v)
		v.endPhase()
	}
	return &Report{Errors: v.errs, Warnings: v.warnings}
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
	errs     ErrorReport
	warnings WarningReport
	// ratcheted are the phase's let-through errors; they follow the
	// phase's own warnings.
	ratcheted WarningReport
}

// judge records errs: as errors, or as KindRatcheted warnings when unchanged
// says the update leaves everything they involve as stored.
func (v *verdict) judge(unchanged bool, errs ...*field.Error) {
	if !unchanged {
		v.errs.Add(errs...)
		return
	}
	for _, e := range errs {
		if n, ok := moreCount(e); ok {
			v.ratcheted.count(n)
			continue
		}
		if v.ratcheted.full {
			v.ratcheted.count(1)
			continue
		}
		v.ratcheted.Add(Warning{Path: e.Field, Kind: KindRatcheted, Message: fmt.Sprintf(WarnRatcheted, cutError(e).ErrorBody())})
	}
}

// endPhase puts the phase's ratcheted errors after its warnings.
func (v *verdict) endPhase() {
	v.warnings.AddReport(&v.ratcheted)
	v.ratcheted = WarningReport{}
}

// ratchet pairs an update's listeners with the stored ones by name.
type ratchet struct {
	new, old *gwv1.ListenerSet
	// unchanged[i] is true when new listener i equals the stored listener
	// it is paired with.
	unchanged []bool
}

// newRatchet pairs the k-th listener named n of newLS with the k-th listener
// named n of oldLS: names are unique in a valid set, and counting keeps a
// copy of a stored listener from passing as unchanged twice. On create
// (oldLS nil) nothing is unchanged.
func newRatchet(newLS, oldLS *gwv1.ListenerSet) ratchet {
	r := ratchet{new: newLS, old: oldLS}
	if oldLS == nil {
		return r
	}
	r.unchanged = make([]bool, len(newLS.Spec.Listeners))
	stored := map[gwv1.SectionName][]int{}
	for i, l := range oldLS.Spec.Listeners {
		stored[l.Name] = append(stored[l.Name], i)
	}
	for i := range newLS.Spec.Listeners {
		l := &newLS.Spec.Listeners[i]
		candidates := stored[l.Name]
		if len(candidates) == 0 {
			continue
		}
		stored[l.Name] = candidates[1:]
		r.unchanged[i] = equality.Semantic.DeepEqual(*l, oldLS.Spec.Listeners[candidates[0]])
	}
	return r
}

// listeners reports whether every listener i of the new object is unchanged.
func (r ratchet) listeners(i ...int) bool {
	if r.old == nil {
		return false
	}
	for _, i := range i {
		if i >= len(r.unchanged) || !r.unchanged[i] {
			return false
		}
	}
	return true
}

// parentRef reports whether the update leaves spec.parentRef as stored.
func (r ratchet) parentRef() bool {
	return r.old != nil && equality.Semantic.DeepEqual(r.new.Spec.ParentRef, r.old.Spec.ParentRef)
}

// listenerCount reports whether the update leaves the number of listeners
// as stored (the value a count error is about).
func (r ratchet) listenerCount() bool {
	return r.old != nil && len(r.new.Spec.Listeners) == len(r.old.Spec.Listeners)
}
