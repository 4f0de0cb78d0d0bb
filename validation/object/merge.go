package object

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/validation/findings"
)

// Gateway API's listener compatibility, the one rule for both the listeners
// of a set and the Gateway's merged listener list (its own listeners, then
// its ListenerSets in precedence order, MergedListeners): in that order the first
// listener wins; a later one on the same port with another protocol is
// Conflicted (ProtocolConflict), one with the same port, protocol and
// hostname too (HostnameConflict).
//
// Two exceptions, from Gateway API's text (docs/listeners.md quotes it):
//   - a listener of a protocol Airlock does not serve (servedProtocol) takes
//     no part: it "will never generate any data plane config", so it holds
//     no port and no other listener conflicts with it;
//   - among the Gateway's own listeners none wins: "The implementation MUST
//     NOT pick one conflicting Listener as the winner. ALL indistinct
//     Listeners must not be accepted for processing." (gatewayConflicts).
//     They still come first in the merged list, so each of them holds its
//     port and endpoint against the ListenerSets (holdIndistinct).

// Reasons of a Conflicted listener, as Gateway API's listener conditions
// name them.
const (
	ReasonProtocolConflict = "ProtocolConflict"
	ReasonHostnameConflict = "HostnameConflict"
)

// Place is a listener that holds its place in a merged list.
type Place struct {
	protocol gwv1.ProtocolType
	// Ref names the listener's object and name; messages name it by
	// owner ("namespace/name") and listener name.
	Ref ListenerRef
	// Index is the listener's position in the ListenerSet under validation,
	// -1 for another object's listener.
	Index int
}

// String names the listener, e.g. "gateway-ns/gw listener https".
func (c Place) String() string { return ListenerName(c.Ref) }

// Endpoint is what two listeners must not share.
type Endpoint struct {
	port     gwv1.PortNumber
	Protocol gwv1.ProtocolType
	Hostname gwv1.Hostname
}

func EndpointOf(port gwv1.PortNumber, protocol gwv1.ProtocolType, hostname *gwv1.Hostname) Endpoint {
	e := Endpoint{port: port, Protocol: protocol}
	if hostname != nil {
		e.Hostname = *hostname
	}
	return e
}

// ServedProtocol tells whether Airlock Microgateway serves protocol p on a
// listener: one of SupportedProtocols. A listener of another protocol
// (TCP, UDP, TLS, another implementation's, or none) takes no place in a
// merged list.
func ServedProtocol(p gwv1.ProtocolType) bool { return slices.Contains(SupportedProtocols, p) }

// Merge is the listeners taken so far, in precedence order. The
// zero value is empty and ready to use.
type Merge struct {
	OnPort map[gwv1.PortNumber]Place
	At     map[Endpoint]Place
	// otherOnPort is, on a port where the Gateway's own listeners have
	// more than one protocol, the first of them whose protocol is not
	// onPort's (holdIndistinct): every later listener on the port is
	// indistinct from one of the two.
	otherOnPort map[gwv1.PortNumber]Place
}

// Take appends a listener to the list; the first claim of a port, and of an
// endpoint, is the one kept.
func (m *Merge) Take(port gwv1.PortNumber, protocol gwv1.ProtocolType, hostname *gwv1.Hostname, c Place) {
	if m.OnPort == nil {
		m.OnPort, m.At = map[gwv1.PortNumber]Place{}, map[Endpoint]Place{}
	}
	c.protocol = protocol
	if _, taken := m.OnPort[port]; !taken {
		m.OnPort[port] = c
	}
	e := EndpointOf(port, protocol, hostname)
	if _, taken := m.At[e]; !taken {
		m.At[e] = c
	}
}

