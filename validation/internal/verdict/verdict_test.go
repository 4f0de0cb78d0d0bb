package verdict

import (
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

func set(listeners ...gwv1.ListenerEntry) *gwv1.ListenerSet {
	return &gwv1.ListenerSet{Spec: gwv1.ListenerSetSpec{Listeners: listeners}}
}

func listener(name string, port gwv1.PortNumber) gwv1.ListenerEntry {
	return gwv1.ListenerEntry{Name: gwv1.SectionName(name), Port: port, Protocol: gwv1.HTTPProtocolType}
}

var port Value = func(l *gwv1.ListenerEntry) any { return l.Port }

// TestRatchetPairsByName: the k-th listener of a name is paired with the
// k-th stored one of that name, whatever their positions; a create pairs
// nothing, and neither does a name the stored object lacks.
func TestRatchetPairsByName(t *testing.T) {
	stored := set(listener("a", 80), listener("b", 81), listener("a", 82))
	updated := set(listener("b", 81), listener("a", 80), listener("c", 83), listener("a", 99))
	r := NewRatchet(updated, stored)
	for i, want := range []bool{true, true, false, false} {
		if got := r.Same(i, port); got != want {
			t.Errorf("listener %d (%s): Same = %v, want %v", i, updated.Spec.Listeners[i].Name, got, want)
		}
	}
	// the second "a" is paired with the second stored "a" (port 82), not 80
	if !NewRatchet(set(listener("a", 80), listener("a", 82)), stored).Same(1, port) {
		t.Error("the second listener a is not paired with the second stored a")
	}
	if create := NewRatchet(updated, nil); create.Same(0) {
		t.Error("a create pairs a listener")
	}
	if !r.Same(1) || r.Same(2) {
		t.Error("Same without values must say whether the listener is paired")
	}
}

// TestCheckRatchetsWhatIsAsStored: an error whose values are as stored is
// a Ratcheted warning, after the phase's own warnings; any other an error.
func TestCheckRatchetsWhatIsAsStored(t *testing.T) {
	stored := set(listener("a", 80), listener("b", 81))
	v := &Verdict{Ratchet: NewRatchet(set(listener("a", 80), listener("b", 90)), stored)}
	errAt := func(i int) field.ErrorList {
		return field.ErrorList{field.Invalid(field.NewPath("spec", "listeners").Index(i).Child("port"), i, "bad")}
	}
	v.Check(0, errAt(0), port)
	v.Check(1, errAt(1), port)
	v.Check(1, nil, port)
	v.Warnings.Addf(field.NewPath("spec"), "Own", "", "own warning")
	v.EndPhase()
	if errs := v.Errs.List(); len(errs) != 1 || errs[0].Field != "spec.listeners[1].port" {
		t.Errorf("errors: %v, want the changed listener b's only", errs)
	}
	warnings := v.Warnings.List()
	if len(warnings) != 2 || warnings[0].Kind != "Own" || warnings[1].Kind != KindRatcheted {
		t.Fatalf("warnings: %+v, want the phase's own, then listener a's Ratcheted", warnings)
	}
}
