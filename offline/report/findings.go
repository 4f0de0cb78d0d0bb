package report

import (
	"fmt"
	"regexp"
	"slices"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/airlock/listenerset-webhook/offline/judge"
	"github.com/airlock/listenerset-webhook/offline/read"
	"github.com/airlock/listenerset-webhook/validation"
)

// ruleInputError is the rule of input that cannot be read or parsed.
const ruleInputError = "InputError"

// rule is one check, as SARIF lists it and as a user suppresses it.
type rule struct {
	// ID is stable across runs and versions: an error's field.ErrorType and
	// field path without indices or keys (FieldValueDuplicate/
	// spec.listeners[*].name), a warning's kind (ForeignOption), or
	// InputError.
	ID string
	// Short and Help describe the check.
	Short, Help string
}

// finding is one error or warning of a result, or an input error: what the
// CI formats show, each with its file, line and field.
type finding struct {
	File         string
	Line, Column int
	Field        string
	Error        bool // an error, else a warning
	Message      string
	// Object is the ListenerSet ("ns/name"); empty for input errors.
	Object string
	Rule   rule
	// Baseline is how it stands against a live cluster's findings (empty
	// when not compared); a Fixed one is the live object's.
	Baseline judge.Baseline
}

// findings lists every finding of r: input errors first (they were met
// while reading), then each result's errors and warnings, in input order.
func (r *Report) findings() []finding {
	var out []finding
	for _, e := range r.InputErrors {
		msg := e.Message
		if e.Document > 0 {
			msg = fmt.Sprintf("document %d: %s", e.Document, msg)
		}
		out = append(out, finding{File: e.File, Line: e.Line, Column: e.Column, Error: true, Message: msg,
			Rule: rule{ID: ruleInputError, Short: "Input cannot be read or parsed",
				Help: "The file, or a YAML document or JSON value in it, could not be read or parsed, so nothing after it in that file was validated. Fix the syntax at the line given."}})
	}
	for _, res := range r.Results {
		obj := read.Name(res.Namespace, res.Name)
		errs, warns := res.Errors, res.Warnings
		if res.Fixed != nil {
			errs = append(slices.Clip(errs), res.Fixed.Errors...)
			warns = append(slices.Clip(warns), res.Fixed.Warnings...)
		}
		for _, e := range errs {
			out = append(out, finding{File: res.File, Line: e.Line, Column: e.Column, Field: e.Field,
				Error: true, Message: e.Message, Object: obj, Rule: errorRule(e), Baseline: e.Baseline})
		}
		for _, w := range warns {
			out = append(out, finding{File: res.File, Line: w.Line, Column: w.Column, Field: w.Field,
				Message: w.Message, Object: obj, Rule: warningRule(w.Kind), Baseline: judge.Baseline(w.Baseline)})
		}
	}
	return out
}

var pathKey = regexp.MustCompile(`\[[^\]]*\]`)

// template is a field path with each index and key replaced by *.
func template(path string) string {
	return pathKey.ReplaceAllString(path, "[*]")
}

func errorRule(e judge.FieldError) rule {
	what := field.ErrorType(e.Type).String()
	if e.Field == "" {
		return rule{ID: e.Type, Short: "The object cannot be decoded: " + what,
			Help: "A field has a value of the wrong type, so kube-apiserver cannot decode the ListenerSet at all. The message names the field and the type it needs."}
	}
	t := template(e.Field)
	return rule{ID: e.Type + "/" + t, Short: t + ": " + what,
		Help: fmt.Sprintf("kube-apiserver refuses the ListenerSet (the webhook's verdict, or the CRD's): %s reports %q. "+
			"The message names the listener and says what is allowed; see \"What is rejected\" in the README.", t, what)}
}

// warningHelp describes each warning kind; a kind missing here still gets a
// rule, with a generic text (TestWarningKindsHaveHelp keeps the map whole).
var warningHelp = map[string][2]string{
	string(validation.KindCrossNamespaceRef): {"Certificate reference to another namespace",
		"A certificateRef names a Secret in another namespace. It is usable only once that namespace holds a ReferenceGrant for it; without one the listener has no certificate."},
	string(validation.KindForeignOption): {"TLS option of another implementation",
		"A tls.options key that is not an Airlock Microgateway option. It is legal Gateway API, and Airlock Microgateway ignores it."},
	string(validation.KindSelectorIgnored): {"Route namespace selector that is not used",
		"allowedRoutes.namespaces.selector is set, but from is not Selector, so Gateway API ignores the selector."},
	string(validation.KindRatcheted): {"Error allowed because the update leaves it unchanged",
		"An error the stored object already has; the update is let through because it does not change it, but it still needs fixing."},
	string(validation.KindGatewayNotFound): {"Parent Gateway not found",
		"The parentRef names a Gateway the input does not hold; the ListenerSet stays unattached until it exists."},
	string(validation.KindNotAllowed): {"Gateway does not admit the ListenerSet",
		"The parent Gateway's allowedListeners does not admit ListenerSets from this namespace; it would be NotAllowed."},
	string(validation.KindSecretNotFound): {"Referenced Secret not found",
		"A certificateRef names a Secret the input does not hold; the listener has no certificate (InvalidCertificateRef) until it exists."},
	string(validation.KindHostnameLabelTooLong): {"Hostname label longer than 63 characters",
		"RFC 1123 allows at most 63 characters per label; such a hostname can never match a client's SNI or Host header."},
	string(validation.KindClusterFinding): {"Listener conflict or reference not permitted",
		"A conflict with the Gateway's merged listener list (the listener would be Conflicted), or a certificate reference that no ReferenceGrant permits. An error under --strict."},
	judge.KindUnknownField: {"Unknown field",
		"A field the ListenerSet type does not have, perhaps misspelt; kube-apiserver does not keep it."},
	read.KindDuplicateField: {"Duplicate field",
		"A key given twice in one mapping; the last value wins, the first is silently lost."},
	read.KindStrictDecoding: {"Strict decoding",
		"The YAML decodes only leniently; the message says why."},
	judge.KindAPIServer: {"kube-apiserver warning",
		"A warning kube-apiserver itself gives on such an object (for example on a finalizer name); the object is admitted."},
}

func warningRule(kind string) rule {
	if h, ok := warningHelp[kind]; ok {
		return rule{ID: kind, Short: h[0], Help: h[1]}
	}
	return rule{ID: kind, Short: kind, Help: "A warning of kind " + kind + ": the object is admitted, but the message says what to check."}
}