// HoldIndistinct appends a Gateway's own listener that holds its place
// against the ListenerSets whether or not it is Conflicted with another of
// the Gateway's: take, and, on a port the Gateway's listeners give two
// protocols, remember the first of the second one.
func (m *Merge) HoldIndistinct(port gwv1.PortNumber, protocol gwv1.ProtocolType, hostname *gwv1.Hostname, c Place) {
	m.Take(port, protocol, hostname, c)
	if first := m.OnPort[port]; first.protocol != protocol {
		if m.otherOnPort == nil {
			m.otherOnPort = map[gwv1.PortNumber]Place{}
		}
		if _, taken := m.otherOnPort[port]; !taken {
			c.protocol = protocol
			m.otherOnPort[port] = c
		}
	}
}

// Conflict returns the error a listener (at fldPath) gets for coming after
// the listeners taken, its reason (ReasonProtocolConflict or
// ReasonHostnameConflict) and the listener it loses to; nil when it is
// compatible.
func (m *Merge) Conflict(port gwv1.PortNumber, protocol gwv1.ProtocolType, hostname *gwv1.Hostname, fldPath *field.Path, codes conflictCodes) (*field.Error, string, Place) {
	reason, winner, lost := m.Loses(port, protocol, hostname)
	switch {
	case !lost:
		return nil, "", Place{}
	case reason == ReasonProtocolConflict:
		return codes.Protocol.Err(field.Invalid(fldPath.Child("protocol"), string(protocol),
			fmt.Sprintf(DetailProtocolConflict, port, winner.protocol, winner))), reason, winner
	default:
		return codes.Hostname.Err(field.Invalid(fldPath.Child("hostname"), string(EndpointOf(port, protocol, hostname).Hostname),
			fmt.Sprintf(DetailHostnameConflict, winner))), reason, winner
	}
}

// conflictCodes are the codes of a conflict by its reason: one rule, whose
// findings within a set are the object's own errors and those with the
// Gateway's merged list cluster-aware.
type conflictCodes struct{ Protocol, Hostname findings.Code }

var (
	inSetConflicts  = conflictCodes{CodeProtocolConflict, CodeHostnameConflict}
	MergedConflicts = conflictCodes{CodeMergedProtocolConflict, CodeMergedHostnameConflict}
)

// Loses is conflict's decision without the error, which costs a path and a
// message: whether a listener loses to one taken, why, and to which.
func (m *Merge) Loses(port gwv1.PortNumber, protocol gwv1.ProtocolType, hostname *gwv1.Hostname) (reason string, winner Place, lost bool) {
	first, taken := m.OnPort[port]
	if !taken {
		return "", Place{}, false
	}
	if first.protocol != protocol {
		return ReasonProtocolConflict, first, true
	}
	if winner, dup := m.At[EndpointOf(port, protocol, hostname)]; dup {
		return ReasonHostnameConflict, winner, true
	}
	// Checked last, so that a listener the first ones decide keeps its
	// verdict: only one the Gateway's first protocol on the port would
	// have let through conflicts with the Gateway's other one.
	if other, mixed := m.otherOnPort[port]; mixed {
		return ReasonProtocolConflict, other, true
	}
	return "", Place{}, false
}

