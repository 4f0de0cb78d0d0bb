package judge

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
	sigsjson "sigs.k8s.io/json"

	"github.com/airlock/listenerset-webhook/findings"
	"github.com/airlock/listenerset-webhook/offline/read"
)

// KindUnknownField is the warning kind of a field the ListenerSet type does
// not have (kube-apiserver prunes it), beside validation's WarningKinds and
// read's.
const KindUnknownField = "UnknownField"

func fieldError(e *field.Error) FieldError {
	fe := FieldError{Field: e.Field, Code: string(errorCode(e)), Type: string(e.Type), Detail: e.Detail, Message: e.Error()}
	if fe.Field == "<nil>" {
		// A nil path (kube-apiserver's note that it skipped the CEL rules,
		// a body it cannot decode) is no field; the message keeps "<nil>"
		// as kubectl prints it.
		fe.Field = ""
	}
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

// validationWarnings converts the verdict's warnings, keeping path and kind.
func validationWarnings(ws findings.Warnings) []read.Warning {
	out := make([]read.Warning, 0, len(ws))
	for _, w := range ws {
		out = append(out, read.Warning{Field: w.Path, Kind: string(w.Kind), Code: string(w.Code), Message: w.String()})
	}
	return out
}

// limitWarnings shows ws as every engine shows a verdict's warnings
// (validation's report): the first that fit its budget, each cut to its
// length, then one that says how many more there were. The strict decode's
// warnings (one per unknown field) are as many as a document makes them.
func limitWarnings(ws []read.Warning) []read.Warning {
	var r findings.WarningReport
	for _, w := range ws {
		r.Add(findings.Warning{Kind: findings.WarningKind(w.Kind), Message: w.Message})
	}
	shown := r.Shown()
	out := make([]read.Warning, len(shown), len(shown)+1)
	for k, s := range shown {
		out[k] = ws[k]
		out[k].Field = findings.Cut(out[k].Field, findings.MaxPathBytes, findings.CutPathSuffix)
		out[k].Message = s.Message
		if out[k].Code == "" {
			out[k].Code = string(warningCode(out[k].Kind))
		}
	}
	if more, ok := r.More(); ok {
		out = append(out, read.Warning{Field: more.Path, Kind: string(more.Kind), Code: string(more.Code), Message: more.String()})
	}
	return out
}

// strictWarning is an unknown or duplicate field the strict JSON decode
// noticed; its message is the decoder's, as kubectl prints it.
func strictWarning(err error) read.Warning {
	w := read.Warning{Kind: KindUnknownField, Message: err.Error()}
	var fe sigsjson.FieldError
	if errors.As(err, &fe) {
		w.Field = fe.FieldPath()
	}
	if strings.HasPrefix(w.Message, "duplicate field") {
		w.Kind = read.KindDuplicateField
	}
	return w
}

// locate gives every finding of r the line and column of its field, from
// the document's position tree: the field itself, or its nearest existing
// parent when it is missing. Without a tree (the document could not be read
// as a node tree) findings point at the object's first line. Reading has
// placed its own warnings (duplicate YAML keys) already.
func (r *Result) locate() {
	at := func(field string) (int, int) {
		// Built on the first finding: most results have none to place.
		tree := r.pos.Tree()
		if tree == nil {
			return max(r.Line, 1), 1
		}
		p, _ := tree.Find(field)
		return p.Line, p.Column
	}
	for i := range r.Errors {
		if e := &r.Errors[i]; e.Line == 0 {
			e.Line, e.Column = at(e.Field)
		}
	}
	for i := range r.Warnings {
		if w := &r.Warnings[i]; w.Column == 0 {
			w.Line, w.Column = at(w.Field)
		}
	}
	r.pos = nil
}

// FieldErrors converts errs as the verdict shows them.
func FieldErrors(errs field.ErrorList) []FieldError {
	out := make([]FieldError, 0, len(errs))
	for _, e := range errs {
		out = append(out, fieldError(e))
	}
	return out
}
