package validation

import (
	"slices"
	"strings"

	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// supportedFrom excludes None: Gateway API defines it for allowedListeners,
// not for routes.
var supportedFrom = []gwv1.FromNamespaces{gwv1.NamespacesFromAll, gwv1.NamespacesFromSame, gwv1.NamespacesFromSelector}

func validateAllowedRoutes(ar *gwv1.AllowedRoutes, fldPath *field.Path, w *Warnings) field.ErrorList {
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

func validateRouteNamespaces(ns *gwv1.RouteNamespaces, fldPath *field.Path, w *Warnings) field.ErrorList {
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
			selectorPath := fldPath.Child("selector")
			selectorErrs := metav1validation.ValidateLabelSelector(ns.Selector, metav1validation.LabelSelectorValidationOptions{}, selectorPath)
			// apimachinery reports matchLabels first, in map order; sorted,
			// the same object always gets the same answer (found by
			// FuzzValidateListenerSet).
			labelsPath := selectorPath.Child("matchLabels").String()
			n := 0
			for n < len(selectorErrs) && selectorErrs[n].Field == labelsPath {
				n++
			}
			slices.SortFunc(selectorErrs[:n], func(a, b *field.Error) int { return strings.Compare(a.Error(), b.Error()) })
			errs = append(errs, selectorErrs...)
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
