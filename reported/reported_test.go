package reported

import (
	"testing"

	"github.com/airlock/listenerset-webhook/validation"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

func cond(t string, s metav1.ConditionStatus, reason string, gen int64) metav1.Condition {
	return metav1.Condition{Type: t, Status: s, Reason: reason, Message: reason + " message", ObservedGeneration: gen}
}

// set is a ListenerSet at generation 2 whose status has the object
// conditions objConds and, unless entry is nil, an entry for listener
// "web" with conds.
func set(objConds []metav1.Condition, entry []metav1.Condition, attached int32) *gwv1.ListenerSet {
	ls := &gwv1.ListenerSet{}
	ls.Generation = 2
	ls.Status.Conditions = objConds
	if entry != nil {
		ls.Status.Listeners = []gwv1.ListenerEntryStatus{
			{Name: "other", Conditions: []metav1.Condition{cond("Accepted", metav1.ConditionFalse, "PortUnavailable", 2)}},
			{Name: "web", Conditions: entry, AttachedRoutes: attached},
		}
	}
	return ls
}

func TestOfListenerSet(t *testing.T) {
	accepted := cond("Accepted", metav1.ConditionTrue, "Accepted", 2)
	tests := []struct {
		name       string
		ls         *gwv1.ListenerSet
		state      State
		reason     string
		stale      bool
		conditions []string
	}{
		{"no status", set(nil, nil, 0), None, "", false, nil},
		{"the CRD's default", set([]metav1.Condition{cond("Accepted", metav1.ConditionUnknown, "Pending", 0)}, nil, 0), Pending, "Pending", false, nil},
		{"accepted", set([]metav1.Condition{accepted}, []metav1.Condition{accepted}, 1), Accepted, "Accepted", false, []string{}},
		{"conflicted wins over accepted", set([]metav1.Condition{accepted}, []metav1.Condition{accepted, cond("Conflicted", metav1.ConditionTrue, "HostnameConflict", 2)}, 0),
			Conflicted, "HostnameConflict", false, []string{"Conflicted=True/HostnameConflict"}},
		{"unsupported protocol", set(nil, []metav1.Condition{cond("Accepted", metav1.ConditionFalse, "UnsupportedProtocol", 2)}, 0), UnsupportedProtocol, "UnsupportedProtocol", false,
			[]string{"Accepted=False/UnsupportedProtocol"}},
		{"not accepted for another reason", set(nil, []metav1.Condition{cond("Accepted", metav1.ConditionFalse, "PortUnavailable", 2)}, 0), NotAccepted, "PortUnavailable", false,
			[]string{"Accepted=False/PortUnavailable"}},
		{"not allowed overrides the entry", set([]metav1.Condition{cond("Accepted", metav1.ConditionFalse, "NotAllowed", 2)}, []metav1.Condition{accepted}, 0), NotAllowed, "NotAllowed", false, []string{}},
		{"parent not accepted overrides the entry", set([]metav1.Condition{cond("Accepted", metav1.ConditionFalse, "ParentNotAccepted", 2)}, []metav1.Condition{accepted}, 0),
			NotAccepted, "ParentNotAccepted", false, []string{}},
		{"set invalid, no entry", set([]metav1.Condition{cond("Accepted", metav1.ConditionFalse, "ListenersNotValid", 2)}, nil, 0), NotAccepted, "ListenersNotValid", false, nil},
		{"set invalid, the entry decides", set([]metav1.Condition{cond("Accepted", metav1.ConditionFalse, "ListenersNotValid", 2)}, []metav1.Condition{accepted}, 0), Accepted, "Accepted", false, []string{}},
		{"entry without Accepted", set(nil, []metav1.Condition{cond("Programmed", metav1.ConditionFalse, "Pending", 2)}, 0), Pending, "", false, []string{"Programmed=False/Pending"}},
		{"stale", set(nil, []metav1.Condition{cond("Accepted", metav1.ConditionTrue, "Accepted", 1)}, 0), Accepted, "Accepted", true, []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := OfListenerSet(tt.ls, "web")
			if r.State != tt.state || r.Reason != tt.reason || r.Stale != tt.stale {
				t.Errorf("got state %q reason %q stale %v, want %q %q %v", r.State, r.Reason, r.Stale, tt.state, tt.reason, tt.stale)
			}
			if len(r.Conditions) != len(tt.conditions) || (tt.conditions == nil) != (r.Conditions == nil) {
				t.Fatalf("conditions %q, want %q", r.Conditions, tt.conditions)
			}
			for i := range r.Conditions {
				if r.Conditions[i] != tt.conditions[i] {
					t.Errorf("conditions %q, want %q", r.Conditions, tt.conditions)
				}
			}
		})
	}
}

