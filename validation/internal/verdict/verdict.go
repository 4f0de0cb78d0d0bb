package verdict

import (
	"reflect"

	"k8s.io/apimachinery/pkg/util/validation/field"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/findings"
)

// Verdict collects what the rules find. Rules that may ratchet hand their
// errors to judge with whether what the errors involve is unchanged.
type Verdict struct {
	Ratchet  Ratchet
	Errs     findings.ErrorReport
	Warnings findings.WarningReport
	// ratcheted are the phase's let-through errors; they follow the
	// phase's own warnings.
	ratcheted findings.WarningReport
}

// Judge records errs: as errors, or as KindRatcheted warnings when unchanged
// says the update leaves everything they involve as stored.
func (v *Verdict) Judge(unchanged bool, errs ...*field.Error) {
	if !unchanged {
		v.Errs.Add(errs...)
		return
	}
	v.ratcheted.AddErrors(KindRatcheted, WarnRatcheted, errs)
}

// EndPhase puts the phase's ratcheted errors after its warnings.
func (v *Verdict) EndPhase() {
	v.Warnings.AddReport(&v.ratcheted)
	v.ratcheted = findings.WarningReport{}
}

// Ratchet pairs an update's listeners with the stored ones by name, so that
// each error is judged by the values it involves.
type Ratchet struct {
	New, Old *gwv1.ListenerSet
	// stored[i] is the stored listener new listener i is paired with; nil
	// when it has none (a create, or a name the stored object lacks).
	stored []*gwv1.ListenerEntry
}

// NewRatchet pairs the k-th listener named n of newLS with the k-th listener
// named n of oldLS: names are unique in a valid set, and counting keeps a
// copy of a stored listener from passing as unchanged twice. On create
// (oldLS nil) nothing is paired.
func NewRatchet(newLS, oldLS *gwv1.ListenerSet) Ratchet {
	r := Ratchet{New: newLS, Old: oldLS}
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
type Value = func(*gwv1.ListenerEntry) any

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

// Same reports whether new listener i has a stored pair holding the values
// it holds. With no values it reports whether i is paired: its name, the
// key it is paired by, is as stored.
func (r Ratchet) Same(i int, values ...Value) bool {
	if i >= len(r.stored) {
		return false
	}
	return unchanged(&r.New.Spec.Listeners[i], r.stored[i], values...)
}

// Check records errs of new listener i, ratcheted when its stored pair holds
// every value they involve. Nothing is compared when there is no error.
func (v *Verdict) Check(i int, errs field.ErrorList, values ...Value) {
	if len(errs) > 0 {
		v.Judge(v.Ratchet.Same(i, values...), errs...)
	}
}

// ParentRef reports whether the update leaves the values of spec.parentRef
// as stored.
func (r Ratchet) ParentRef(values ...func(*gwv1.ParentGatewayReference) any) bool {
	if r.Old == nil {
		return false
	}
	return unchanged(&r.New.Spec.ParentRef, &r.Old.Spec.ParentRef, values...)
}

// ListenerList reports whether the update leaves spec.listeners as stored,
// as Kubernetes compares a map list: the same number of items, each equal
// to the stored item of its key, in any order. A count error is about the
// list.
func (r Ratchet) ListenerList() bool {
	if r.Old == nil || len(r.New.Spec.Listeners) != len(r.Old.Spec.Listeners) {
		return false
	}
	for i := range r.New.Spec.Listeners {
		if !r.Same(i, func(l *gwv1.ListenerEntry) any { return l }) {
			return false
		}
	}
	return true
}

// KindRatcheted is the warning kind of an error the update leaves
// unchanged (see validation.Validate); it has no code of its own: such a
// warning carries the code of the error it was.
const KindRatcheted findings.WarningKind = "Ratcheted"

// WarnRatcheted wraps the body of an error that the update leaves
// unchanged: it is let through, but it still needs fixing.
const WarnRatcheted = "%s (already stored; allowed because unchanged)"
