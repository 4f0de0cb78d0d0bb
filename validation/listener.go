package validation

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

func validateListeners(listeners []gwv1.ListenerEntry, namespace string, fldPath *fieldPath, w *Warnings) field.ErrorList {
	var errs field.ErrorList
	switch {
	case len(listeners) == 0:
		errs = append(errs, field.Required(fldPath.Path(), "at least one listener is required"))
	case len(listeners) > MaxListeners:
		errs = append(errs, field.TooMany(fldPath.Path(), len(listeners), MaxListeners))
		// The set rules compare each listener with the earlier ones, so
		// their cost grows with the square of the count: an 8 MiB request
		// could hold 200 000 listeners. Past the limit the object is
		// rejected anyway; the first MaxListeners are judged in full.
		listeners = listeners[:MaxListeners]
	}
	for i := range listeners {
		l, lPath, earlier := &listeners[i], fldPath.Index(i), listeners[:i]
		errs = append(errs, validateListener(l, namespace, lPath, w)...)
		errs = append(errs, validateUniqueName(earlier, l, lPath)...)
		errs = append(errs, validatePortConflict(earlier, l, lPath, fldPath)...)
	}
	return errs
}

func validateListener(l *gwv1.ListenerEntry, namespace string, fldPath *fieldPath, w *Warnings) field.ErrorList {
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

func validatePort(port gwv1.PortNumber, fldPath *fieldPath) field.ErrorList {
	var errs field.ErrorList
	for _, msg := range validation.IsValidPortNum(int(port)) {
		errs = append(errs, field.Invalid(fldPath.Path(), port, msg))
	}
	return errs
}

func validateProtocol(p gwv1.ProtocolType, fldPath *fieldPath) field.ErrorList {
	if p == "" {
		return field.ErrorList{field.Required(fldPath.Path(), "")}
	}
	if !slices.Contains(SupportedProtocols, p) {
		return field.ErrorList{field.NotSupported(fldPath.Path(), string(p), SupportedProtocols)}
	}
	return nil
}

// validateHostname follows Gateway API's Hostname: a lowercase RFC 1123 name
// with at most one leading "*." label, never an IP address or a port. The
// regular expressions of apimachinery accept dotted quads, hence the IP check.
func validateHostname(h gwv1.Hostname, fldPath *fieldPath) field.ErrorList {
	host := string(h)
	if host == "" {
		return field.ErrorList{field.Invalid(fldPath.Path(), host, "must not be empty; omit the field to match every hostname")}
	}
	if mayBeIP(host) && isIP(host) {
		return field.ErrorList{field.Invalid(fldPath.Path(), host, "must be a DNS name, not an IP address")}
	}
	if i := strings.LastIndexByte(host, ':'); i >= 0 {
		return field.ErrorList{field.Invalid(fldPath.Path(), host, "must not include a port")}
	}
	var errs field.ErrorList
	if len(host) > validation.DNS1123SubdomainMaxLength {
		errs = append(errs, field.Invalid(fldPath.Path(), host, validation.MaxLenError(validation.DNS1123SubdomainMaxLength)))
	}
	// The "*." label is stripped by hand: apimachinery's
	// IsWildcardDNS1123Subdomain compiles its regular expression on every call.
	name, wildcard := strings.CutPrefix(host, "*.")
	for _, msg := range isDNS1123Subdomain(name) {
		if msg == validation.MaxLenError(validation.DNS1123SubdomainMaxLength) {
			continue
		}
		if wildcard {
			msg = "after the leading '*.': " + msg
		}
		errs = append(errs, field.Invalid(fldPath.Path(), host, msg))
	}
	return errs
}

// The set-level rules check each listener against the earlier ones only:
// Gateway API lets the first listener win, and the later one is the one
// reported. A set has at most MaxListeners entries, so scanning the earlier
// ones is cheap and allocates nothing (maps cost several allocations per set).

// endpoint is what two listeners must not share: port, protocol and hostname.
type endpoint struct {
	port     gwv1.PortNumber
	protocol gwv1.ProtocolType
	hostname gwv1.Hostname
}

func endpointOf(l *gwv1.ListenerEntry) endpoint {
	e := endpoint{port: l.Port, protocol: l.Protocol}
	if l.Hostname != nil {
		e.hostname = *l.Hostname
	}
	return e
}

// indexOf returns the index of the first listener that matches, or -1.
func indexOf(listeners []gwv1.ListenerEntry, match func(*gwv1.ListenerEntry) bool) int {
	for i := range listeners {
		if match(&listeners[i]) {
			return i
		}
	}
	return -1
}

// validateUniqueName: routes address a listener by name (sectionName), so two
// listeners of one set must not share it. The later one is the duplicate.
func validateUniqueName(earlier []gwv1.ListenerEntry, l *gwv1.ListenerEntry, fldPath *fieldPath) field.ErrorList {
	if l.Name != "" && indexOf(earlier, func(e *gwv1.ListenerEntry) bool { return e.Name == l.Name }) >= 0 {
		return field.ErrorList{field.Duplicate(fldPath.Child("name").Path(), string(l.Name))}
	}
	return nil
}

// validatePortConflict applies Gateway API's listener compatibility rules
// within the set: a listener on a port an earlier one took with another
// protocol (ProtocolConflict), or with the same protocol and hostname
// (HostnameConflict), would be marked Conflicted and never served.
func validatePortConflict(earlier []gwv1.ListenerEntry, l *gwv1.ListenerEntry, fldPath, listenersPath *fieldPath) field.ErrorList {
	first := indexOf(earlier, func(e *gwv1.ListenerEntry) bool { return e.Port == l.Port })
	if first < 0 {
		return nil
	}
	if p := earlier[first].Protocol; p != l.Protocol {
		return field.ErrorList{field.Invalid(fldPath.Child("protocol").Path(), string(l.Protocol),
			fmt.Sprintf("port %d already uses protocol %s in %s", l.Port, p, describe(earlier, first, listenersPath)))}
	}
	at := endpointOf(l)
	if j := indexOf(earlier, func(e *gwv1.ListenerEntry) bool { return endpointOf(e) == at }); j >= 0 {
		return field.ErrorList{field.Invalid(fldPath.Child("hostname").Path(), string(at.hostname),
			"same port, protocol and hostname as "+describe(earlier, j, listenersPath))}
	}
	return nil
}

// describe names the i-th listener the way a user finds it in the manifest.
func describe(listeners []gwv1.ListenerEntry, i int, listenersPath *fieldPath) string {
	return fmt.Sprintf("%s (%q)", listenersPath.Index(i).String(), listeners[i].Name)
}
