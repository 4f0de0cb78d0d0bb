package object

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/airlock/listenerset-webhook/findings"
)

// Kinds of warnings.
const (
	// KindCrossNamespaceRef: a Secret in another namespace is usable only
	// once its owner grants the reference; given where the grants are unknown.
	KindCrossNamespaceRef findings.WarningKind = "CrossNamespaceCertificateRef"
	// KindForeignOption: another implementation's TLS option.
	KindForeignOption findings.WarningKind = "ForeignOption"
	// KindSelectorIgnored: a route namespace selector that from does not use.
	KindSelectorIgnored findings.WarningKind = "SelectorIgnored"
	// KindHostnameLabelTooLong: a hostname label longer than RFC 1123's 63
	// characters, which the CRD's pattern lets through.
	KindHostnameLabelTooLong findings.WarningKind = "HostnameLabelTooLong"
	// KindRouteCapture: a listener without a hostname open to other
	// namespaces' routes (tenancy.go).
	KindRouteCapture findings.WarningKind = "RouteCapture"
)

// Texts of warnings and details. Each is the message part of "path: message".
// They stay under 120 characters with a path of usual length.
const (
	// warnCrossNamespaceCertificateRef: see KindCrossNamespaceRef.
	warnCrossNamespaceCertificateRef = "cross-namespace reference: needs a ReferenceGrant in namespace %q"
	// WarnForeignOption: legal Gateway API, no effect on Airlock Microgateway.
	WarnForeignOption = "not an Airlock Microgateway option; Airlock ignores it"
	// warnSelectorIgnored: Gateway API ignores the selector unless from is Selector.
	warnSelectorIgnored = "ignored because from is %q, not \"Selector\""
	// warnHostnameLabelTooLong: DNS has no such name (RFC 1035 and 1123
	// limit a label to 63 octets), so no client sends it as SNI or Host.
	warnHostnameLabelTooLong = "label %q has %d characters, more than RFC 1123's 63: no client's SNI or Host header can match it"
	// DetailProtocolConflict: an earlier listener holds the port with another
	// protocol (within the set, or in the Gateway's merged listener list).
	DetailProtocolConflict = "port %d already uses protocol %s in %s; this listener would be Conflicted (ProtocolConflict)"
	// DetailHostnameConflict: an earlier listener has the same port, protocol
	// and hostname.
	DetailHostnameConflict = "same port, protocol and hostname as %s; this listener would be Conflicted (HostnameConflict)"
)

// warn records a warning of kind k on p in w, with k's code from this
// package's codes (kindCode), its message format with args.
func warn(w *findings.WarningReport, p *field.Path, k findings.WarningKind, format string, args ...any) {
	w.Addf(p, k, kindCode(k), format, args...)
}
