package validation

import (
	"maps"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
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

// MaxSelectorItems bounds each list of a route selector (matchLabels,
// matchExpressions and each expression's values), the only lists the CRD
// does not bound: kube-apiserver would pass a 3 MiB selector of 64 000
// expressions, whose judging costs every engine in proportion, while a
// namespace selector in use has a handful of requirements (namespaces are
// chosen by label; a list of names is what from: Same and labels avoid).
// 8 is what the policy's CEL can judge on 64 listeners with every other
// field wrong within kube-apiserver's budget (policy.TestWorstObjectCost:
// 16 values an expression put that object over it). A list over the bound
// is denied as Too many and its items are not judged.
const MaxSelectorItems = 8

// validateLabelSelector is apimachinery's ValidateLabelSelector within the
// bounds above. matchLabels are judged in key order, so the same object
// always gets the same answer (apimachinery's is in map order; found by
// FuzzValidateListenerSet).
func validateLabelSelector(sel *metav1.LabelSelector, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	labelsPath := fldPath.Child("matchLabels")
	if n := len(sel.MatchLabels); n > MaxSelectorItems {
		errs = append(errs, field.TooMany(labelsPath, n, MaxSelectorItems))
	} else {
		for _, k := range slices.Sorted(maps.Keys(sel.MatchLabels)) {
			errs = append(errs, metav1validation.ValidateLabels(map[string]string{k: sel.MatchLabels[k]}, labelsPath)...)
		}
	}
	exprPath := fldPath.Child("matchExpressions")
	if n := len(sel.MatchExpressions); n > MaxSelectorItems {
		return append(errs, field.TooMany(exprPath, n, MaxSelectorItems))
	}
	for i, expr := range sel.MatchExpressions {
		if n := len(expr.Values); n > MaxSelectorItems {
			errs = append(errs, field.TooMany(exprPath.Index(i).Child("values"), n, MaxSelectorItems))
			continue
		}
		errs = append(errs, metav1validation.ValidateLabelSelectorRequirement(expr, metav1validation.LabelSelectorValidationOptions{}, exprPath.Index(i))...)
	}
	return errs
}
