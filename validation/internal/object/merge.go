package object

import (
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/util/validation/field"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/findings"
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

// ListenerName names a listener as messages do: "namespace/name listener l".
// (Not a String method: ListenerRef is embedded in MergedListener.)
func ListenerName(r ListenerRef) string { return fmt.Sprintf("%s listener %s", r.Source, r.Listener) }
