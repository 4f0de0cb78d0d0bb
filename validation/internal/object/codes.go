package object

import (
	"fmt"
	"slices"
	"strings"

	"github.com/airlock/listenerset-webhook/findings"
)

// The codes of the object's own errors.
const (
	CodeNoListeners             findings.Code = "LS101"
	CodeTooManyListeners        findings.Code = "LS102"
	CodeListenerName            findings.Code = "LS103"
	CodeDuplicateListenerName   findings.Code = "LS104"
	CodePort                    findings.Code = "LS105"
	CodeProtocol                findings.Code = "LS106"
	CodeHostname                findings.Code = "LS107"
	CodeProtocolConflict        findings.Code = "LS108"
	CodeHostnameConflict        findings.Code = "LS109"
	CodeTLSForbidden            findings.Code = "LS110"
	CodeTLSRequired             findings.Code = "LS111"
	CodeTLSMode                 findings.Code = "LS112"
	CodeCertificateRefRequired  findings.Code = "LS113"
	CodeTooManyCertificateRefs  findings.Code = "LS114"
	CodeCertificateRefKind      findings.Code = "LS115"
	CodeCertificateRefName      findings.Code = "LS116"
	CodeCertificateRefNamespace findings.Code = "LS117"
	CodeTooManyOptions          findings.Code = "LS118"
	CodeOptionTooLong           findings.Code = "LS119"
	CodeUnprefixedOption        findings.Code = "LS120"
	CodeOptionKey               findings.Code = "LS121"
	CodeUnknownOption           findings.Code = "LS122"
	CodeOptionListFormat        findings.Code = "LS123"
	CodeDuplicateOptionItem     findings.Code = "LS124"
	CodeUnsupportedOptionItem   findings.Code = "LS125"
	CodeTLS13Cipher             findings.Code = "LS126"
	CodeTLSVersion              findings.Code = "LS127"
	CodeVersionRange            findings.Code = "LS128"
	CodeHTTP3NeedsTLS13         findings.Code = "LS129"
	CodeRouteKind               findings.Code = "LS130"
	CodeRouteNamespacesFrom     findings.Code = "LS131"
	CodeRouteSelectorRequired   findings.Code = "LS132"
	CodeRouteSelectorTooLong    findings.Code = "LS133"
	CodeRouteSelectorLabel      findings.Code = "LS134"
	CodeRouteSelectorExpression findings.Code = "LS135"
	CodeParentRefKind           findings.Code = "LS136"
	CodeParentRefName           findings.Code = "LS137"
	CodeParentRefNamespace      findings.Code = "LS138"
)

// The codes of the object's own warnings, given by their kinds.
const (
	CodeCrossNamespaceRef    findings.Code = "LS201"
	CodeForeignOption        findings.Code = "LS202"
	CodeSelectorIgnored      findings.Code = "LS203"
	CodeHostnameLabelTooLong findings.Code = "LS204"
	CodeOverlappingHostnames findings.Code = "LS205"
	CodeRouteCapture         findings.Code = "LS206"
)

// The codes of the findings Gateway API's listener compatibility and the
// overlap rule give on the merged listener list (merge.go, overlap.go).
const (
	CodeMergedProtocolConflict findings.Code = "LS301"
	CodeMergedHostnameConflict findings.Code = "LS302"
	CodeMergedOverlapping      findings.Code = "LS307"
)

// Field paths the codes are at.
const (
	ListenerPathPattern = "spec.listeners[*]"
	tlsPathPattern      = ListenerPathPattern + ".tls"
	optionPathPattern   = tlsPathPattern + ".options[*]"
	RefPathPattern      = tlsPathPattern + ".certificateRefs[*]"
	routesPathPattern   = ListenerPathPattern + ".allowedRoutes"
	selectorPathPattern = routesPathPattern + ".namespaces.selector"
)

