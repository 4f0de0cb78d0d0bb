package validation

import (
	"net/netip"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
)

// apimachinery checks DNS names with regular expressions, which took a third
// of the time of validating a typical set. These two answer for valid names
// (nearly all of them) by a scan and leave every invalid name to
// apimachinery, so the error messages stay exactly Kubernetes' own.
// TestDNSFastPathsAgree and FuzzDNSFastPaths hold them to the same answers.

// isDNS1123Subdomain is validation.IsDNS1123Subdomain.
func isDNS1123Subdomain(value string) []string {
	if len(value) <= validation.DNS1123SubdomainMaxLength && validDNS1123Labels(value, true) {
		return nil
	}
	return validation.IsDNS1123Subdomain(value)
}

// isDNS1123Label is validation.IsDNS1123Label.
func isDNS1123Label(value string) []string {
	if len(value) <= validation.DNS1123LabelMaxLength && validDNS1123Labels(value, false) {
		return nil
	}
	return validation.IsDNS1123Label(value)
}

// validDNS1123Labels reports whether value is one or more (when dots) lowercase
// RFC 1123 labels joined by dots: [a-z0-9]([-a-z0-9]*[a-z0-9])? each.
func validDNS1123Labels(value string, dots bool) bool {
	if value == "" {
		return false
	}
	start := 0 // of the current label
	for i := 0; i < len(value); i++ {
		switch c := value[i]; {
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9':
		case c == '-':
			if i == start {
				return false
			}
		case c == '.' && dots:
			if i == start || value[i-1] == '-' {
				return false
			}
			start = i + 1
		default:
			return false
		}
	}
	return start < len(value) && value[len(value)-1] != '-'
}

// isIP reports whether host is an IP address, also in brackets.
func isIP(host string) bool {
	_, err := netip.ParseAddr(strings.Trim(host, "[]"))
	return err == nil
}

// mayBeIP is false for what netip.ParseAddr can never accept: an IPv6
// address has a colon, an IPv4 address only digits and dots. It spares every
// real hostname the parse, whose error allocates.
func mayBeIP(host string) bool {
	if strings.IndexByte(host, ':') >= 0 {
		return true
	}
	for i := 0; i < len(host); i++ {
		if c := host[i]; c != '.' && c != '[' && c != ']' && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}
