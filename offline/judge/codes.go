package judge

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/airlock/listenerset-webhook/findings"
	"github.com/airlock/listenerset-webhook/offline/read"
	"github.com/airlock/listenerset-webhook/validation"
)

// The codes of what the offline commands find besides the webhook's rules
// (validation's codes): the input, and kube-apiserver's own checks. An
// error gets its code where it is built (unknown fields, a body that does
// not decode) or, being none of the rules' and none of those,
// CodeAPIServerError; a warning by its kind (Codes' WarningKind). Codes,
// once given, are never given to another finding.
const (
	CodeInputError        findings.Code = "LS010"
	CodeUndecodable       findings.Code = "LS011"
	CodeUnknownField      findings.Code = "LS012"
	CodeDuplicateField    findings.Code = "LS013"
	CodeStrictDecoding    findings.Code = "LS014"
	CodeAPIServerError    findings.Code = "LS015"
	CodeAPIServerWarning  findings.Code = "LS016"
	CodeStatusDiffers     findings.Code = "LS017"
	CodeStatusNotReported findings.Code = "LS018"
)

// The warning kinds of a stored listener's status against the merged
// list's prediction (reported.Compare): the audit's (Options.Reported).
const (
	KindStatusDiffers     = "StatusDiffers"
	KindStatusNotReported = "StatusNotReported"
)

// Codes describes the codes of this package, as validation.Catalog does
// the rules'.
var Codes = []findings.CodeDoc{
	{Code: CodeInputError, Kind: findings.CodeKindOffline, Title: "Input cannot be read or parsed",
		Cause: "A file, or a YAML document or JSON value in it, could not be read or parsed (or a --crd could not be loaded); nothing after it in that file was validated.",
		Fix:   "Fix the syntax at the line given."},
	{Code: CodeUndecodable, Kind: findings.CodeKindOffline, Title: "Object cannot be decoded",
		Cause: "A field has a value of the wrong type, so kube-apiserver (or the webhook) cannot decode the ListenerSet at all.",
		Fix:   "Give the field the type the message names."},
	{Code: CodeUnknownField, Kind: findings.CodeKindOffline, Title: "Unknown field", WarningKind: KindUnknownField,
		Cause: "A field the ListenerSet type does not have, perhaps misspelt; kube-apiserver does not keep it. An error under kubectl's strict field validation (the default), a warning with --unknown-fields=warn.",
		Fix:   "Correct the field's name or remove it."},
	{Code: CodeDuplicateField, Kind: findings.CodeKindOffline, Title: "Duplicate field", WarningKind: read.KindDuplicateField,
		Cause: "A key given twice in one mapping; the last value wins, the first is silently lost.",
		Fix:   "Remove one of the two."},
	{Code: CodeStrictDecoding, Kind: findings.CodeKindOffline, Title: "Strict decoding", WarningKind: read.KindStrictDecoding,
		Cause: "The YAML decodes only leniently; the message says why.",
		Fix:   "Write the YAML as the message asks."},
	{Code: CodeAPIServerError, Kind: findings.CodeKindOffline, Title: "Refused by kube-apiserver",
		Cause: "kube-apiserver itself refuses the object, before the webhook: the ListenerSet CRD's schema or CEL rules, or the object's metadata (name, labels, annotations, finalizers, owner references). The message is kube-apiserver's.",
		Fix:   "Fix the field the message names as it says."},
	{Code: CodeAPIServerWarning, Kind: findings.CodeKindOffline, Title: "kube-apiserver warning", WarningKind: KindAPIServer,
		Cause: "A warning kube-apiserver itself gives on such an object (for example on a finalizer name); the object is admitted.",
		Fix:   "Follow the message."},
	{Code: CodeStatusDiffers, Kind: findings.CodeKindOffline, Title: "Listener status differs from the prediction", WarningKind: KindStatusDiffers,
		Cause: "The audit found a stored ListenerSet's listener whose status (status.listeners, the set's Accepted condition) reports another state, conflict reason or attachedRoutes than the merged listener list predicts (what `kubectl listenerset listeners` shows). Either the controller or the prediction reads Gateway API's rules wrongly (someone should look), or the cluster changed (another set, a route, the Gateway) after the controller last wrote the status.",
		Fix:   "Compare `kubectl listenerset listeners --kubeconfig FILE -o wide` (REPORTED, DIFFERENCE, MESSAGE) with the controller's logs; report the difference to whoever is wrong."},
	{Code: CodeStatusNotReported, Kind: findings.CodeKindOffline, Title: "Listener status not reported", WarningKind: KindStatusNotReported,
		Cause: "The audit found a stored ListenerSet's listener of which the controller reported nothing: no status.listeners entry, only the CRD's default Pending (\"Waiting for controller\"), or a status written for an older generation of the set. A controller that does not support ListenerSets, or that does not own the Gateway's GatewayClass, never writes one.",
		Fix:   "Check that the Gateway's GatewayClass is accepted by a controller that lists ListenerSet among its supportedFeatures, and the controller's logs for the set."},
}

// kindCodes is the code of each warning kind of Codes.
var kindCodes = findings.CodesByKind(Codes)

// warningCode is the code of a warning of kind: validation's (its rules'
// kinds) or this package's.
func warningCode(kind string) findings.Code {
	if c := validation.KindCode(findings.WarningKind(kind)); c != "" {
		return c
	}
	return kindCodes[findings.WarningKind(kind)]
}

// errorCode is the code of an error: the rule's, or kube-apiserver's.
func errorCode(e *field.Error) findings.Code {
	if c := findings.CodeOf(e); c != "" {
		return c
	}
	return CodeAPIServerError
}
