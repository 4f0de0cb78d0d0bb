package incluster

import (
	"fmt"
	"slices"

	"sigs.k8s.io/gateway-api/pkg/features"

	"github.com/airlock/listenerset-webhook/findings"
	"github.com/airlock/listenerset-webhook/validation/internal/object"
)

// The codes of the cluster-aware findings (those of the merged list's
// conflicts and overlaps are package object's, whose rules give them).
const (
	CodeRefNotPermitted        findings.Code = "LS303"
	CodeGatewayNotFound        findings.Code = "LS304"
	CodeNotAllowed             findings.Code = "LS305"
	CodeSecretNotFound         findings.Code = "LS306"
	CodeScopeUnknown           findings.Code = "LS309"
	CodeHostnameNotDeclared    findings.Code = "LS314"
	CodeDeclarationMalformed   findings.Code = "LS315"
	CodeHostnameClaimed        findings.Code = "LS316"
	CodeClassNotAccepted       findings.Code = "LS317"
	CodeListenerSetUnsupported findings.Code = "LS318"
)

// clusterCodeDocs describes the codes of the cluster-aware rules. The
// wrapping warning kind KindClusterFinding has no code of its own: such a
// warning carries the code of the error it stands for.
var clusterCodeDocs = []findings.CodeDoc{
	{Code: CodeRefNotPermitted, Kind: findings.CodeKindCluster, Title: "Certificate reference not permitted", Paths: []string{object.RefPathPattern + ".namespace"},
		Cause: "No ReferenceGrant in the Secret's namespace allows ListenerSets of this namespace to use it; the listener would have RefNotPermitted. An error under strict, a warning otherwise.",
		Fix:   "Add a ReferenceGrant in the Secret's namespace (from: ListenerSet in this namespace, to: Secret), or use a Secret of this namespace."},
	{Code: CodeScopeUnknown, Kind: findings.CodeKindCluster, Title: "Parent Gateway's class unknown", Paths: []string{"spec.parentRef"}, WarningKind: KindScopeUnknown,
		Cause: "Airlock Microgateway serves only the Gateways whose GatewayClass names its controller, and whose ListenerSet this is cannot be told: the parent Gateway or its GatewayClass does not exist yet, or the webhook has not read them yet. The setting for an unknown parent decided: judged with Airlock's rules (the default), or admitted untouched. A warning.",
		Fix:   "Create the Gateway and its GatewayClass first, or apply again once they exist: the ListenerSet is then judged by its Gateway's class."},
	{Code: CodeGatewayNotFound, Kind: findings.CodeKindCluster, Title: "Parent Gateway not found", Paths: []string{"spec.parentRef.name"}, WarningKind: KindGatewayNotFound,
		Cause: "The parent Gateway does not exist (yet); the ListenerSet stays unattached until it does. A warning.",
		Fix:   "Create the Gateway, or correct spec.parentRef."},
	{Code: CodeNotAllowed, Kind: findings.CodeKindCluster, Title: "Gateway does not admit the ListenerSet", Paths: []string{"spec.parentRef"}, WarningKind: KindNotAllowed,
		Cause: "The parent Gateway's allowedListeners does not admit ListenerSets of this namespace; they would be NotAllowed. A warning.",
		Fix:   "Ask the Gateway's owner to admit the namespace (allowedListeners.namespaces), or attach to another Gateway."},
	{Code: CodeSecretNotFound, Kind: findings.CodeKindCluster, Title: "Certificate Secret not found", Paths: []string{object.RefPathPattern + ".name"}, WarningKind: KindSecretNotFound,
		Cause: "The referenced Secret does not exist (yet); the listener has no certificate (InvalidCertificateRef) until it does. A warning.",
		Fix:   "Create the Secret, or correct the reference."},
	{Code: CodeHostnameNotDeclared, Kind: findings.CodeKindCluster, Title: "Hostname not declared for the namespace", Paths: []string{object.ListenerPathPattern + ".hostname"},
		Cause: "The ListenerSet's Namespace declares the hostnames its ListenerSets may claim (the annotation " + DefaultAllowedHostnamesAnnotation + ", or the key the webhook is configured with), and the listener's hostname is not covered: an exact name must be declared or lie under a declared wildcard, a wildcard must be declared or lie under one, and a listener without a hostname needs \"*\". An error in every mode.",
		Fix:   "Use a hostname the Namespace declares, or ask the platform team to declare it on the Namespace."},
	{Code: CodeDeclarationMalformed, Kind: findings.CodeKindCluster, Title: "Malformed hostname declaration", Paths: []string{"metadata.namespace"},
		Cause: fmt.Sprintf("The Namespace's hostname declaration cannot be read: it is empty, has an empty entry or blanks around one, more than %d entries, or an entry that is not a lowercase DNS name, a wildcard \"*.\" followed by one, or \"*\" (an IP address, uppercase, \"*\" past the first label, a trailing dot). Every ListenerSet of the namespace is denied until it is fixed: closed, not open. An error in every mode.", MaxAllowedHostnames),
		Fix:   "Ask the platform team to correct the annotation on the Namespace; the message names the entry."},
	{Code: CodeHostnameClaimed, Kind: findings.CodeKindCluster, Title: "Hostname held by another owner", Paths: []string{object.ListenerPathPattern + ".hostname"},
		Cause: "On the same Gateway, a listener of another owner's ListenerSet (another namespace, or another tenant when a tenant label is configured) holds a hostname that overlaps this one, on any port: the same name, a name under its wildcard, or a wildcard over its name. The first claim keeps it (the older ListenerSet, then namespace/name). A warning by default, an error with --first-claim=deny, nothing with off.",
		Fix:   "Use a hostname of your own; if the name is yours, ask the holder's owner to release it; the listeners command shows each listener's owner."},
	{Code: CodeClassNotAccepted, Kind: findings.CodeKindCluster, Title: "GatewayClass not accepted", Paths: []string{"spec.parentRef"}, WarningKind: KindClassNotAccepted,
		Cause: "The parent Gateway's GatewayClass has no Accepted condition with status True: no controller has taken it yet (Accepted Unknown, reason Pending, the CRD's default), or its controller refused it (Accepted False; the message gives its reason). No controller programs the Gateway's listeners, so the ListenerSet stays Pending and none of its listeners serves. A class without any condition (written by hand, never stored) is not judged. A warning only, also under strict.",
		Fix:   "Check that the controller the class names (spec.controllerName) runs and takes the class: for Airlock Microgateway, that its chart's operator.gatewayAPI.controllerName is the class's; if it refused the class, fix what its reason says (often the parametersRef)."},
	{Code: CodeListenerSetUnsupported, Kind: findings.CodeKindCluster, Title: "Controller does not support ListenerSets", Paths: []string{"spec.parentRef"}, WarningKind: KindListenerSetNotSupported,
		Cause: "The parent Gateway's GatewayClass lists the features its controller supports (status.supportedFeatures), and " + string(features.SupportListenerSet) + " is not among them: the controller does not read ListenerSets (Airlock Microgateway before 5.1.0), so the ListenerSet stays Pending and none of its listeners serves. An empty list is not judged. A warning only, also under strict.",
		Fix:   "Upgrade the controller to a release that supports ListenerSets (Airlock Microgateway 5.1.0 or later), or put the listeners on the Gateway itself."},
}

// clusterKindCodes is the code of each warning kind of the cluster-aware
// rules.
var clusterKindCodes = findings.CodesByKind(clusterCodeDocs)

// clusterKindCode is the code of warnings of kind k; "" for a kind that
// wraps an error (its warnings carry the error's code).
func clusterKindCode(k findings.WarningKind) findings.Code { return clusterKindCodes[k] }

// ClusterCodes are the codes of the cluster-aware rules, for the catalog.
func ClusterCodes() []findings.CodeDoc { return slices.Clone(clusterCodeDocs) }
