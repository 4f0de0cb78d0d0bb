package incluster

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/validation/internal/object"
)

// The merged-list model: what MergedListeners builds and the listing, why
// and the cluster-aware rules read.

// ListenerState is what becomes of a listener in its Gateway's merged list.
type ListenerState string

// States of a merged listener.
const (
	// ListenerAccepted: the listener holds its port, protocol and hostname.
	ListenerAccepted ListenerState = "Accepted"
	// ListenerConflicted: an earlier listener wins (Reason says why, Winner
	// which); Gateway API's Conflicted=True.
	ListenerConflicted ListenerState = "Conflicted"
	// ListenerNotAllowed: the Gateway's allowedListeners does not admit the
	// ListenerSet (Reason names the setting); Gateway API's
	// Accepted=False, reason NotAllowed.
	ListenerNotAllowed ListenerState = "NotAllowed"
	// ListenerInvalid: the ListenerSet fails its own rules (Errors); the
	// webhook would deny it, so it never takes a place in the list.
	ListenerInvalid ListenerState = "Invalid"
	// ListenerUnknown: whether the Gateway admits the ListenerSet cannot be
	// told (its namespace's labels are unknown, or the selector does not
	// parse); it takes no place, as the cluster-aware rules then skip it.
	ListenerUnknown ListenerState = "Unknown"
	// ListenerUnsupportedProtocol: Airlock Microgateway does not serve the
	// listener's protocol (servedProtocol); Gateway API's Accepted=False,
	// reason UnsupportedProtocol. It takes no place: it holds no port and
	// conflicts with nothing.
	ListenerUnsupportedProtocol ListenerState = "UnsupportedProtocol"
)

// ReasonServedProtocols is an UnsupportedProtocol listener's Reason: what
// Airlock serves instead.
var ReasonServedProtocols = func() string {
	names := make([]string, len(object.SupportedProtocols))
	for i, p := range object.SupportedProtocols {
		names[i] = string(p)
	}
	return "Airlock serves " + strings.Join(names, ", ")
}()

// MergedListener is one listener of a Gateway's merged list, in precedence
// order, with what becomes of it.
type MergedListener struct {
	// Precedence is the listener's place in the merged list, from 1: the
	// Gateway's own listeners, then each ListenerSet's, the sets in
	// Gateway API's order (oldest first, then "namespace/name"). Listeners
	// that take no place (NotAllowed, Invalid, Unknown) are numbered too,
	// where their set stands.
	Precedence int
	object.ListenerRef
	// Index is the listener's position in its object's spec.listeners, for
	// messages only.
	Index    int
	Port     gwv1.PortNumber
	Protocol gwv1.ProtocolType
	// Hostname is nil when the listener matches every hostname.
	Hostname *gwv1.Hostname
	State    ListenerState
	// Reason is, for Conflicted, object.ReasonProtocolConflict or
	// object.ReasonHostnameConflict; for NotAllowed, the Gateway's setting that
	// refuses the set (e.g. "allowedListeners.namespaces.from: Same"); for
	// Unknown, what is unknown; for UnsupportedProtocol,
	// ReasonServedProtocols; empty otherwise.
	Reason string
	// Winner is the listener a Conflicted one loses to; nil for a
	// Gateway's own listener Conflicted with another of the Gateway's
	// (none of them wins; Errors names the other).
	Winner *object.ListenerRef
	// Overlaps is, for an Accepted HTTPS or HTTP/3 listener, the first
	// listener on its port (in precedence order) whose hostname overlaps
	// its own, of another object if there is one, else of its own:
	// Gateway API's OverlappingTLSConfig, reason OverlappingHostnames
	// (overlap.go), which the other listener has too. nil when none.
	Overlaps *object.ListenerRef
	// OverlapsHostname is that listener's hostname (nil: none).
	OverlapsHostname *gwv1.Hostname
	// Owner is, with MergeOptions.Tenancy, who owns a ListenerSet's
	// listener (Tenancy.OwnerOf); nil for a Gateway's own listener (the
	// platform's) and where the owner is unknown.
	Owner *Owner
	// HeldBy is, with MergeOptions.Tenancy, the first listener before this
	// one, on any port, of another owner whose hostname overlaps this
	// one's: the first claim keeps the name, and the webhook's first-claim
	// rule flags this listener (validateFirstClaims). OverlappedBy is the
	// first listener after it of another owner whose hostname overlaps:
	// it holds the name, the other is flagged. nil when none.
	HeldBy, OverlappedBy *Claim
	// Errors are, for Conflicted, the error the cluster-aware rule gives the
	// listener (with its path in its object); for Invalid, the set's own
	// errors (Validate without a cluster); for UnsupportedProtocol, the
	// protocol's error.
	Errors field.ErrorList
}

