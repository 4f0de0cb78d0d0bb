package validation

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Warning is one admission warning: the object is admitted, and kubectl
// prints String() as a "Warning:" line. Warnings are values with a path and a
// kind, so that a rule decides whether to give one, and no rule has to find
// and remove another rule's warning by its text.
type Warning struct {
	// Path is the field the warning is about, e.g. spec.listeners[0].tls.
	Path string
	// Kind says which rule gave it.
	Kind WarningKind
	// Code is its diagnostic code: its kind's (KindCode), or, for a
	// warning that stands for an error (ratcheted, would deny, a
	// cluster-aware error outside strict), the error's.
	Code Code
	// Message is the text after the path.
	Message string
}

// String is "path: message", the form kube-apiserver's own warnings take.
func (w Warning) String() string { return w.Path + ": " + w.Message }

// Warnings are the warnings of one verdict, in the order the rules gave them.
type Warnings []Warning

// Strings returns each warning's String, for admission responses and output.
func (ws Warnings) Strings() []string {
	if ws == nil {
		return nil
	}
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = w.String()
	}
	return out
}

// add records a warning of kind k on p.
func (r *WarningReport) add(p *field.Path, k WarningKind, format string, args ...any) {
	if r.full {
		r.count(1) // not shown: its path and message are not built
		return
	}
	r.Add(Warning{Path: p.String(), Kind: k, Code: KindCode(k), Message: fmt.Sprintf(format, args...)})
}

// WarningKind names the rule behind a warning.
type WarningKind string

// Kinds of warnings.
const (
	// KindCrossNamespaceRef: a Secret in another namespace is usable only
	// once its owner grants the reference; given where the grants are unknown.
	KindCrossNamespaceRef WarningKind = "CrossNamespaceCertificateRef"
	// KindForeignOption: another implementation's TLS option.
	KindForeignOption WarningKind = "ForeignOption"
	// KindSelectorIgnored: a route namespace selector that from does not use.
	KindSelectorIgnored WarningKind = "SelectorIgnored"
	// KindRatcheted: an error the update leaves unchanged (see Validate).
	KindRatcheted WarningKind = "Ratcheted"
	// KindGatewayNotFound: the parent Gateway does not exist (yet).
	KindGatewayNotFound WarningKind = "GatewayNotFound"
	// KindNotAllowed: the Gateway's allowedListeners refuses the namespace.
	KindNotAllowed WarningKind = "NotAllowed"
	// KindSecretNotFound: a referenced Secret does not exist (yet).
	KindSecretNotFound WarningKind = "SecretNotFound"
	// KindHostnameLabelTooLong: a hostname label longer than RFC 1123's 63
	// characters, which the CRD's pattern lets through.
	KindHostnameLabelTooLong WarningKind = "HostnameLabelTooLong"
	// KindClusterFinding: a cluster-aware error (a conflict with the merged
	// listener list, RefNotPermitted) outside strict mode.
	KindClusterFinding WarningKind = "ClusterFinding"
	// KindRouteCapture: a listener without a hostname open to other
	// namespaces' routes (tenancy.go).
	KindRouteCapture WarningKind = "RouteCapture"
	// KindScopeUnknown: whose ListenerSet it is cannot be told (its parent
	// Gateway or GatewayClass is unknown), and Scope.Unknown decided.
	KindScopeUnknown WarningKind = "ScopeUnknown"
	// KindClassNotAccepted: the parent Gateway's GatewayClass has
	// conditions and none says Accepted True: no controller has taken it
	// yet, or its controller refused it (class.go).
	KindClassNotAccepted WarningKind = "GatewayClassNotAccepted"
	// KindListenerSetNotSupported: the parent Gateway's GatewayClass lists
	// its controller's features, and ListenerSet support is not among
	// them (class.go).
	KindListenerSetNotSupported WarningKind = "ListenerSetNotSupported"
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
