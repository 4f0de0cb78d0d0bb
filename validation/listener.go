package validation

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

func validateListeners(listeners []gwv1.ListenerEntry, namespace string, fldPath *field.Path, w *Warnings) field.ErrorList {
	var errs field.ErrorList
	switch {
	case len(listeners) == 0:
		errs = append(errs, field.Required(fldPath, "at least one listener is required"))
	case len(listeners) > MaxListeners:
		errs = append(errs, field.TooMany(fldPath, len(listeners), MaxListeners))
	}
	set := newListenerIndex(len(listeners))
	for i := range listeners {
		l, lPath := &listeners[i], fldPath.Index(i)
		errs = append(errs, validateListener(l, namespace, lPath, w)...)
		errs = append(errs, validateUniqueName(set, l, lPath)...)
		errs = append(errs, validatePortConflict(set, l, lPath, fldPath)...)
		set.add(l, i)
	}
	return errs
}

func validateListener(l *gwv1.ListenerEntry, namespace string, fldPath *field.Path, w *Warnings) field.ErrorList {
	// Routes pick a listener by name (sectionName); the CRD gives it the DNS
	// subdomain pattern.
	errs := validateDNSSubdomain(l.Name, fldPath.Child("name"))
	errs = append(errs, validatePort(l.Port, fldPath.Child("port"))...)
	errs = append(errs, validateProtocol(l.Protocol, fldPath.Child("protocol"))...)
	if l.Hostname != nil {
		errs = append(errs, validateHostname(*l.Hostname, fldPath.Child("hostname"))...)
	}
	errs = append(errs, validateListenerTLS(l, namespace, fldPath.Child("tls"), w)...)
	if l.AllowedRoutes != nil {
		errs = append(errs, validateAllowedRoutes(l.AllowedRoutes, fldPath.Child("allowedRoutes"), w)...)
	}
	return errs
}

func validatePort(port gwv1.PortNumber, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, msg := range validation.IsValidPortNum(int(port)) {
		errs = append(errs, field.Invalid(fldPath, port, msg))
	}
	return errs
}

func validateProtocol(p gwv1.ProtocolType, fldPath *field.Path) field.ErrorList {
	if p == "" {
		return field.ErrorList{field.Required(fldPath, "")}
	}
	if !slices.Contains(SupportedProtocols, p) {
		return field.ErrorList{field.NotSupported(fldPath, string(p), SupportedProtocols)}
	}
	return nil
}

// validateHostname follows Gateway API's Hostname: a lowercase RFC 1123 name
// with at most one leading "*." label, never an IP address or a port. The
// regular expressions of apimachinery accept dotted quads, hence the IP check.
func validateHostname(h gwv1.Hostname, fldPath *field.Path) field.ErrorList {
	host := string(h)
	if host == "" {
		return field.ErrorList{field.Invalid(fldPath, host, "must not be empty; omit the field to match every hostname")}
	}
	if _, err := netip.ParseAddr(strings.Trim(host, "[]")); err == nil {
		return field.ErrorList{field.Invalid(fldPath, host, "must be a DNS name, not an IP address")}
	}
	if i := strings.LastIndexByte(host, ':'); i >= 0 {
		return field.ErrorList{field.Invalid(fldPath, host, "must not include a port")}
	}
	var errs field.ErrorList
	if len(host) > validation.DNS1123SubdomainMaxLength {
		errs = append(errs, field.Invalid(fldPath, host, validation.MaxLenError(validation.DNS1123SubdomainMaxLength)))
	}
	// The "*." label is stripped by hand: apimachinery's
	// IsWildcardDNS1123Subdomain compiles its regular expression on every call.
	name, wildcard := strings.CutPrefix(host, "*.")
	for _, msg := range validation.IsDNS1123Subdomain(name) {
		if msg == validation.MaxLenError(validation.DNS1123SubdomainMaxLength) {
			continue
		}
		if wildcard {
			msg = "after the leading '*.': " + msg
		}
		errs = append(errs, field.Invalid(fldPath, host, msg))
	}
	return errs
}

// listenerIndex remembers the listeners of the set seen so far, so each
// listener is checked against the earlier ones: Gateway API lets the first
// listener win, and the later one is the one reported.
type listenerIndex struct {
	names       map[gwv1.SectionName]bool
	firstOnPort map[gwv1.PortNumber]int
	firstAt     map[endpoint]int
	listeners   []*gwv1.ListenerEntry
}

// endpoint is what two listeners must not share: port, protocol and hostname.
type endpoint struct {
	port     gwv1.PortNumber
	protocol gwv1.ProtocolType
	hostname gwv1.Hostname
}

func newListenerIndex(n int) *listenerIndex {
	return &listenerIndex{
		names:       make(map[gwv1.SectionName]bool, n),
		firstOnPort: make(map[gwv1.PortNumber]int, n),
		firstAt:     make(map[endpoint]int, n),
		listeners:   make([]*gwv1.ListenerEntry, 0, n),
	}
}

func endpointOf(l *gwv1.ListenerEntry) endpoint {
	e := endpoint{port: l.Port, protocol: l.Protocol}
	if l.Hostname != nil {
		e.hostname = *l.Hostname
	}
	return e
}

// add records the i-th listener; the first claim of a port or endpoint stays.
func (x *listenerIndex) add(l *gwv1.ListenerEntry, i int) {
	x.names[l.Name] = true
	if _, used := x.firstOnPort[l.Port]; !used {
		x.firstOnPort[l.Port] = i
	}
	if _, used := x.firstAt[endpointOf(l)]; !used {
		x.firstAt[endpointOf(l)] = i
	}
	x.listeners = append(x.listeners, l)
}

// validateUniqueName: routes address a listener by name (sectionName), so two
// listeners of one set must not share it. The later one is the duplicate.
func validateUniqueName(x *listenerIndex, l *gwv1.ListenerEntry, fldPath *field.Path) field.ErrorList {
	if l.Name != "" && x.names[l.Name] {
		return field.ErrorList{field.Duplicate(fldPath.Child("name"), string(l.Name))}
	}
	return nil
}

// validatePortConflict applies Gateway API's listener compatibility rules
// within the set: a listener on a port an earlier one took with another
// protocol (ProtocolConflict), or with the same protocol and hostname
// (HostnameConflict), would be marked Conflicted and never served.
func validatePortConflict(x *listenerIndex, l *gwv1.ListenerEntry, fldPath, listenersPath *field.Path) field.ErrorList {
	first, used := x.firstOnPort[l.Port]
	if !used {
		return nil
	}
	if p := x.listeners[first].Protocol; p != l.Protocol {
		return field.ErrorList{field.Invalid(fldPath.Child("protocol"), string(l.Protocol),
			fmt.Sprintf("port %d already uses protocol %s in %s", l.Port, p, x.describe(first, listenersPath)))}
	}
	at := endpointOf(l)
	if j, dup := x.firstAt[at]; dup {
		return field.ErrorList{field.Invalid(fldPath.Child("hostname"), string(at.hostname),
			"same port, protocol and hostname as "+x.describe(j, listenersPath))}
	}
	return nil
}

// describe names a listener the way a user finds it in the manifest.
func (x *listenerIndex) describe(i int, listenersPath *field.Path) string {
	return fmt.Sprintf("%s (%q)", listenersPath.Index(i), x.listeners[i].Name)
}
