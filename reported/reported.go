package reported

import (
	"fmt"

	"github.com/airlock/listenerset-webhook/validation"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// State is a listener's state as its status reports it, in the words of
// validation.ListenerState where the two have the same meaning.
type State string

// States a status can report.
const (
	// Accepted: Accepted=True, and not Conflicted.
	Accepted State = State(validation.ListenerAccepted)
	// Conflicted: Conflicted=True (Reason ProtocolConflict or
	// HostnameConflict).
	Conflicted State = State(validation.ListenerConflicted)
	// NotAllowed: the ListenerSet's Accepted=False, reason NotAllowed.
	NotAllowed State = State(validation.ListenerNotAllowed)
	// UnsupportedProtocol: the listener's Accepted=False, reason
	// UnsupportedProtocol.
	UnsupportedProtocol State = State(validation.ListenerUnsupportedProtocol)
	// NotAccepted: Accepted=False for another reason (Reason says which):
	// the listener's own, or its object's (ParentNotAccepted, Invalid,
	// ListenersNotValid without a listener entry).
	NotAccepted State = "NotAccepted"
	// Pending: the status exists and says the controller has not decided
	// (Accepted Unknown, the CRD's default "Waiting for controller").
	Pending State = "Pending"
	// None: nothing reported: no listener entry and no decisive condition
	// on the object.
	None State = ""
)

// Listener is what a status says of one listener.
type Listener struct {
	State State `json:"state"`
	// Reason and Message are the deciding condition's (Conflicted's for
	// Conflicted, Accepted's otherwise), as the controller wrote them.
	Reason  string `json:"reason"`
	Message string `json:"message"`
	// AttachedRoutes is the listener entry's attachedRoutes; null without
	// an entry.
	AttachedRoutes *int32 `json:"attachedRoutes"`
	// Conditions are the listener entry's conditions that say something
	// is wrong: a positive-polarity condition (Accepted, Programmed,
	// ResolvedRefs) not True, or a negative one (Conflicted,
	// OverlappingTLSConfig) True; as "Type=Status/Reason".
	Conditions []string `json:"conditions"`
	// Stale says the status was written for an older generation of the
	// object than the one stored (observedGeneration below
	// metadata.generation): the controller has not caught up.
	Stale bool `json:"stale,omitempty"`
	// ObservedGeneration is the deciding condition's, Generation the
	// object's.
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	Generation         int64 `json:"generation,omitempty"`
}

// OfListenerSet is what ls's status says of its listener name.
func OfListenerSet(ls *gwv1.ListenerSet, name gwv1.SectionName) Listener {
	var entry *gwv1.ListenerEntryStatus
	for i := range ls.Status.Listeners {
		if ls.Status.Listeners[i].Name == name {
			entry = &ls.Status.Listeners[i]
			break
		}
	}
	r := Listener{Generation: ls.Generation}
	if entry != nil {
		r.fromEntry(entry.Conditions, entry.AttachedRoutes)
	}
	return r.withObject(ls.Status.Conditions)
}

// OfGateway is what gw's status says of its own listener name.
func OfGateway(gw *gwv1.Gateway, name gwv1.SectionName) Listener {
	r := Listener{Generation: gw.Generation}
	for i := range gw.Status.Listeners {
		if e := &gw.Status.Listeners[i]; e.Name == name {
			r.fromEntry(e.Conditions, e.AttachedRoutes)
			break
		}
	}
	return r.withObject(gw.Status.Conditions)
}

// fromEntry reads a listener entry's conditions.
func (r *Listener) fromEntry(conds []metav1.Condition, attached int32) {
	r.AttachedRoutes = &attached
	r.Conditions = []string{}
	for _, c := range conds {
		if wrong(c) {
			r.Conditions = append(r.Conditions, fmt.Sprintf("%s=%s/%s", c.Type, c.Status, c.Reason))
		}
	}
	accepted := meta.FindStatusCondition(conds, string(gwv1.ListenerConditionAccepted))
	conflicted := meta.FindStatusCondition(conds, string(gwv1.ListenerConditionConflicted))
	switch {
	case conflicted != nil && conflicted.Status == metav1.ConditionTrue:
		r.set(Conflicted, conflicted)
	case accepted == nil:
		r.State = Pending
	case accepted.Status == metav1.ConditionTrue:
		r.set(Accepted, accepted)
	case accepted.Status == metav1.ConditionFalse && accepted.Reason == string(gwv1.ListenerReasonUnsupportedProtocol):
		r.set(UnsupportedProtocol, accepted)
	case accepted.Status == metav1.ConditionFalse:
		r.set(NotAccepted, accepted)
	default:
		r.set(Pending, accepted)
	}
}

// withObject applies the object's Accepted condition: a ListenerSet the
// Gateway does not admit, or whose parent is not accepted, has no
// accepted listener whatever its entries say; an object the controller has
// not decided on is Pending where no entry says more.
func (r Listener) withObject(conds []metav1.Condition) Listener {
	accepted := meta.FindStatusCondition(conds, string(gwv1.ListenerSetConditionAccepted))
	switch {
	case accepted == nil:
	case accepted.Status == metav1.ConditionFalse && accepted.Reason == string(gwv1.ListenerSetReasonNotAllowed):
		r.set(NotAllowed, accepted)
	case accepted.Status == metav1.ConditionFalse && accepted.Reason == string(gwv1.ListenerSetReasonParentNotAccepted):
		r.set(NotAccepted, accepted)
	case r.State != None && r.State != Pending:
		// The entry decides.
	case accepted.Status == metav1.ConditionFalse:
		r.set(NotAccepted, accepted)
	case accepted.Status == metav1.ConditionUnknown:
		r.set(Pending, accepted)
	}
	if r.ObservedGeneration != 0 && r.ObservedGeneration < r.Generation {
		r.Stale = true
	}
	return r
}

func (r *Listener) set(s State, c *metav1.Condition) {
	r.State, r.Reason, r.Message, r.ObservedGeneration = s, c.Reason, c.Message, c.ObservedGeneration
}

// wrong tells whether a listener condition says something is wrong.
func wrong(c metav1.Condition) bool {
	switch gwv1.ListenerConditionType(c.Type) {
	case gwv1.ListenerConditionConflicted, gwv1.ListenerConditionOverlappingTLSConfig:
		return c.Status == metav1.ConditionTrue
	}
	return c.Status != metav1.ConditionTrue
}

// Kind says how a prediction and a report differ.
type Kind string

const (
	// NotReported: nothing reported for the listener, only Pending, or a
	// status written for an older generation.
	NotReported Kind = "NotReported"
	// Differs: the status reports another state (or, for a listener both
	// call Accepted, another attachedRoutes) than predicted.
	Differs Kind = "Differs"
)

// Difference is where a report and a prediction part.
type Difference struct {
	Kind Kind `json:"kind"`
	// Detail says what differs, e.g. "predicted Accepted, reported
	// Conflicted (HostnameConflict)".
	Detail string `json:"detail"`
}

// Prediction is what the merged list says of a listener.
type Prediction struct {
	State  validation.ListenerState
	Reason string
	// AttachedRoutes is the routes predicted to attach; nil when not
	// computed (a Gateway's own listener, routes not read).
	AttachedRoutes *int
}

// Compare tells where r differs from p; nil when they agree, or when p
// cannot be compared (Unknown: the prediction itself could not tell).
func Compare(p Prediction, r Listener) *Difference {
	switch {
	case p.State == validation.ListenerUnknown:
		return nil
	case r.State == None:
		return &Difference{Kind: NotReported, Detail: "nothing reported"}
	case r.State == Pending:
		return &Difference{Kind: NotReported, Detail: "reported Pending" + reason(r.Reason)}
	case r.Stale:
		return &Difference{Kind: NotReported, Detail: fmt.Sprintf("reported for generation %d, the object is at %d", r.ObservedGeneration, r.Generation)}
	}
	if !agree(p, r) {
		return &Difference{Kind: Differs, Detail: fmt.Sprintf("predicted %s%s, reported %s%s", p.State, reason(predictedReason(p)), r.State, reason(r.Reason))}
	}
	if p.State == validation.ListenerAccepted && p.AttachedRoutes != nil && r.AttachedRoutes != nil && int64(*p.AttachedRoutes) != int64(*r.AttachedRoutes) {
		return &Difference{Kind: Differs, Detail: fmt.Sprintf("predicted %d attached routes, reported %d", *p.AttachedRoutes, *r.AttachedRoutes)}
	}
	return nil
}

// agree tells whether a reported state is the one predicted: the same
// state, and for Conflicted the same reason. Invalid (the webhook's own
// rules refuse the set) agrees with any state but Accepted: what a
// controller calls an invalid listener is its own choice of reason.
func agree(p Prediction, r Listener) bool {
	switch p.State {
	case validation.ListenerConflicted:
		return r.State == Conflicted && r.Reason == p.Reason
	case validation.ListenerInvalid:
		return r.State != Accepted
	}
	return string(r.State) == string(p.State)
}

// predictedReason is the reason a prediction names in a detail: a
// Conflicted one's, the one a status would carry.
func predictedReason(p Prediction) string {
	if p.State == validation.ListenerConflicted {
		return p.Reason
	}
	return ""
}

func reason(s string) string {
	if s == "" {
		return ""
	}
	return " (" + s + ")"
}