// codeDocs describes the codes this package's rules give. The wrapping
// warning kind KindRatcheted has no code of its own: such a warning carries
// the code of the error it stands for.
var codeDocs = []findings.CodeDoc{
	{Code: CodeNoListeners, Kind: findings.CodeKindError, Title: "No listener", Paths: []string{"spec.listeners"},
		Cause: "spec.listeners is empty: a ListenerSet without listeners adds nothing to its Gateway.",
		Fix:   "Add at least one listener, or delete the ListenerSet."},
	{Code: CodeTooManyListeners, Kind: findings.CodeKindError, Title: "Too many listeners", Paths: []string{"spec.listeners"},
		Cause: fmt.Sprintf("More than %d listeners, the CRD's limit; only the first %[1]d are judged.", MaxListeners),
		Fix:   "Split the listeners over several ListenerSets."},
	{Code: CodeListenerName, Kind: findings.CodeKindError, Title: "Invalid listener name", Paths: []string{ListenerPathPattern + ".name"},
		Cause: "A listener's name is missing or not a DNS subdomain (lowercase letters, digits, '-' and '.'); routes select a listener by it (sectionName).",
		Fix:   "Give the listener a lowercase DNS subdomain name such as web or https-api."},
	{Code: CodeDuplicateListenerName, Kind: findings.CodeKindError, Title: "Duplicate listener name", Paths: []string{ListenerPathPattern + ".name"},
		Cause: "Two listeners of the set have the same name; a route's sectionName could not tell them apart.",
		Fix:   "Rename one of them."},
	{Code: CodePort, Kind: findings.CodeKindError, Title: "Invalid port", Paths: []string{ListenerPathPattern + ".port"},
		Cause: "The port is not between 1 and 65535.",
		Fix:   "Set a port between 1 and 65535."},
	{Code: CodeProtocol, Kind: findings.CodeKindError, Title: "Unsupported protocol", Paths: []string{ListenerPathPattern + ".protocol"},
		Cause: "The protocol is missing or one Airlock Microgateway does not serve on a ListenerSet.",
		Fix:   "Use one of the protocols the message lists."},
	{Code: CodeHostname, Kind: findings.CodeKindError, Title: "Invalid hostname", Paths: []string{ListenerPathPattern + ".hostname"},
		Cause: "The hostname is empty, an IP address, has a port, is longer than 253 characters, or is not a lowercase RFC 1123 name with at most a leading \"*.\".",
		Fix:   "Write a DNS name such as app.example.com or *.example.com, or omit the field to match every hostname."},
	{Code: CodeProtocolConflict, Kind: findings.CodeKindError, Title: "Protocol conflict within the set", Paths: []string{ListenerPathPattern + ".protocol"},
		Cause: "An earlier listener of the same set holds the port with another protocol; this one would be Conflicted (ProtocolConflict).",
		Fix:   "Use another port, or the protocol of the earlier listener."},
	{Code: CodeHostnameConflict, Kind: findings.CodeKindError, Title: "Hostname conflict within the set", Paths: []string{ListenerPathPattern + ".hostname"},
		Cause: "An earlier listener of the same set has the same port, protocol and hostname; this one would be Conflicted (HostnameConflict).",
		Fix:   "Change the hostname or the port, or merge the two listeners."},
	{Code: CodeTLSForbidden, Kind: findings.CodeKindError, Title: "TLS on an HTTP listener", Paths: []string{tlsPathPattern},
		Cause: "tls is set on a listener of protocol HTTP, which is cleartext.",
		Fix:   "Remove tls, or use protocol HTTPS."},
	{Code: CodeTLSRequired, Kind: findings.CodeKindError, Title: "TLS missing", Paths: []string{tlsPathPattern},
		Cause: "An HTTPS or HTTP/3 listener has no tls: Airlock Microgateway terminates TLS and needs a certificate.",
		Fix:   "Add tls with mode Terminate and one certificateRef."},
	{Code: CodeTLSMode, Kind: findings.CodeKindError, Title: "Unsupported TLS mode", Paths: []string{tlsPathPattern + ".mode"},
		Cause: "tls.mode is not Terminate: Airlock Microgateway terminates TLS itself and never passes it through.",
		Fix:   "Set mode: Terminate, or omit it."},
	{Code: CodeCertificateRefRequired, Kind: findings.CodeKindError, Title: "Certificate missing", Paths: []string{tlsPathPattern + ".certificateRefs"},
		Cause: "tls has no certificateRefs; with mode Terminate exactly one is needed.",
		Fix:   "Add one certificateRef naming a Secret of type kubernetes.io/tls."},
	{Code: CodeTooManyCertificateRefs, Kind: findings.CodeKindError, Title: "More than one certificate", Paths: []string{tlsPathPattern + ".certificateRefs"},
		Cause: "Airlock Microgateway serves exactly one certificate per listener.",
		Fix:   "Keep one certificateRef; serve other names from other listeners."},
	{Code: CodeCertificateRefKind, Kind: findings.CodeKindError, Title: "Certificate reference not a Secret", Paths: []string{RefPathPattern + ".group", RefPathPattern + ".kind"},
		Cause: "A certificateRef names another group or kind than a core Secret.",
		Fix:   "Reference a Secret: omit group and kind, or set group \"\" and kind Secret."},
	{Code: CodeCertificateRefName, Kind: findings.CodeKindError, Title: "Invalid certificate Secret name", Paths: []string{RefPathPattern + ".name"},
		Cause: "The Secret's name is not a DNS subdomain, so no Secret can have it.",
		Fix:   "Name the Secret as it is stored."},
	{Code: CodeCertificateRefNamespace, Kind: findings.CodeKindError, Title: "Invalid certificate Secret namespace", Paths: []string{RefPathPattern + ".namespace"},
		Cause: "The Secret's namespace is not a DNS label, so no namespace can have it.",
		Fix:   "Name the namespace as it is, or omit it for the ListenerSet's own."},
	{Code: CodeTooManyOptions, Kind: findings.CodeKindError, Title: "Too many TLS options", Paths: []string{tlsPathPattern + ".options"},
		Cause: fmt.Sprintf("More than %d tls.options, the CRD's limit.", MaxOptions),
		Fix:   "Remove the options Airlock Microgateway does not use."},
	{Code: CodeOptionTooLong, Kind: findings.CodeKindError, Title: "TLS option value too long", Paths: []string{optionPathPattern},
		Cause: fmt.Sprintf("An option's value is longer than %d characters, the CRD's limit.", MaxOptionValueLen),
		Fix:   "Shorten the value."},
	{Code: CodeUnprefixedOption, Kind: findings.CodeKindError, Title: "Un-prefixed TLS option", Paths: []string{optionPathPattern},
		Cause: "An option name without a domain prefix: Gateway API reserves those.",
		Fix:   "Use Airlock's name, microgateway.airlock.com/<name>."},
	{Code: CodeOptionKey, Kind: findings.CodeKindError, Title: "Invalid TLS option name", Paths: []string{optionPathPattern},
		Cause: "An option name of another implementation that is not a valid domain-prefixed key.",
		Fix:   "Correct the name to prefix/name form, or remove the option."},
	{Code: CodeUnknownOption, Kind: findings.CodeKindError, Title: "Unknown Airlock TLS option", Paths: []string{optionPathPattern},
		Cause: "An option under microgateway.airlock.com/ that Airlock Microgateway does not have, perhaps misspelt.",
		Fix:   "Use one of the supported options the message lists."},
	{Code: CodeOptionListFormat, Kind: findings.CodeKindError, Title: "Malformed list in a TLS option", Paths: []string{optionPathPattern},
		Cause: "A list-valued option is empty, has an empty item (a,,b) or an item with spaces around it (a, b).",
		Fix:   "Write the names separated by commas only: a,b."},
	{Code: CodeDuplicateOptionItem, Kind: findings.CodeKindError, Title: "Repeated name in a TLS option", Paths: []string{optionPathPattern},
		Cause: "A list-valued option names an item twice.",
		Fix:   "Remove the repeat."},
	{Code: CodeUnsupportedOptionItem, Kind: findings.CodeKindError, Title: "Unsupported name in a TLS option", Paths: []string{optionPathPattern},
		Cause: "A list-valued option names a cipher, curve, signature algorithm or ALPN protocol Airlock Microgateway (BoringSSL) does not accept; Envoy would refuse the whole listener.",
		Fix:   "Use the names the message lists."},
	{Code: CodeTLS13Cipher, Kind: findings.CodeKindError, Title: "TLS 1.3 cipher in the ciphers option", Paths: []string{optionPathPattern},
		Cause: "The ciphers option names a TLS 1.3 suite; TLS 1.3 suites are not configurable, the option applies to TLS 1.0-1.2 only.",
		Fix:   "Remove the TLS 1.3 suites from ciphers."},
	{Code: CodeTLSVersion, Kind: findings.CodeKindError, Title: "Unsupported TLS version", Paths: []string{optionPathPattern},
		Cause: "minimumVersion or maximumVersion is not one of Airlock's version spellings.",
		Fix:   "Use one of the versions the message lists."},
	{Code: CodeVersionRange, Kind: findings.CodeKindError, Title: "maximumVersion below minimumVersion", Paths: []string{optionPathPattern},
		Cause: "maximumVersion is lower than minimumVersion: no version is left.",
		Fix:   "Raise maximumVersion or lower minimumVersion."},
	{Code: CodeHTTP3NeedsTLS13, Kind: findings.CodeKindError, Title: "HTTP/3 without TLS 1.3", Paths: []string{optionPathPattern},
		Cause: "An HTTP/3 listener's maximumVersion is below " + TLSVersionHTTP3 + "; QUIC requires TLS 1.3.",
		Fix:   "Set maximumVersion to " + TLSVersionHTTP3 + ", or remove it."},
	{Code: CodeRouteKind, Kind: findings.CodeKindError, Title: "Unsupported route kind", Paths: []string{routesPathPattern + ".kinds[*].group", routesPathPattern + ".kinds[*].kind"},
		Cause: "allowedRoutes.kinds names another kind than gateway.networking.k8s.io HTTPRoute, or no kind; Airlock Microgateway attaches HTTPRoutes only.",
		Fix:   "Allow kind HTTPRoute, or omit kinds."},
	{Code: CodeRouteNamespacesFrom, Kind: findings.CodeKindError, Title: "Unsupported allowedRoutes.namespaces.from", Paths: []string{routesPathPattern + ".namespaces.from"},
		Cause: "from is not All, Same or Selector.",
		Fix:   "Use one of the values the message lists."},
	{Code: CodeRouteSelectorRequired, Kind: findings.CodeKindError, Title: "Route selector missing", Paths: []string{selectorPathPattern},
		Cause: "from is Selector, but there is no selector.",
		Fix:   "Add a selector, or use from Same or All."},
	{Code: CodeRouteSelectorTooLong, Kind: findings.CodeKindError, Title: "Route selector too long",
		Paths: []string{selectorPathPattern + ".matchLabels", selectorPathPattern + ".matchExpressions", selectorPathPattern + ".matchExpressions[*].values"},
		Cause: fmt.Sprintf("A list of the route selector (matchLabels, matchExpressions, an expression's values) has more than %d items; its items are not judged.", MaxSelectorItems),
		Fix:   "Select the namespaces by a label they share."},
	{Code: CodeRouteSelectorLabel, Kind: findings.CodeKindError, Title: "Invalid route selector label", Paths: []string{selectorPathPattern + ".matchLabels"},
		Cause: "A matchLabels key or value is not a valid label key or value.",
		Fix:   "Use a label as the namespaces have it."},
	{Code: CodeRouteSelectorExpression, Kind: findings.CodeKindError, Title: "Invalid route selector expression",
		Paths: []string{selectorPathPattern + ".matchExpressions[*].key", selectorPathPattern + ".matchExpressions[*].operator", selectorPathPattern + ".matchExpressions[*].values", selectorPathPattern + ".matchExpressions[*].values[*]"},
		Cause: "A matchExpressions entry has an invalid key or operator, or values that do not fit its operator.",
		Fix:   "Write the expression as Kubernetes label selectors do: In and NotIn with values, Exists and DoesNotExist without."},
	{Code: CodeParentRefKind, Kind: findings.CodeKindError, Title: "Parent not a Gateway", Paths: []string{"spec.parentRef.group", "spec.parentRef.kind"},
		Cause: "spec.parentRef names another group or kind than gateway.networking.k8s.io Gateway; a ListenerSet attaches to a Gateway only.",
		Fix:   "Reference a Gateway: omit group and kind, or set them to gateway.networking.k8s.io and Gateway."},
	{Code: CodeParentRefName, Kind: findings.CodeKindError, Title: "Invalid parent Gateway name", Paths: []string{"spec.parentRef.name"},
		Cause: "spec.parentRef.name is missing or not a DNS subdomain, so no Gateway can have it.",
		Fix:   "Name the Gateway as it is stored."},
	{Code: CodeParentRefNamespace, Kind: findings.CodeKindError, Title: "Invalid parent Gateway namespace", Paths: []string{"spec.parentRef.namespace"},
		Cause: "spec.parentRef.namespace is not a DNS label, so no namespace can have it.",
		Fix:   "Name the Gateway's namespace, or omit it for the ListenerSet's own."},
	{Code: CodeCrossNamespaceRef, Kind: findings.CodeKindWarning, Title: "Certificate in another namespace", Paths: []string{RefPathPattern + ".namespace"}, WarningKind: KindCrossNamespaceRef,
		Cause: "A certificateRef names a Secret in another namespace, whose ReferenceGrants are not known here: it is usable only once that namespace grants the reference.",
		Fix:   "Make sure a ReferenceGrant in the Secret's namespace allows ListenerSets from this one, or use a Secret of the ListenerSet's namespace."},
	{Code: CodeForeignOption, Kind: findings.CodeKindWarning, Title: "TLS option of another implementation", Paths: []string{optionPathPattern}, WarningKind: KindForeignOption,
		Cause: "A tls.options key that is not an Airlock Microgateway option: legal Gateway API, ignored by Airlock.",
		Fix:   "Nothing, if the option is meant for another implementation; otherwise use Airlock's option."},
	{Code: CodeSelectorIgnored, Kind: findings.CodeKindWarning, Title: "Route selector not used", Paths: []string{selectorPathPattern}, WarningKind: KindSelectorIgnored,
		Cause: "allowedRoutes.namespaces.selector is set, but from is not Selector, so Gateway API ignores it.",
		Fix:   "Set from: Selector, or remove the selector."},
	{Code: CodeHostnameLabelTooLong, Kind: findings.CodeKindWarning, Title: "Hostname label longer than 63 characters", Paths: []string{ListenerPathPattern + ".hostname"}, WarningKind: KindHostnameLabelTooLong,
		Cause: "A label of the hostname is longer than RFC 1123's 63 characters, which the CRD lets through; no client's SNI or Host header can match it.",
		Fix:   "Shorten the label."},
	{Code: CodeOverlappingHostnames, Kind: findings.CodeKindWarning, Title: "Overlapping TLS hostnames within the set", Paths: []string{ListenerPathPattern + ".hostname"}, WarningKind: KindOverlappingHostnames,
		Cause: "Two HTTPS or HTTP/3 listeners of the set on one port have hostnames some name matches both (an exact name under a wildcard, nested wildcards, a hostname and none): both get OverlappingTLSConfig (OverlappingHostnames), and with HTTP/2 connection coalescing a request can reuse the other's connection and reach its routes. A warning only.",
		Fix:   "Nothing, if the listeners share a certificate and may serve each other's names; otherwise give them hostnames that do not overlap, or different ports."},
	{Code: CodeRouteCapture, Kind: findings.CodeKindWarning, Title: "Listener without hostname open to other namespaces", Paths: []string{routesPathPattern + ".namespaces.from"}, WarningKind: KindRouteCapture,
		Cause: "A ListenerSet listener has no hostname and its allowedRoutes admits HTTPRoutes of other namespaces (from: All, or a Selector another namespace can match): each of them can claim any hostname on it, a name another team serves included. A Selector that pins kubernetes.io/metadata.name to the set's own namespace (matchLabels, or In with that value alone) admits only it: no warning. A warning only.",
		Fix:   "Give the listener a hostname, or admit routes of its own namespace only (from: Same, or a Selector on kubernetes.io/metadata.name: <its namespace>)."},
	{Code: CodeMergedProtocolConflict, Kind: findings.CodeKindCluster, Title: "Protocol conflict on the Gateway", Paths: []string{ListenerPathPattern + ".protocol"},
		Cause: "A listener of the Gateway, or of a ListenerSet before this one, holds the port with another protocol; this listener would be Conflicted (ProtocolConflict). An error under strict, a warning otherwise.",
		Fix:   "Use another port, or the protocol the port has; the listeners command shows the Gateway's merged list."},
	{Code: CodeMergedHostnameConflict, Kind: findings.CodeKindCluster, Title: "Hostname conflict on the Gateway", Paths: []string{ListenerPathPattern + ".hostname"},
		Cause: "A listener of the Gateway, or of a ListenerSet before this one, has the same port, protocol and hostname; this listener would be Conflicted (HostnameConflict). An error under strict, a warning otherwise.",
		Fix:   "Use another hostname or port; the listeners command shows who holds it."},
	{Code: CodeMergedOverlapping, Kind: findings.CodeKindCluster, Title: "Overlapping TLS hostnames on the Gateway", Paths: []string{ListenerPathPattern + ".hostname"}, WarningKind: KindMergedOverlappingHostnames,
		Cause: "An HTTPS or HTTP/3 listener overlaps the hostname of a listener of the Gateway or of another of its ListenerSets on the same port (an exact name under a wildcard, nested wildcards, a hostname and none): both get OverlappingTLSConfig (OverlappingHostnames), and with HTTP/2 connection coalescing a request can reach the other's routes. A warning only, also under strict.",
		Fix:   "Nothing, if that is meant (one certificate for both, or a catch-all); otherwise use a hostname that does not overlap, or another port; the listeners command shows both listeners."},
}

