package validation

import (
	"maps"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// supportedFrom excludes None: Gateway API defines it for allowedListeners,
// not for routes.
var supportedFrom = []gwv1.FromNamespaces{gwv1.NamespacesFromAll, gwv1.NamespacesFromSame, gwv1.NamespacesFromSelector}

func validateAllowedRoutes(ar *gwv1.AllowedRoutes, fldPath *field.Path, w *WarningReport) field.ErrorList {
	var errs field.ErrorList
	for i := range ar.Kinds {
		errs = append(errs, validateRouteKind(&ar.Kinds[i], fldPath.Child("kinds").Index(i))...)
	}
	if ar.Namespaces != nil {
		errs = append(errs, validateRouteNamespaces(ar.Namespaces, fldPath.Child("namespaces"), w)...)
	}
	return errs
}

// validateRouteKind: Airlock Microgateway attaches HTTPRoutes only.
func validateRouteKind(k *gwv1.RouteGroupKind, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	if k.Group != nil && *k.Group != gwv1.GroupName {
		errs = append(errs, field.NotSupported(fldPath.Child("group"), string(*k.Group), []string{gwv1.GroupName}))
	}
	if k.Kind != "HTTPRoute" {
		if k.Kind == "" {
			errs = append(errs, field.Required(fldPath.Child("kind"), ""))
		} else {
			errs = append(errs, field.NotSupported(fldPath.Child("kind"), string(k.Kind), []string{"HTTPRoute"}))
		}
	}
	return errs
}

func validateRouteNamespaces(ns *gwv1.RouteNamespaces, fldPath *field.Path, w *WarningReport) field.ErrorList {
	from := gwv1.NamespacesFromSame
	if ns.From != nil {
		from = *ns.From
	}
	var errs field.ErrorList
	switch from {
	case gwv1.NamespacesFromSelector:
		if ns.Selector == nil {
			errs = append(errs, field.Required(fldPath.Child("selector"), "required when from is Selector"))
		} else {
			errs = append(errs, validateLabelSelector(ns.Selector, fldPath.Child("selector"))...)
		}
	case gwv1.NamespacesFromAll, gwv1.NamespacesFromSame:
		if ns.Selector != nil {
			w.add(fldPath.Child("selector"), KindSelectorIgnored, WarnSelectorIgnored, from)
		}
	default:
		errs = append(errs, field.NotSupported(fldPath.Child("from"), string(from), supportedFrom))
	}
	return errs
}

// validateLabelSelector is apimachinery's ValidateLabelSelector, one label
// and one expression at a time: the selector's lists are the only ones the
// CRD does not bound, so that a 3 MiB selector of invalid expressions would
// give 128 000 errors (validationtest.MostSelectorErrors). Past MaxErrors
// errors, more than a report shows, the rest are only counted
// (countLabelSelectorErrors) and summed up in one MoreErrors at the
// selector's path. matchLabels are judged in key order, so the same object
// always gets the same answer (apimachinery's is in map order; found by
// FuzzValidateListenerSet).
func validateLabelSelector(sel *metav1.LabelSelector, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	hidden := 0
	labelsPath := fldPath.Child("matchLabels")
	for _, k := range slices.Sorted(maps.Keys(sel.MatchLabels)) {
		label := map[string]string{k: sel.MatchLabels[k]}
		if len(errs) >= MaxErrors {
			hidden += countLabelSelectorErrors(&metav1.LabelSelector{MatchLabels: label})
			continue
		}
		errs = append(errs, metav1validation.ValidateLabels(label, labelsPath)...)
	}
	exprPath := fldPath.Child("matchExpressions")
	for i, expr := range sel.MatchExpressions {
		if len(errs) >= MaxErrors {
			hidden += countLabelSelectorErrors(&metav1.LabelSelector{MatchExpressions: sel.MatchExpressions[i : i+1]})
			continue
		}
		errs = append(errs, metav1validation.ValidateLabelSelectorRequirement(expr, metav1validation.LabelSelectorValidationOptions{}, exprPath.Index(i))...)
	}
	if hidden > 0 {
		errs = append(errs, moreErrors(fldPath.String(), hidden))
	}
	return errs
}

// countLabelSelectorErrors counts the errors ValidateLabelSelector gives
// sel without building them (no path, no field.Error): the same checks of
// apimachinery's validation package, by the same functions.
// TestCountLabelSelectorErrors holds the two equal.
func countLabelSelectorErrors(sel *metav1.LabelSelector) int {
	n := 0
	for k, v := range sel.MatchLabels {
		n += len(validation.IsQualifiedName(k)) + len(validation.IsValidLabelValue(v))
	}
	for _, e := range sel.MatchExpressions {
		switch e.Operator {
		case metav1.LabelSelectorOpIn, metav1.LabelSelectorOpNotIn:
			if len(e.Values) == 0 {
				n++
			}
		case metav1.LabelSelectorOpExists, metav1.LabelSelectorOpDoesNotExist:
			if len(e.Values) > 0 {
				n++
			}
		default:
			n++
		}
		n += len(validation.IsQualifiedName(e.Key))
		for _, v := range e.Values {
			n += len(validation.IsValidLabelValue(v))
		}
	}
	return n
}
