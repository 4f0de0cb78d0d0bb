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
	for i := range listeners {
		errs = append(errs, validateListener(&listeners[i], namespace, fldPath.Index(i), w)...)
	}
	errs = append(errs, validateUniqueNames(listeners, fldPath)...)
	errs = append(errs, validatePortConflicts(listeners, fldPath)...)
	return errs
}

func validateListener(l *gwv1.ListenerEntry, namespace string, fldPath *field.Path, w *Warnings) field.ErrorList {
	errs := validateListenerName(l.Name, fldPath.Child("name"))
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

// validateListenerName: routes pick a listener by this name (sectionName), so
// it follows the CRD's DNS subdomain pattern.
func validateListenerName(name gwv1.SectionName, fldPath *field.Path) field.ErrorList {
	if name == "" {
		return field.ErrorList{field.Required(fldPath, "")}
	}
	var errs field.ErrorList
	for _, msg := range validation.IsDNS1123Subdomain(string(name)) {
		errs = append(errs, field.Invalid(fldPath, string(name), msg))
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

// validateUniqueNames: routes address a listener by name, so two listeners of
// one set must not share it. The later one is the duplicate.
func validateUniqueNames(listeners []gwv1.ListenerEntry, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	seen := make(map[gwv1.SectionName]bool, len(listeners))
	for i, l := range listeners {
		if l.Name == "" {
			continue
		}
		if seen[l.Name] {
			errs = append(errs, field.Duplicate(fldPath.Index(i).Child("name"), string(l.Name)))
		}
		seen[l.Name] = true
	}
	return errs
}

// validatePortConflicts applies Gateway API's listener compatibility rules
// within the set: the first listener on a port wins, a later one on the same
// port with another protocol (ProtocolConflict) or with the same protocol and
// hostname (HostnameConflict) would be marked Conflicted and never served.
func validatePortConflicts(listeners []gwv1.ListenerEntry, fldPath *field.Path) field.ErrorList {
	type endpoint struct {
		port     gwv1.PortNumber
		protocol gwv1.ProtocolType
		hostname gwv1.Hostname
	}
	var errs field.ErrorList
	firstOnPort := make(map[gwv1.PortNumber]int, len(listeners))
	firstAt := make(map[endpoint]int, len(listeners))
	for i, l := range listeners {
		first, used := firstOnPort[l.Port]
		if !used {
			firstOnPort[l.Port] = i
		} else if p := listeners[first].Protocol; p != l.Protocol {
			errs = append(errs, field.Invalid(fldPath.Index(i).Child("protocol"), string(l.Protocol),
				fmt.Sprintf("port %d already uses protocol %s in %s", l.Port, p, describe(listeners, first, fldPath))))
			continue
		}
		at := endpoint{l.Port, l.Protocol, hostnameOf(&l)}
		if j, dup := firstAt[at]; dup {
			errs = append(errs, field.Invalid(fldPath.Index(i).Child("hostname"), string(at.hostname),
				"same port, protocol and hostname as "+describe(listeners, j, fldPath)))
			continue
		}
		firstAt[at] = i
	}
	return errs
}

func hostnameOf(l *gwv1.ListenerEntry) gwv1.Hostname {
	if l.Hostname == nil {
		return ""
	}
	return *l.Hostname
}

// describe names a listener the way a user finds it in the manifest.
func describe(listeners []gwv1.ListenerEntry, i int, fldPath *field.Path) string {
	return fmt.Sprintf("%s (%q)", fldPath.Index(i), listeners[i].Name)
}
