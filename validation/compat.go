package validation

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation/field"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// Gateway API's listener compatibility, the one rule for both the listeners
// of a set and the Gateway's merged listener list (its own listeners, then
// its ListenerSets in precedence order): in that order the first listener
// wins; a later one on the same port with another protocol is Conflicted
// (ProtocolConflict), one with the same port, protocol and hostname too
// (HostnameConflict).

// claim is a listener that holds its place in a merged list.
type claim struct {
	protocol gwv1.ProtocolType
	// owner ("namespace/name") and listener name it in messages.
	owner    string
	listener gwv1.SectionName
	// index is the listener's position in the ListenerSet under validation,
	// -1 for another object's listener.
	index int
}

// String names the listener, e.g. "gateway-ns/gw listener https".
func (c claim) String() string { return fmt.Sprintf("%s listener %s", c.owner, c.listener) }

// endpoint is what two listeners must not share.
type endpoint struct {
	port     gwv1.PortNumber
	protocol gwv1.ProtocolType
	hostname gwv1.Hostname
}

func endpointOf(port gwv1.PortNumber, protocol gwv1.ProtocolType, hostname *gwv1.Hostname) endpoint {
	e := endpoint{port: port, protocol: protocol}
	if hostname != nil {
		e.hostname = *hostname
	}
	return e
}

// mergedListeners are the listeners taken so far, in precedence order. The
// zero value is empty and ready to use.
type mergedListeners struct {
	onPort map[gwv1.PortNumber]claim
	at     map[endpoint]claim
}

// take appends a listener to the list; the first claim of a port, and of an
// endpoint, is the one kept.
func (m *mergedListeners) take(port gwv1.PortNumber, protocol gwv1.ProtocolType, hostname *gwv1.Hostname, c claim) {
	if m.onPort == nil {
		m.onPort, m.at = map[gwv1.PortNumber]claim{}, map[endpoint]claim{}
	}
	c.protocol = protocol
	if _, taken := m.onPort[port]; !taken {
		m.onPort[port] = c
	}
	e := endpointOf(port, protocol, hostname)
	if _, taken := m.at[e]; !taken {
		m.at[e] = c
	}
}

// conflict returns the error l (at fldPath) gets for coming after the
// listeners taken, and the listener it loses to; nil when it is compatible.
func (m *mergedListeners) conflict(l *gwv1.ListenerEntry, fldPath *field.Path) (*field.Error, claim) {
	first, taken := m.onPort[l.Port]
	if !taken {
		return nil, claim{}
	}
	if first.protocol != l.Protocol {
		return field.Invalid(fldPath.Child("protocol"), string(l.Protocol),
			fmt.Sprintf(DetailProtocolConflict, l.Port, first.protocol, first)), first
	}
	e := endpointOf(l.Port, l.Protocol, l.Hostname)
	if winner, dup := m.at[e]; dup {
		return field.Invalid(fldPath.Child("hostname"), string(e.hostname),
			fmt.Sprintf(DetailHostnameConflict, winner)), winner
	}
	return nil, claim{}
}
