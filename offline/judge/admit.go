package judge

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	jsonpatchapply "github.com/evanphx/json-patch/v5"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation/field"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
	sigsjson "sigs.k8s.io/json"

	"github.com/airlock/listenerset-webhook/defaults"
	"github.com/airlock/listenerset-webhook/findings"
	"github.com/airlock/listenerset-webhook/offline/crdcheck"
	"github.com/airlock/listenerset-webhook/offline/read"
)

// UnknownFields says what a field the CRD does not know makes of an object:
// kube-apiserver's fieldValidation (Strict, Warn, Ignore).
type UnknownFields string

// The values of Options.UnknownFields.
const (
	// UnknownFieldsError: the object is invalid, as under kubectl apply's
	// default, strict field validation. The default.
	UnknownFieldsError UnknownFields = "error"
	// UnknownFieldsWarn: a warning, and the field is dropped
	// (--validate=warn).
	UnknownFieldsWarn UnknownFields = "warn"
	// UnknownFieldsIgnore: dropped silently (--validate=ignore).
	UnknownFieldsIgnore UnknownFields = "ignore"
)

// UnknownFieldsModes lists the values, for help texts.
var UnknownFieldsModes = []UnknownFields{UnknownFieldsError, UnknownFieldsWarn, UnknownFieldsIgnore}

// loadChecker compiles the CRD of opts: the files of opts.CRDs, or the
// embedded one.
func loadChecker(opts Options) (*crdcheck.Checker, error) {
	if len(opts.CRDs) == 0 {
		return crdcheck.Default()
	}
	return crdcheck.Load(opts.CRDs)
}

// apiserverView is one ListenerSet as kube-apiserver would take a create of
// it, up to its validating admission webhooks.
type apiserverView struct {
	// errors are what kube-apiserver itself refuses the object for: fields
	// the CRD does not know (strict field validation), a body it cannot
	// decode, the CRD's schema and CEL rules and object metadata.
	errors field.ErrorList
	// messages are the messages of errors that kube-apiserver words
	// otherwise than field.Error does (the strict decoding errors), by index.
	messages map[int]string
	// warnings are the unknown fields under UnknownFieldsWarn, the
	// duplicate fields, and the strategy's warnings.
	warnings []read.Warning
	// ls is the object the validating webhook receives (pruned, defaulted
	// by the CRD and the mutating webhook); nil when it does not decode into
	// the Go type.
	ls *gwv1.ListenerSet
	// old is the stored set ls replaces (an update), nil for a create
	// (storedRivals).
	old *gwv1.ListenerSet
}

// asAPIServer takes raw through kube-apiserver's create path for the
// CRD of c: decode (pruning, defaulting), the request's namespace ns for
// an object without one (the handler sets it before admission), the
// mutating webhook (the
// defaults the CRD did not set, for a set ours says is Airlock's; every set
// when ours is nil), then the registry's validation.
func asAPIServer(c *crdcheck.Checker, raw []byte, unknown UnknownFields, ns string, ours func(*gwv1.ListenerSet) bool) apiserverView {
	var view apiserverView
	d, err := c.DecodeCreate(raw)
	if err != nil {
		view.errors = field.ErrorList{CodeUndecodable.Err(field.TypeInvalid(nil, nil, err.Error()))}
		view.messages = map[int]string{0: fmt.Sprintf("%s in version %q cannot be handled as a %s: %v",
			crdcheck.Kind, crdcheck.Version, crdcheck.Kind, err)}
		return view
	}
	if c.NamespaceScoped() && d.Object.GetNamespace() == "" && ns != "" {
		d.Object.SetNamespace(ns)
	}
	for _, p := range d.UnknownFields {
		msg := fmt.Sprintf("unknown field %q", p)
		switch unknown {
		case UnknownFieldsWarn:
			view.warnings = append(view.warnings, read.Warning{Field: p, Kind: KindUnknownField, Message: msg})
		case UnknownFieldsIgnore:
		default:
			if view.messages == nil {
				view.messages = map[int]string{}
			}
			view.messages[len(view.errors)] = "strict decoding error: " + msg
			view.errors = append(view.errors, CodeUnknownField.Err(field.Forbidden(fieldPath(p), "unknown field")))
		}
	}
	// kubectl sends the object it decoded, in which the last of duplicate
	// fields has won: kube-apiserver never sees them. They stay warnings.
	for _, e := range d.DuplicateFields {
		view.warnings = append(view.warnings, strictWarning(e))
	}
	var decodeErr error
	view.ls, decodeErr = mutate(c, d.Object, ours)
	errs, warnings := c.ValidateCreate(context.Background(), d.Object)
	view.errors = append(view.errors, errs...)
	if decodeErr != nil && len(view.errors) == 0 {
		// What the CRD admits and the Go types cannot hold: the webhook
		// answers 400, and its failurePolicy Fail refuses the object.
		view.errors = append(view.errors, CodeUndecodable.Err(field.TypeInvalid(nil, nil, "the webhook cannot decode the object: "+decodeErr.Error())))
	}
	for _, w := range warnings {
		f, _, _ := strings.Cut(w, ": ")
		view.warnings = append(view.warnings, read.Warning{Field: f, Kind: KindAPIServer, Message: w})
	}
	return view
}

// KindAPIServer is the kind of kube-apiserver's own warnings (finalizer
// names).
const KindAPIServer = "APIServer"

