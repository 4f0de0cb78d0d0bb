package policy

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// The scope: which ListenerSets the policy judges. A policy cannot read the
// parent Gateway or its GatewayClass, so it cannot tell Airlock's
// ListenerSets from another implementation's the way the webhook does; a
// platform that runs several implementations lists Airlock's Gateways, and
// the policy judges only the ListenerSets whose parentRef names one of them.
//
// The list is written into the policy's match condition, not read from a
// parameter (a ConfigMap as paramKind): kube-apiserver 1.30 to 1.36 stops a
// built-in paramKind's informer for good once no binding names that kind
// for a moment (an uninstall, a binding replaced) and then denies every
// request with "no params found" under parameterNotFoundAction Deny until
// it restarts, or judges by a stale copy; 1.37 reads a missing parameter
// directly but still keeps the stale copy. It would also keep every
// ConfigMap of the cluster in its memory. A change of the list is a change
// of the policy, which kube-apiserver compiles again (seconds of its CPU),
// rarely: Gateways are few and the platform creates them.

// ScopeCondition names the match condition that leaves out the ListenerSets
// of Gateways the list does not name: each policy's first (the rules' fast
// path, FastPathCondition, follows it).
const ScopeCondition = "airlock-gateway"

// MaxGatewaysBytes bounds the list as the match condition writes it (its
// CEL literal): kube-apiserver refuses an expression of more than 100 000
// characters, and the rest of the condition needs some. That is several
// hundred Gateways of the longest names, thousands of usual ones.
const MaxGatewaysBytes = 64 << 10

// AnyGateway is the name of an entry that stands for every Gateway of its
// namespace.
const AnyGateway = "*"

// scopeExpression is the scope's match condition for gateways: true (judge)
// when the ListenerSet's parent Gateway, its parentRef's namespace (the
// set's own when absent, as the reference says) and name, is listed, or its
// namespace is listed with "*". Two lookups in a constant list (written
// once), nothing per listener. The parentRef's kind is not read: a
// parentRef that names a listed Gateway's namespace and name with another
// kind is judged, and the rules deny its kind.
func scopeExpression(gateways []string) string {
	return fill(`[{gateways}].all(gws, [object.spec.parentRef.?namespace.orValue(request.namespace) + "/"].all(ns, `+
		`ns + object.spec.parentRef.name in gws || ns + {any} in gws))`,
		"gateways", gatewaysLiteral(gateways), "any", lit(AnyGateway))
}

// gatewaysLiteral is the list as CEL: JSON, which is CEL for the entries
// ValidateGateways admits, and what the chart's toJson writes for them.
func gatewaysLiteral(gateways []string) string {
	data, _ := json.Marshal(gateways)
	return string(data)
}

// ValidateGateways checks each entry of a Gateway list, at fldPath: a
// namespace (a DNS label), a "/" and a Gateway's name (a DNS subdomain) or
// "*".
func ValidateGateways(entries []string, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	seen := make(map[string]bool, len(entries))
	for i, entry := range entries {
		p := fldPath.Index(i)
		ns, name, ok := strings.Cut(entry, "/")
		if !ok {
			errs = append(errs, field.Invalid(p, entry, "must be namespace/name, or namespace/* for every Gateway of the namespace"))
			continue
		}
		for _, msg := range validation.IsDNS1123Label(ns) {
			errs = append(errs, field.Invalid(p, entry, "namespace: "+msg))
		}
		if name != AnyGateway {
			for _, msg := range validation.IsDNS1123Subdomain(name) {
				errs = append(errs, field.Invalid(p, entry, "name: "+msg))
			}
		}
		if seen[entry] {
			errs = append(errs, field.Duplicate(p, entry))
		}
		seen[entry] = true
	}
	return errs
}

// scope adds the scope's match condition to the policy, first, when opts
// list Gateways.
func (o Options) scope(policy *admissionregistrationv1.ValidatingAdmissionPolicy) error {
	if len(o.Gateways) == 0 {
		return nil
	}
	fldPath := field.NewPath("gateways")
	if errs := ValidateGateways(o.Gateways, fldPath); len(errs) > 0 {
		return errs.ToAggregate()
	}
	if n := len(gatewaysLiteral(o.Gateways)); n > MaxGatewaysBytes {
		e := field.TooLong(fldPath, "", MaxGatewaysBytes)
		e.Detail += fmt.Sprintf(" (the list, written as CEL, is %d bytes: a match condition holds %d with the rest of it)", n, MaxGatewaysBytes)
		return e
	}
	policy.Spec.MatchConditions = slices.Insert(policy.Spec.MatchConditions, 0,
		admissionregistrationv1.MatchCondition{Name: ScopeCondition, Expression: scopeExpression(o.Gateways)})
	return nil
}
