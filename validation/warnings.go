package validation

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/airlock/listenerset-webhook/validation/findings"
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
	// KindRatcheted: an error the update leaves unchanged (see Validate).
	KindRatcheted findings.WarningKind = "Ratcheted"
	// KindGatewayNotFound: the parent Gateway does not exist (yet).
	KindGatewayNotFound findings.WarningKind = "GatewayNotFound"
	// KindNotAllowed: the Gateway's allowedListeners refuses the namespace.
	KindNotAllowed findings.WarningKind = "NotAllowed"
	// KindSecretNotFound: a referenced Secret does not exist (yet).
	KindSecretNotFound findings.WarningKind = "SecretNotFound"
	// KindHostnameLabelTooLong: a hostname label longer than RFC 1123's 63
	// characters, which the CRD's pattern lets through.
	KindHostnameLabelTooLong findings.WarningKind = "HostnameLabelTooLong"
	// KindClusterFinding: a cluster-aware error (a conflict with the merged
	// listener list, RefNotPermitted) outside strict mode.
	KindClusterFinding findings.WarningKind = "ClusterFinding"
	// KindRouteCapture: a listener without a hostname open to other
	// namespaces' routes (tenancy.go).
	KindRouteCapture findings.WarningKind = "RouteCapture"
	// KindScopeUnknown: whose ListenerSet it is cannot be told (its parent
	// Gateway or GatewayClass is unknown), and Scope.Unknown decided.
	KindScopeUnknown findings.WarningKind = "ScopeUnknown"
	// KindClassNotAccepted: the parent Gateway's GatewayClass has
	// conditions and none says Accepted True: no controller has taken it
	// yet, or its controller refused it (class.go).
	KindClassNotAccepted findings.WarningKind = "GatewayClassNotAccepted"
	// KindListenerSetNotSupported: the parent Gateway's GatewayClass lists
	// its controller's features, and ListenerSet support is not among
	// them (class.go).
	KindListenerSetNotSupported findings.WarningKind = "ListenerSetNotSupported"
)

// Texts of warnings and details. Each is the message part of "path: message".
// They stay under 120 characters with a path of usual length.
const (
	// WarnCrossNamespaceCertificateRef: see KindCrossNamespaceRef.
	WarnCrossNamespaceCertificateRef = "cross-namespace reference: needs a ReferenceGrant in namespace %q"
	// WarnForeignOption: legal Gateway API, no effect on Airlock Microgateway.
	WarnForeignOption = "not an Airlock Microgateway option; Airlock ignores it"
	// WarnSelectorIgnored: Gateway API ignores the selector unless from is Selector.
	WarnSelectorIgnored = "ignored because from is %q, not \"Selector\""
	// WarnRatcheted wraps the body of an error that the update leaves
	// unchanged: it is let through, but it still needs fixing.
	WarnRatcheted = "%s (already stored; allowed because unchanged)"
	// WarnGatewayNotFound: the parent may simply not be created yet.
	WarnGatewayNotFound = "Gateway %s/%s not found; the ListenerSet stays unattached until it exists"
	// WarnNotAllowed: the Gateway's allowedListeners refuses this namespace.
	WarnNotAllowed = "Gateway %s/%s does not admit this ListenerSet (NotAllowed): %s"
	// WarnSecretNotFound: the listener has no certificate until the Secret exists.
	WarnSecretNotFound = "Secret %s/%s not found (InvalidCertificateRef until it exists)"
	// WarnHostnameLabelTooLong: DNS has no such name (RFC 1035 and 1123
	// limit a label to 63 octets), so no client sends it as SNI or Host.
	WarnHostnameLabelTooLong = "label %q has %d characters, more than RFC 1123's 63: no client's SNI or Host header can match it"
	// WarnScopeUnknown: what is unknown, what followed from it (judged or
	// admitted), and Airlock's controller names.
	WarnScopeUnknown = "%s, %s (Airlock's GatewayClasses name %s)"
	// WarnClassNotAccepted: the class, its controller, the Accepted
	// condition as stored, and what the user sees.
	WarnClassNotAccepted = "GatewayClass %q is not accepted by its controller %s (%s): " + classConsequence
	// WarnClassRefused: the class, its controller, what the user sees, and
	// the controller's reason and message last (the message, any text, is
	// what a cut shortens).
	WarnClassRefused = "GatewayClass %q refused by its controller %s: " + classConsequence + "; %s"
	// WarnListenerSetNotSupported: the class, its controller and the
	// feature name its status.supportedFeatures lacks.
	WarnListenerSetNotSupported = "GatewayClass %q: its controller %s does not list %s in status.supportedFeatures: " + classConsequence
	// DetailProtocolConflict: an earlier listener holds the port with another
	// protocol (within the set, or in the Gateway's merged listener list).
	DetailProtocolConflict = "port %d already uses protocol %s in %s; this listener would be Conflicted (ProtocolConflict)"
	// DetailHostnameConflict: an earlier listener has the same port, protocol
	// and hostname.
	DetailHostnameConflict = "same port, protocol and hostname as %s; this listener would be Conflicted (HostnameConflict)"
	// DetailIndistinctProtocol: a Gateway's own listener on a port another
	// of its listeners uses with another protocol; none of them wins.
	DetailIndistinctProtocol = "port %d also uses protocol %s in %s; the Gateway's indistinct listeners are all Conflicted (ProtocolConflict)"
	// DetailIndistinctHostname: a Gateway's own listener with the port,
	// protocol and hostname of another of its listeners.
	DetailIndistinctHostname = "same port, protocol and hostname as %s; the Gateway's indistinct listeners are all Conflicted (HostnameConflict)"
	// DetailRefNotPermitted: no ReferenceGrant in the Secret's namespace
	// allows the reference.
	DetailRefNotPermitted = "no ReferenceGrant in namespace %q allows ListenerSets from %q to use this Secret (RefNotPermitted)"
)

// warn records a warning of kind k on p in w, with k's code from the
// catalog (KindCode), its message format with args.
func warn(w *findings.WarningReport, p *field.Path, k findings.WarningKind, format string, args ...any) {
	w.Addf(p, k, KindCode(k), format, args...)
}