// mutate is the mutating webhook: where defaults.ListenerSet has anything
// to set, obj gets the webhook's patch (additions and replacements only, as
// the webhook sends it) and the CRD's defaults again, as kube-apiserver
// gives them to a patched object; a set ours (when set) says is not
// Airlock's is left as it is, as the webhook's scope leaves it. It returns the object as the Go type, or
// why it does not decode into it (mostly a value of the wrong type, which
// the CRD's schema reports too).
func mutate(c *crdcheck.Checker, obj *unstructured.Unstructured, ours func(*gwv1.ListenerSet) bool) (*gwv1.ListenerSet, error) {
	before, err := json.Marshal(obj.Object)
	if err != nil {
		return nil, err
	}
	ls := &gwv1.ListenerSet{}
	// Fields the Go types lack (a newer CRD's) are strict errors here; the
	// webhook ignores them too.
	if _, err := sigsjson.UnmarshalStrict(before, ls); err != nil {
		return nil, err
	}
	if ours != nil && !ours(ls) {
		return ls, nil
	}
	ops, err := defaults.Patch(before, ls)
	if err != nil || len(ops) == 0 {
		return ls, nil
	}
	patchJSON, err := json.Marshal(ops)
	if err != nil {
		return ls, nil
	}
	patch, err := jsonpatchapply.DecodePatch(patchJSON)
	if err != nil {
		return ls, nil
	}
	patched, err := patch.Apply(before)
	if err != nil {
		return ls, nil
	}
	if err := obj.UnmarshalJSON(patched); err != nil {
		return ls, nil
	}
	c.Default(obj)
	return ls, nil
}

// fieldPath turns a path as kube-apiserver prints it
// (spec.listeners[0].foo, metadata.labels[a.b/c]) back into a field.Path.
func fieldPath(s string) *field.Path {
	var p *field.Path
	child := func(name string) {
		if p == nil {
			p = field.NewPath(name)
		} else {
			p = p.Child(name)
		}
	}
	for s != "" {
		switch s[0] {
		case '.':
			s = s[1:]
		case '[':
			end := strings.IndexByte(s, ']')
			if end < 0 {
				child(s)
				return p
			}
			if i, err := strconv.Atoi(s[1:end]); err == nil && p != nil {
				p = p.Index(i)
			} else if p != nil {
				p = p.Key(s[1:end])
			} else {
				child(s[:end+1])
			}
			s = s[end+1:]
		default:
			end := strings.IndexAny(s, ".[")
			if end < 0 {
				end = len(s)
			}
			child(s[:end])
			s = s[end:]
		}
	}
	return p
}

// merge is the verdict's error list: the webhook's errors, and before them
// kube-apiserver's own that the webhook's do not cover. A CRD error is
// covered by a webhook error at its path or below it (the CRD's CEL rules
// often name only spec.listeners, the webhook the listener); a count,
// length or required-value error only by one of the same type at the same
// path, since those are problems of their own.
//
// kube-apiserver's note that it skipped the CEL rules because of other
// errors (an error without a path) is kept only with an error it stands
// for.
//
// The list is shown as every engine shows a verdict (validation's report):
// kube-apiserver's errors and the webhook's report go into one report with
// its budget, and what does not fit is counted in its last entry.
func merge(api apiserverView, webhook *findings.ErrorReport) []FieldError {
	shownWebhook := webhook.List()
	uncovered := 0
	for _, e := range api.errors {
		if hasPath(e) && !covered(e, shownWebhook) {
			uncovered++
		}
	}
	var r findings.ErrorReport
	// messages[k] is the wording of the k-th error added, when kube-apiserver's is its own
	var messages []string
	for i, e := range api.errors {
		if hasPath(e) && covered(e, shownWebhook) || !hasPath(e) && uncovered == 0 && webhook.Total() > 0 {
			continue
		}
		r.Add(e)
		messages = append(messages, api.messages[i])
	}
	r.AddReport(webhook, func(e *field.Error) bool { return !zeroValueOf(e, api.errors) })
	out := []FieldError{}
	for k, e := range r.List() {
		fe := fieldError(e)
		if k < len(messages) && messages[k] != "" {
			// kube-apiserver's wording quotes the field as written: cut as
			// the report cuts a path and a detail
			fe.Message = findings.Cut(messages[k], findings.MaxPathBytes+findings.MaxDetailBytes, findings.CutSuffix)
		}
		out = append(out, fe)
	}
	return out
}

// zeroValueOf: the webhook judged the zero value of a field the CRD says is
// required (a missing port is "0"); the CRD's Required says it better.
func zeroValueOf(w *field.Error, api field.ErrorList) bool {
	for _, e := range api {
		if e.Type == field.ErrorTypeRequired && e.Field == w.Field && w.Type != field.ErrorTypeRequired {
			return true
		}
	}
	return false
}

func hasPath(e *field.Error) bool { return e.Field != "" && e.Field != "<nil>" }

func covered(e *field.Error, webhook field.ErrorList) bool {
	for _, w := range webhook {
		switch e.Type {
		case field.ErrorTypeTooMany, field.ErrorTypeTooLong, field.ErrorTypeTooShort, field.ErrorTypeRequired, field.ErrorTypeForbidden:
			if w.Field == e.Field && w.Type == e.Type {
				return true
			}
		default:
			if w.Field == e.Field || strings.HasPrefix(w.Field, e.Field+".") || strings.HasPrefix(w.Field, e.Field+"[") {
				return true
			}
		}
	}
	return false
}