// optionCodes are the catalog entries the Airlock options' rows hold
// (AirlockOption.Doc): an option with a code of its own is described where
// it is defined.
func optionCodes() []findings.CodeDoc {
	var docs []findings.CodeDoc
	for _, o := range AirlockOptions {
		if o.Doc != nil {
			d := *o.Doc
			d.Code, d.Kind, d.Paths = o.Code, findings.CodeKindError, []string{optionPathPattern}
			docs = append(docs, d)
		}
	}
	return docs
}

// ownCodes is codeDocs and the options' codes.
var ownCodes = append(slices.Clone(codeDocs), optionCodes()...)

// Codes is every code this package's rules give, by code; package
// validation's catalog holds them with every other code.
func Codes() []findings.CodeDoc {
	out := slices.Concat(ownCodes, setRuleCodes())
	rules := codeRules()
	for i := range out {
		out[i].Rules = rules[out[i].Code]
	}
	slices.SortFunc(out, func(a, b findings.CodeDoc) int { return strings.Compare(string(a.Code), string(b.Code)) })
	return out
}

// ownKindCodes is the code of each warning kind of this package that has
// one of its own.
var ownKindCodes = findings.CodesByKind(ownCodes)

// kindCode is the code of warnings of kind k; "" for a kind that wraps an
// error (its warnings carry the error's code).
func kindCode(k findings.WarningKind) findings.Code { return ownKindCodes[k] }