// GatewayConflicts are, for each of gw's own listeners, the reason it is
// indistinct from another of gw's (ReasonProtocolConflict: another protocol
// on its port; ReasonHostnameConflict: the same port, protocol and
// hostname) and the index of that other one (the first on the port with
// another protocol; else the first other at its endpoint); "" and -1 when
// it is distinct. Conflicts are mutual: none of them wins. Listeners of a
// protocol Airlock does not serve take no part. Linear in gw's listeners.
func GatewayConflicts(gw *gwv1.Gateway) (reasons []string, rivals []int) {
	ls := gw.Spec.Listeners
	reasons, rivals = make([]string, len(ls)), make([]int, len(ls))
	first, other := map[gwv1.PortNumber]int{}, map[gwv1.PortNumber]int{}
	at := map[Endpoint][]int{} // the first two at each endpoint
	for i := range ls {
		l := &ls[i]
		rivals[i] = -1
		if !ServedProtocol(l.Protocol) {
			continue
		}
		if f, ok := first[l.Port]; !ok {
			first[l.Port] = i
		} else if _, ok := other[l.Port]; !ok && ls[f].Protocol != l.Protocol {
			other[l.Port] = i
		}
		if e := EndpointOf(l.Port, l.Protocol, l.Hostname); len(at[e]) < 2 {
			at[e] = append(at[e], i)
		}
	}
	for i := range ls {
		l := &ls[i]
		if !ServedProtocol(l.Protocol) {
			continue
		}
		f := first[l.Port]
		o, mixed := other[l.Port]
		switch same := at[EndpointOf(l.Port, l.Protocol, l.Hostname)]; {
		case ls[f].Protocol != l.Protocol:
			reasons[i], rivals[i] = ReasonProtocolConflict, f
		case mixed:
			reasons[i], rivals[i] = ReasonProtocolConflict, o
		case len(same) == 2:
			reasons[i], rivals[i] = ReasonHostnameConflict, same[0]
			if same[0] == i {
				rivals[i] = same[1]
			}
		}
	}
	return reasons, rivals
}

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
	names := make([]string, len(SupportedProtocols))
	for i, p := range SupportedProtocols {
		names[i] = string(p)
	}
	return "Airlock serves " + strings.Join(names, ", ")
}()

// Kinds of the objects a merged listener comes from.
const (
	SourceGateway     = "Gateway"
	SourceListenerSet = ListenerSetKind
)

// ListenerSource is the object a merged listener comes from.
type ListenerSource struct {
	// Kind is SourceGateway or SourceListenerSet.
	Kind      string
	Namespace string
	Name      string
}

// String is "namespace/name", as messages name the object.
func (s ListenerSource) String() string { return objectName(s.Namespace, s.Name, "") }

// ListenerRef names a listener by its object and its name.
type ListenerRef struct {
	Source   ListenerSource
	Listener gwv1.SectionName
}

// MergedListener is one listener of a Gateway's merged list, in precedence
// order, with what becomes of it.
type MergedListener struct {
	// Precedence is the listener's place in the merged list, from 1: the
	// Gateway's own listeners, then each ListenerSet's, the sets in
	// Gateway API's order (oldest first, then "namespace/name"). Listeners
	// that take no place (NotAllowed, Invalid, Unknown) are numbered too,
	// where their set stands.
	Precedence int
	ListenerRef
	// Index is the listener's position in its object's spec.listeners, for
	// messages only.
	Index    int
	Port     gwv1.PortNumber
	Protocol gwv1.ProtocolType
	// Hostname is nil when the listener matches every hostname.
	Hostname *gwv1.Hostname
	State    ListenerState
	// Reason is, for Conflicted, ReasonProtocolConflict or
	// ReasonHostnameConflict; for NotAllowed, the Gateway's setting that
	// refuses the set (e.g. "allowedListeners.namespaces.from: Same"); for
	// Unknown, what is unknown; for UnsupportedProtocol,
	// ReasonServedProtocols; empty otherwise.
	Reason string
	// Winner is the listener a Conflicted one loses to; nil for a
	// Gateway's own listener Conflicted with another of the Gateway's
	// (none of them wins; Errors names the other).
	Winner *ListenerRef
	// Overlaps is, for an Accepted HTTPS or HTTP/3 listener, the first
	// listener on its port (in precedence order) whose hostname overlaps
	// its own, of another object if there is one, else of its own:
	// Gateway API's OverlappingTLSConfig, reason OverlappingHostnames
	// (overlap.go), which the other listener has too. nil when none.
	Overlaps *ListenerRef
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
	ListenerRef
	Hostname gwv1.Hostname
	Owner    Owner
}

// ListenerName names a listener as messages do: "namespace/name listener l".
// (Not a String method: ListenerRef is embedded in MergedListener.)
func ListenerName(r ListenerRef) string { return fmt.Sprintf("%s listener %s", r.Source, r.Listener) }
