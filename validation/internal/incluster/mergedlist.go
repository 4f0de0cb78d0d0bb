package incluster

import (
	"fmt"
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/util/validation/field"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/validation/internal/object"
	"github.com/airlock/listenerset-webhook/validation/internal/verdict"
	"github.com/airlock/listenerset-webhook/validation/internal/views"
)

// MergeOptions say what MergedListeners may look at besides the objects.
type MergeOptions struct {
	// Cluster answers namespace labels for allowedListeners.namespaces.from
	// Selector; nil knows none.
	Cluster views.Cluster
	// JudgeSets marks the ListenerSets that fail their own rules (Validate
	// without a cluster) Invalid; they take no place in the list, since the
	// webhook would never store them. Without it every set is taken as
	// valid, as the cluster-aware rules take the stored rivals of the
	// ListenerSet under admission (the webhook admitted them).
	JudgeSets bool
	// Tenancy, when set, gives each ListenerSet listener its Owner and
	// its claims across owners (HeldBy, OverlappedBy), read from
	// Cluster's namespace labels.
	Tenancy *Tenancy
}

// MergedListeners is Gateway gw's merged listener list as Gateway API says
// an implementation must build it, each listener with its state: gw's own
// listeners, then the listeners of sets (gw's ListenerSets, those whose
// ParentKey is gw's GatewayKey; any order) oldest first, then by
// "namespace/name"; a set without a creation time (not created yet) comes
// after every created one. The cluster-aware rules judge a ListenerSet
// under admission by its rows of the same list, so the listing and the
// verdict cannot differ.
func MergedListeners(gw *gwv1.Gateway, sets []*gwv1.ListenerSet, opts MergeOptions) []MergedListener {
	c := opts.Cluster
	if c == nil {
		c = &Objects{}
	}
	var rows []MergedListener
	var from []*gwv1.ListenerSet // each row's set, nil for the Gateway's own
	mergeListeners(gw, sets, NewGatewayAdmission(gw, c), opts.JudgeSets, func(row MergedListener, ls *gwv1.ListenerSet) bool {
		rows = append(rows, row)
		from = append(from, ls)
		return true
	})
	markOverlaps(rows)
	if opts.Tenancy != nil {
		markClaims(gw.Namespace, gw.Name, rows, arrivalOrder(gw, rows, from), newOwners(*opts.Tenancy, c.NamespaceLabels))
	}
	return rows
}

// arrivalOrder is the order in which the rows' sets came to gw, as far as
// their metadata tells (ArrivalOf's From: a set moved here later by a
// `kubectl patch` of its parentRef comes after the sets that were here),
// then the merged list's (precedence): the order claims are held in, as
// the first-claim rule judges them.
func arrivalOrder(gw *gwv1.Gateway, rows []MergedListener, from []*gwv1.ListenerSet) []int {
	order := make([]int, len(rows))
	at := make([]time.Time, len(rows))
	for i := range rows {
		order[i] = i
		if from[i] != nil {
			at[i] = ArrivalOf(from[i]).From
		}
	}
	slices.SortStableFunc(order, func(a, b int) int { return at[a].Compare(at[b]) })
	return order
}

