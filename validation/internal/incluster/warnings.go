package incluster

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/airlock/listenerset-webhook/findings"
)

// Kinds of the cluster-aware warnings.
const (
	// KindGatewayNotFound: the parent Gateway does not exist (yet).
	KindGatewayNotFound findings.WarningKind = "GatewayNotFound"
	// KindNotAllowed: the Gateway's allowedListeners refuses the namespace.
	KindNotAllowed findings.WarningKind = "NotAllowed"
	// KindSecretNotFound: a referenced Secret does not exist (yet).
	KindSecretNotFound findings.WarningKind = "SecretNotFound"
	// KindClusterFinding: a cluster-aware error (a conflict with the merged
	// listener list, RefNotPermitted) outside strict mode.
	KindClusterFinding findings.WarningKind = "ClusterFinding"
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

// Texts of the cluster-aware warnings and details. Each is the message part
// of "path: message".
const (
	// warnGatewayNotFound: the parent may simply not be created yet.
	warnGatewayNotFound = "Gateway %s/%s not found; the ListenerSet stays unattached until it exists"
	// warnNotAllowed: the Gateway's allowedListeners refuses this namespace.
	warnNotAllowed = "Gateway %s/%s does not admit this ListenerSet (NotAllowed): %s"
	// warnSecretNotFound: the listener has no certificate until the Secret exists.
	warnSecretNotFound = "Secret %s/%s not found (InvalidCertificateRef until it exists)"
	// warnScopeUnknown: what is unknown, what followed from it (judged or
	// admitted), and Airlock's controller names.
	warnScopeUnknown = "%s, %s (Airlock's GatewayClasses name %s)"
	// warnClassNotAccepted: the class, its controller, the Accepted
	// condition as stored, and what the user sees.
	warnClassNotAccepted = "GatewayClass %q is not accepted by its controller %s (%s): " + classConsequence
	// warnClassRefused: the class, its controller, what the user sees, and
	// the controller's reason and message last (the message, any text, is
	// what a cut shortens).
	warnClassRefused = "GatewayClass %q refused by its controller %s: " + classConsequence + "; %s"
	// warnListenerSetNotSupported: the class, its controller and the
	// feature name its status.supportedFeatures lacks.
	warnListenerSetNotSupported = "GatewayClass %q: its controller %s does not list %s in status.supportedFeatures: " + classConsequence
	// detailIndistinctProtocol: a Gateway's own listener on a port another
	// of its listeners uses with another protocol; none of them wins.
	detailIndistinctProtocol = "port %d also uses protocol %s in %s; the Gateway's indistinct listeners are all Conflicted (ProtocolConflict)"
	// detailIndistinctHostname: a Gateway's own listener with the port,
	// protocol and hostname of another of its listeners.
	detailIndistinctHostname = "same port, protocol and hostname as %s; the Gateway's indistinct listeners are all Conflicted (HostnameConflict)"
	// detailRefNotPermitted: no ReferenceGrant in the Secret's namespace
	// allows the reference.
	detailRefNotPermitted = "no ReferenceGrant in namespace %q allows ListenerSets from %q to use this Secret (RefNotPermitted)"
)

// clusterWarn records a warning of kind k on p in w, with k's code
// (clusterKindCode), its message format with args.
func clusterWarn(w *findings.WarningReport, p *field.Path, k findings.WarningKind, format string, args ...any) {
	w.Addf(p, k, clusterKindCode(k), format, args...)
}
