package offline

import (
	"cmp"
	"encoding/json"
	"fmt"
	"runtime"
	"slices"
	"strings"

	"golang.org/x/sync/errgroup"
	"k8s.io/apimachinery/pkg/util/validation/field"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/validation"
)

// validatePending gives each ListenerSet kube-apiserver's verdict on a
// create of it: the CRD and object metadata as the server applies them
// (asAPIServer), then the webhook's (validation.Validate) with the other
// objects of the input as its cluster. A kind the input holds none of is
// unknown, and its rules are skipped.
//
// The sets are judged in Gateway API's precedence order (creation time,
// then namespace/name), as a server would have admitted them one after the
// other, and only those found valid become rivals of the later ones: a set
// the server refuses, for its own rules, the CRD's or --strict's, is never
// stored. The results are reported in input order.
func (v *run) validatePending() {
	if len(v.pending) == 0 {
		return
	}
	checker, err := loadChecker(v.opts)
	if err != nil {
		v.inputError(InputError{File: strings.Join(v.opts.CRDs, ","), Message: "--crd: " + err.Error()})
		return
	}
	unknown := v.opts.UnknownFields
	if unknown == "" {
		unknown = UnknownFieldsError
	}
	// kube-apiserver's part (the CRD's schema and CEL rules, some 2-3 ms a
	// ListenerSet, most of the command's time) depends on nothing but the
	// object: it runs on every core. The webhook's verdict below depends on
	// the sets admitted before, so it runs in order.
	views := make([]apiserverView, len(v.pending))
	order := make([]int, len(v.pending))
	var g errgroup.Group
	g.SetLimit(runtime.GOMAXPROCS(0))
	for i, p := range v.pending {
		g.Go(func() error {
			views[i] = asAPIServer(checker, p.raw, unknown)
			v.pending[i].raw = nil // read once; the view is what is left of it
			return nil
		})
		order[i] = i
	}
	_ = g.Wait() // the workers return no error
	slices.SortStableFunc(order, func(a, b int) int { return comparePrecedence(views[a].ls, views[b].ls) })
	v.objects.Sets = []*gwv1.ListenerSet{}
	results := make([]Result, len(v.pending))
	for _, i := range order {
		p, view := v.pending[i], views[i]
		res := p.res
		res.Warnings = append(slices.Clone(p.res.Warnings), view.warnings...)
		webhook := &validation.ErrorReport{}
		if view.ls != nil {
			r := validation.Judge(view.ls, nil, validation.Options{Cluster: &v.objects, Strict: v.opts.Strict})
			res.Warnings = append(res.Warnings, validationWarnings(r.Warnings.List())...)
			webhook = &r.Errors
		}
		res.Errors = merge(view, webhook)
		res.Warnings = limitWarnings(res.Warnings)
		res.Valid = len(res.Errors) == 0
		if res.Valid {
			v.objects.Sets = append(v.objects.Sets, view.ls)
		}
		results[i] = res
	}
	for _, res := range results {
		v.result(res)
	}
}

// comparePrecedence is validation.ComparePrecedence with the sets that do
// not decode (nil) last: they are invalid and no rival.
func comparePrecedence(a, b *gwv1.ListenerSet) int {
	if a == nil || b == nil {
		return cmp.Compare(boolInt(a == nil), boolInt(b == nil))
	}
	return validation.ComparePrecedence(a, b)
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func fieldError(e *field.Error) FieldError {
	fe := FieldError{Field: e.Field, Type: string(e.Type), Detail: e.Detail, Message: e.Error()}
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