// Owner is who a ListenerSet's listeners belong to: its namespace, or the
// tenant its namespace's tenant label names.
type Owner struct {
	// Tenant is true when Name is a tenant label's value, false when it is
	// a namespace.
	Tenant bool
	Name   string
}

// String names the owner as messages do: namespace "team-a", tenant "acme".
func (o Owner) String() string {
	if o.Tenant {
		return fmt.Sprintf("tenant %q", o.Name)
	}
	return fmt.Sprintf("namespace %q", o.Name)
}

// Claim is another owner's listener whose claimed hostname overlaps a
// merged listener's.
type Claim struct {
	object.ListenerRef
	Hostname gwv1.Hostname
	Owner    Owner
}

// gatewayConflicts are, for each of gw's own listeners, the reason it is
// indistinct from another of gw's (object.ReasonProtocolConflict: another protocol
// on its port; object.ReasonHostnameConflict: the same port, protocol and
// hostname) and the index of that other one (the first on the port with
// another protocol; else the first other at its endpoint); "" and -1 when
// it is distinct. Conflicts are mutual: none of them wins. Listeners of a
// protocol Airlock does not serve take no part. Linear in gw's listeners.
func gatewayConflicts(gw *gwv1.Gateway) (reasons []string, rivals []int) {
	ls := gw.Spec.Listeners
	reasons, rivals = make([]string, len(ls)), make([]int, len(ls))
	first, other := map[gwv1.PortNumber]int{}, map[gwv1.PortNumber]int{}
	at := map[object.Endpoint][]int{} // the first two at each endpoint
	for i := range ls {
		l := &ls[i]
		rivals[i] = -1
		if !object.ServedProtocol(l.Protocol) {
			continue
		}
		if f, ok := first[l.Port]; !ok {
			first[l.Port] = i
		} else if _, ok := other[l.Port]; !ok && ls[f].Protocol != l.Protocol {
			other[l.Port] = i
		}
		if e := object.EndpointOf(l.Port, l.Protocol, l.Hostname); len(at[e]) < 2 {
			at[e] = append(at[e], i)
		}
	}
	for i := range ls {
		l := &ls[i]
		if !object.ServedProtocol(l.Protocol) {
			continue
		}
		f := first[l.Port]
		o, mixed := other[l.Port]
		switch same := at[object.EndpointOf(l.Port, l.Protocol, l.Hostname)]; {
		case ls[f].Protocol != l.Protocol:
			reasons[i], rivals[i] = object.ReasonProtocolConflict, f
		case mixed:
			reasons[i], rivals[i] = object.ReasonProtocolConflict, o
		case len(same) == 2:
			reasons[i], rivals[i] = object.ReasonHostnameConflict, same[0]
			if same[0] == i {
				rivals[i] = same[1]
			}
		}
	}
	return reasons, rivals
}

// markOverlaps sets each Accepted TLS row's Overlaps: the first listener of
// another object whose hostname overlaps its own on its port, else the
// first of its own object.
func markOverlaps(rows []MergedListener) {
	at := func(i int) (object.Endpoint, bool) {
		r := &rows[i]
		return object.EndpointOf(r.Port, r.Protocol, r.Hostname), r.State == ListenerAccepted && object.TerminatesTLS(r.Protocol)
	}
	other := object.FirstOverlaps(len(rows), at, func(i, j int) bool { return rows[i].Source != rows[j].Source })
	own := object.FirstOverlaps(len(rows), at, func(i, j int) bool { return rows[i].Source == rows[j].Source })
	for i := range rows {
		j := other[i]
		if j < 0 {
			j = own[i]
		}
		if j >= 0 {
			ref := rows[j].ListenerRef
			rows[i].Overlaps = &ref
			rows[i].OverlapsHostname = rows[j].Hostname
		}
	}
}