func TestOfGateway(t *testing.T) {
	gw := &gwv1.Gateway{}
	gw.Generation = 1
	gw.Status.Listeners = []gwv1.ListenerStatus{{Name: "web", AttachedRoutes: 3,
		Conditions: []metav1.Condition{cond("Accepted", metav1.ConditionTrue, "Accepted", 1), cond("Conflicted", metav1.ConditionTrue, "ProtocolConflict", 1)}}}
	if r := OfGateway(gw, "web"); r.State != Conflicted || r.Reason != "ProtocolConflict" || *r.AttachedRoutes != 3 {
		t.Errorf("got %+v", r)
	}
	if r := OfGateway(gw, "none"); r.State != None || r.AttachedRoutes != nil {
		t.Errorf("a listener without an entry: got %+v", r)
	}
}

func TestCompare(t *testing.T) {
	acc := Listener{State: Accepted, Reason: "Accepted", AttachedRoutes: ptr.To[int32](2)}
	tests := []struct {
		name string
		p    Prediction
		r    Listener
		want *Difference
	}{
		{"agree", Prediction{State: validation.ListenerAccepted, AttachedRoutes: ptr.To(2)}, acc, nil},
		{"routes not computed", Prediction{State: validation.ListenerAccepted}, acc, nil},
		{"routes differ", Prediction{State: validation.ListenerAccepted, AttachedRoutes: ptr.To(1)}, acc, &Difference{Differs, "predicted 1 attached routes, reported 2"}},
		{"nothing reported", Prediction{State: validation.ListenerAccepted}, Listener{}, &Difference{NotReported, "nothing reported"}},
		{"pending", Prediction{State: validation.ListenerAccepted}, Listener{State: Pending, Reason: "Pending"}, &Difference{NotReported, "reported Pending (Pending)"}},
		{"stale", Prediction{State: validation.ListenerAccepted}, Listener{State: Accepted, Stale: true, ObservedGeneration: 1, Generation: 3},
			&Difference{NotReported, "reported for generation 1, the object is at 3"}},
		{"unknown is not compared", Prediction{State: validation.ListenerUnknown}, Listener{}, nil},
		{"conflicted where accepted predicted", Prediction{State: validation.ListenerAccepted}, Listener{State: Conflicted, Reason: "HostnameConflict"},
			&Difference{Differs, "predicted Accepted, reported Conflicted (HostnameConflict)"}},
		{"accepted where conflicted predicted", Prediction{State: validation.ListenerConflicted, Reason: "ProtocolConflict"}, acc,
			&Difference{Differs, "predicted Conflicted (ProtocolConflict), reported Accepted (Accepted)"}},
		{"conflict reasons differ", Prediction{State: validation.ListenerConflicted, Reason: "ProtocolConflict"}, Listener{State: Conflicted, Reason: "HostnameConflict"},
			&Difference{Differs, "predicted Conflicted (ProtocolConflict), reported Conflicted (HostnameConflict)"}},
		{"conflicts agree", Prediction{State: validation.ListenerConflicted, Reason: "HostnameConflict"}, Listener{State: Conflicted, Reason: "HostnameConflict"}, nil},
		{"not allowed agree", Prediction{State: validation.ListenerNotAllowed, Reason: "allowedListeners.namespaces.from: None"}, Listener{State: NotAllowed, Reason: "NotAllowed"}, nil},
		{"invalid agrees with not accepted", Prediction{State: validation.ListenerInvalid}, Listener{State: NotAccepted, Reason: "Invalid"}, nil},
		{"invalid but accepted", Prediction{State: validation.ListenerInvalid}, acc, &Difference{Differs, "predicted Invalid, reported Accepted (Accepted)"}},
		{"unsupported protocol agree", Prediction{State: validation.ListenerUnsupportedProtocol}, Listener{State: UnsupportedProtocol, Reason: "UnsupportedProtocol"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Compare(tt.p, tt.r)
			if (got == nil) != (tt.want == nil) || (got != nil && *got != *tt.want) {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}