// mergeListeners builds gw's merged list and hands each row, with the set
// it comes from (nil for the Gateway's own), to emit in precedence order,
// until emit returns false.
func mergeListeners(gw *gwv1.Gateway, sets []*gwv1.ListenerSet, admission *GatewayAdmission, judge bool,
	emit func(MergedListener, *gwv1.ListenerSet) bool) {
	// Sized once for every listener there is: growing them listener by
	// listener was 63 of the 146 KB a request with 100 rivals allocated
	// (BenchmarkValidateInCluster).
	size := len(gw.Spec.Listeners)
	for _, ls := range sets {
		size += len(ls.Spec.Listeners)
	}
	m := object.Merge{OnPort: make(map[gwv1.PortNumber]object.Place, size), At: make(map[object.Endpoint]object.Place, size)}
	n := 0
	listenersPath := field.NewPath("spec", "listeners")
	// place judges one listener against the list so far and, when it is
	// compatible, appends it.
	place := func(row MergedListener) MergedListener {
		if !object.ServedProtocol(row.Protocol) {
			return unsupported(row, listenersPath)
		}
		// Most listeners are compatible: the path and the error are built
		// only for one that is not.
		if _, _, lost := m.Loses(row.Port, row.Protocol, row.Hostname); lost {
			err, reason, winner := m.Conflict(row.Port, row.Protocol, row.Hostname, listenersPath.Index(row.Index), object.MergedConflicts)
			row.State, row.Reason, row.Errors = ListenerConflicted, reason, field.ErrorList{err}
			row.Winner = &winner.Ref
			return row
		}
		m.Take(row.Port, row.Protocol, row.Hostname, object.Place{Ref: row.ListenerRef, Index: -1})
		row.State = ListenerAccepted
		return row
	}
	src := object.ListenerSource{Kind: object.SourceGateway, Namespace: gw.Namespace, Name: gw.Name}
	reasons, rivals := gatewayConflicts(gw)
	for i := range gw.Spec.Listeners {
		l := &gw.Spec.Listeners[i]
		n++
		row := MergedListener{Precedence: n, ListenerRef: object.ListenerRef{Source: src, Listener: l.Name}, Index: i,
			Port: l.Port, Protocol: l.Protocol, Hostname: l.Hostname}
		switch {
		case !object.ServedProtocol(l.Protocol):
			row = unsupported(row, listenersPath)
		case reasons[i] != "":
			rival := &gw.Spec.Listeners[rivals[i]]
			row.State, row.Reason = ListenerConflicted, reasons[i]
			row.Errors = field.ErrorList{indistinctError(l, rival, reasons[i], object.Place{Ref: object.ListenerRef{Source: src, Listener: rival.Name}}, listenersPath.Index(i))}
			m.HoldIndistinct(l.Port, l.Protocol, l.Hostname, object.Place{Ref: row.ListenerRef, Index: -1})
		default:
			row.State = ListenerAccepted
			m.HoldIndistinct(l.Port, l.Protocol, l.Hostname, object.Place{Ref: row.ListenerRef, Index: -1})
		}
		if !emit(row, nil) {
			return
		}
	}
	ordered := slices.Clone(sets)
	slices.SortStableFunc(ordered, ComparePrecedence)
	for _, ls := range ordered {
		src := object.ListenerSource{Kind: object.SourceListenerSet, Namespace: ls.Namespace, Name: ls.Name}
		// What keeps the whole set out of the list, if anything.
		var state ListenerState
		var reason string
		var errs field.ErrorList
		if judge {
			if errs = objectErrors(ls); len(errs) > 0 {
				state = ListenerInvalid
			}
		}
		if state == "" {
			switch allowed, known, setting := admission.admitsSetting(ls.Namespace); {
			case !known:
				state, reason = ListenerUnknown, setting
			case !allowed:
				state, reason = ListenerNotAllowed, setting
			}
		}
		for i := range ls.Spec.Listeners {
			l := &ls.Spec.Listeners[i]
			n++
			row := MergedListener{Precedence: n, ListenerRef: object.ListenerRef{Source: src, Listener: l.Name}, Index: i,
				Port: l.Port, Protocol: l.Protocol, Hostname: l.Hostname}
			if state != "" {
				row.State, row.Reason, row.Errors = state, reason, errs
			} else {
				row = place(row)
			}
			if !emit(row, ls) {
				return
			}
		}
	}
}

// unsupported is row of a listener whose protocol Airlock does not serve:
// UnsupportedProtocol, with the protocol's error at its path in its object.
func unsupported(row MergedListener, listenersPath *field.Path) MergedListener {
	row.State, row.Reason = ListenerUnsupportedProtocol, ReasonServedProtocols
	row.Errors = object.ValidateProtocol(row.Protocol, listenersPath.Index(row.Index).Child("protocol"))
	return row
}

// indistinctError is the error of a Gateway's own listener l (at fldPath)
// indistinct from another of the Gateway's, rival (named by c), for reason.
func indistinctError(l, rival *gwv1.Listener, reason string, c object.Place, fldPath *field.Path) *field.Error {
	if reason == object.ReasonProtocolConflict {
		return object.MergedConflicts.Protocol.Err(field.Invalid(fldPath.Child("protocol"), string(l.Protocol),
			fmt.Sprintf(detailIndistinctProtocol, l.Port, rival.Protocol, c)))
	}
	return object.MergedConflicts.Hostname.Err(field.Invalid(fldPath.Child("hostname"), string(object.EndpointOf(l.Port, l.Protocol, l.Hostname).Hostname),
		fmt.Sprintf(detailIndistinctHostname, c)))
}

// objectErrors are ls's errors under its own rules alone, as Validate gives
// them without a cluster: a set the webhook would never store takes no
// place in the merged list.
func objectErrors(ls *gwv1.ListenerSet) field.ErrorList {
	v := &verdict.Verdict{Ratchet: verdict.NewRatchet(object.Defaulted(ls), nil)}
	object.ValidateSpec(v.Ratchet.New, nil, nil, field.NewPath("spec"), v)
	v.EndPhase()
	return v.Errs.List()
}
