package object

import (
	"fmt"
	"maps"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/findings"
)

// HTTPRouteKind is the one route kind Airlock Microgateway attaches.
const HTTPRouteKind gwv1.Kind = "HTTPRoute"

// DetailSelectorRequired: from Selector without a selector.
const DetailSelectorRequired = "required when from is " + string(gwv1.NamespacesFromSelector)

// SupportedFrom are the values of a route's namespaces.from, in the order
// error messages name them. It excludes None: Gateway API defines it for
// allowedListeners, not for routes.
var SupportedFrom = []gwv1.FromNamespaces{gwv1.NamespacesFromAll, gwv1.NamespacesFromSame, gwv1.NamespacesFromSelector}

// routeRules define the rules of this file (Rule).
var routeRules = []Rule{
	{Number: 9, Field: "`spec.listeners[i].allowedRoutes`",
		Summary: fmt.Sprintf("kinds only `%s` in group `%s`; `namespaces.from` one of %s; `%s` needs a valid `selector`, "+
			"each of its lists (`matchLabels`, `matchExpressions`, an expression's `values`) at most %d items (the CRD sets no bound; a longer list is not judged item by item; "+
			"choose namespaces by label)", HTTPRouteKind, gwv1.GroupName, quoted(SupportedFrom), gwv1.NamespacesFromSelector, MaxSelectorItems),
		Errors: "Unsupported value / Required / Invalid / Too many",
		Codes: []findings.Code{CodeRouteKind, CodeRouteNamespacesFrom, CodeRouteSelectorRequired, CodeRouteSelectorTooLong,
			CodeRouteSelectorLabel, CodeRouteSelectorExpression},
		Valid:   Example{At: "spec.listeners[0].allowedRoutes.kinds", Value: "[{kind: HTTPRoute}]"},
		Invalid: Example{At: "spec.listeners[0].allowedRoutes.kinds", Value: "[{kind: GRPCRoute}]"}},
}

// validateAllowedRoutes: kinds is an atomic list (its errors ratchet by
// the whole list), namespaces an object whose fields ratchet by their own
// values.
func validateAllowedRoutes(i int, ar *gwv1.AllowedRoutes, fldPath *field.Path, v *judging) {
	var errs field.ErrorList
	for j := range ar.Kinds {
		errs = append(errs, validateRouteKind(&ar.Kinds[j], fldPath.Child("kinds").Index(j))...)
	}
	v.Check(i, errs, kindsValue)
	if ar.Namespaces != nil {
		validateRouteNamespaces(i, ar.Namespaces, fldPath.Child("namespaces"), v)
	}
}

// validateRouteKind: Airlock Microgateway attaches HTTPRoutes only.
func validateRouteKind(k *gwv1.RouteGroupKind, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	if k.Group != nil && *k.Group != gwv1.GroupName {
		errs = append(errs, CodeRouteKind.Err(field.NotSupported(fldPath.Child("group"), string(*k.Group), []string{gwv1.GroupName})))
	}
	if k.Kind != HTTPRouteKind {
		if k.Kind == "" {
			errs = append(errs, CodeRouteKind.Err(field.Required(fldPath.Child("kind"), "")))
		} else {
			errs = append(errs, CodeRouteKind.Err(field.NotSupported(fldPath.Child("kind"), string(k.Kind), []gwv1.Kind{HTTPRouteKind})))
		}
	}
	return errs
}

// validateRouteNamespaces: "selector required when from is Selector"
// involves both fields.
func validateRouteNamespaces(i int, ns *gwv1.RouteNamespaces, fldPath *field.Path, v *judging) {
	from := gwv1.NamespacesFromSame
	if ns.From != nil {
		from = *ns.From
	}
	switch from {
	case gwv1.NamespacesFromSelector:
		if ns.Selector == nil {
			v.Check(i, field.ErrorList{CodeRouteSelectorRequired.Err(field.Required(fldPath.Child("selector"), DetailSelectorRequired))}, fromValue, selectorValue)
		} else {
			validateLabelSelector(i, ns.Selector, fldPath.Child("selector"), v)
		}
	case gwv1.NamespacesFromAll, gwv1.NamespacesFromSame:
		if ns.Selector != nil {
			warn(&v.Warnings, fldPath.Child("selector"), KindSelectorIgnored, warnSelectorIgnored, from)
		}
	default:
		v.Check(i, field.ErrorList{CodeRouteNamespacesFrom.Err(field.NotSupported(fldPath.Child("from"), string(from), SupportedFrom))}, fromValue)
	}
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
// FuzzValidateListenerSet). matchLabels is a map, each label's errors
// ratcheted by its value; matchExpressions an atomic list, ratcheted whole.
func validateLabelSelector(i int, sel *metav1.LabelSelector, fldPath *field.Path, v *judging) {
	labelsPath := fldPath.Child("matchLabels")
	if n := len(sel.MatchLabels); n > MaxSelectorItems {
		v.Check(i, field.ErrorList{CodeRouteSelectorTooLong.Err(field.TooMany(labelsPath, n, MaxSelectorItems))}, matchLabelsValue)
	} else {
		for _, k := range slices.Sorted(maps.Keys(sel.MatchLabels)) {
			v.Check(i, CodeRouteSelectorLabel.Errs(metav1validation.ValidateLabels(map[string]string{k: sel.MatchLabels[k]}, labelsPath)), matchLabelValue(k))
		}
	}
	exprPath := fldPath.Child("matchExpressions")
	if n := len(sel.MatchExpressions); n > MaxSelectorItems {
		v.Check(i, field.ErrorList{CodeRouteSelectorTooLong.Err(field.TooMany(exprPath, n, MaxSelectorItems))}, matchExpressionsValue)
		return
	}
	var errs field.ErrorList
	for j, expr := range sel.MatchExpressions {
		if n := len(expr.Values); n > MaxSelectorItems {
			errs = append(errs, CodeRouteSelectorTooLong.Err(field.TooMany(exprPath.Index(j).Child("values"), n, MaxSelectorItems)))
			continue
		}
		errs = append(errs, CodeRouteSelectorExpression.Errs(metav1validation.ValidateLabelSelectorRequirement(expr, metav1validation.LabelSelectorValidationOptions{}, exprPath.Index(j)))...)
	}
	v.Check(i, errs, matchExpressionsValue)
}
