package offline

import (
	"encoding/json"
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation/field"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
	sigsjson "sigs.k8s.io/json"

	"github.com/airlock/listenerset-webhook/defaults"
	"github.com/airlock/listenerset-webhook/validation"
)

// decode decodes one ListenerSet like kube-apiserver (case-sensitive,
// unknown and duplicate fields noticed) and defaults it like the webhook.
func decode(loc Location, h head, raw []byte, docWarnings []string) pending {
	res := Result{Location: loc, Namespace: h.Metadata.Namespace, Name: h.Metadata.Name,
		Errors: []FieldError{}, Warnings: append([]string{}, docWarnings...)}
	ls := &gwv1.ListenerSet{}
	strictErrs, err := sigsjson.UnmarshalStrict(raw, ls)
	if err != nil {
		where := loc.File + ", document " + fmt.Sprint(loc.Document)
		if loc.Item > 0 {
			where += ", item " + fmt.Sprint(loc.Item)
		}
		res.Errors = append(res.Errors, FieldError{
			Type:    string(field.ErrorTypeTypeInvalid),
			Message: fmt.Sprintf("cannot decode (%s): %v", where, err),
		})
		return pending{res: res}
	}
	for _, e := range strictErrs {
		res.Warnings = append(res.Warnings, e.Error())
	}
	defaults.ListenerSet(ls)
	return pending{res: res, ls: ls}
}

// validatePending gives each decoded ListenerSet the webhook's verdict
// (validation.Validate) with the other objects of the input as its cluster:
// the ListenerSets that pass their own rules (the webhook would never have
// stored the others), and whichever Gateways, ReferenceGrants, Namespaces and
// Secrets it holds. A kind the input holds none of is unknown, and its rules
// are skipped.
func (v *run) validatePending() {
	v.objects.Sets = []*gwv1.ListenerSet{}
	for _, p := range v.pending {
		if p.ls == nil {
			continue
		}
		if errs, _ := validation.Validate(p.ls, nil, validation.Options{}); len(errs) == 0 {
			v.objects.Sets = append(v.objects.Sets, p.ls)
		}
	}
	for _, p := range v.pending {
		res := p.res
		if p.ls != nil {
			errs, warnings := validation.Validate(p.ls, nil, validation.Options{Cluster: &v.objects, Strict: v.opts.Strict})
			res.Warnings = append(res.Warnings, warnings.Strings()...)
			for _, e := range errs {
				res.Errors = append(res.Errors, fieldError(e))
			}
			res.Valid = len(res.Errors) == 0
		}
		v.result(res)
	}
}

func fieldError(e *field.Error) FieldError {
	fe := FieldError{Field: e.Field, Type: string(e.Type), Detail: e.Detail, Message: e.Error()}
	switch e.Type {
	case field.ErrorTypeRequired, field.ErrorTypeForbidden, field.ErrorTypeTooLong,
		field.ErrorTypeTooShort, field.ErrorTypeInternal:
		// The message shows no value for these types; neither does the JSON.
	default:
		if _, omit := e.BadValue.(field.OmitValueType); !omit {
			fe.Value = jsonValue(e.BadValue)
		}
	}
	return fe
}

// jsonValue keeps values that encode as JSON and falls back to their text.
func jsonValue(v any) any {
	if _, err := json.Marshal(v); err != nil {
		return fmt.Sprint(v)
	}
	return v
}
