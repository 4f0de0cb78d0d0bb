package policy

import (
	"fmt"
	"slices"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// The scope: which ListenerSets the policy judges. A policy cannot read the
// parent Gateway or its GatewayClass, so it cannot tell Airlock's
// ListenerSets from another implementation's the way the webhook does; a
// platform that runs several implementations lists Airlock's Gateways in a
// ConfigMap instead, the binding's parameter, and the policy judges only the
// ListenerSets whose parentRef names one of them. The list is data the
// platform keeps current without touching the policy (kube-apiserver
// compiles a policy for seconds when it changes, a parameter not at all).

// ScopeCondition names the match condition that leaves out the ListenerSets
// of Gateways the parameter does not list. It comes before the fast path
// (FastPathCondition), which is unchanged.
const ScopeCondition = "airlock-gateway"

// GatewaysKey is the key of the parameter ConfigMap's data that lists
// Airlock's Gateways: entries "namespace/name", or "namespace/*" for every
// Gateway of a namespace, one a line. The CEL reads
// it as a field (params.data.gateways), so it stays an identifier.
const GatewaysKey = "gateways"

// AnyGateway is the name of an entry that stands for every Gateway of its
// namespace.
const AnyGateway = "*"

// DefaultGatewaysNamespace is where the parameter ConfigMap lives when
// Options.GatewaysConfigMap names no namespace: whoever can write it decides
// which ListenerSets the policy judges, so a namespace only the platform
// writes.
const DefaultGatewaysNamespace = "kube-system"

// scopeExpression is the scope's match condition: true (judge) when the
// ListenerSet's parent Gateway, its parentRef's namespace (the set's own
// when absent, as the reference says) and name, is listed, or its namespace
// is listed with "*"; true as well when the binding gives no parameter
// (params null: a binding without paramRef), which judges every ListenerSet
// as the unscoped policy does. A parameter without the key lists nothing.
//
// The list is split into lines once and each line trimmed (so a CRLF line
// end or an indented line still counts), then looked up twice: a cost
// linear in the list's bytes, which a ConfigMap bounds (1 MiB;
// TestScopeCost), and nothing per listener. A search in the whole text
// would cost its length times the entry's, over the per-call limit for a
// long list.
// The parentRef's kind is not read: a parentRef that names a listed
// Gateway's namespace and name with another kind is judged, and the rules
// deny its kind.
func scopeExpression() string {
	return fill(`params == null || [params.?data.?{key}.orValue("").split("\n").map(l, l.trim())].all(gws, `+
		`[object.spec.parentRef.?namespace.orValue(request.namespace) + "/"].all(ns, `+
		`ns + object.spec.parentRef.name in gws || ns + {any} in gws))`,
		"key", GatewaysKey, "any", lit(AnyGateway))
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

// scoped tells whether opts scope the policy, after checking them.
func (o Options) scoped() (bool, error) {
	if len(o.Gateways) == 0 {
		return false, nil
	}
	if errs := ValidateGateways(o.Gateways, field.NewPath("gateways")); len(errs) > 0 {
		return false, errs.ToAggregate()
	}
	switch o.GatewaysNotFound {
	case admissionregistrationv1.DenyAction, admissionregistrationv1.AllowAction:
	default:
		return false, fmt.Errorf("gatewaysNotFound: %q is not Deny or Allow", o.GatewaysNotFound)
	}
	ref := o.GatewaysConfigMap
	for _, msg := range validation.IsDNS1123Label(ref.Namespace) {
		return false, fmt.Errorf("gatewaysConfigMap: namespace %q: %s", ref.Namespace, msg)
	}
	for _, msg := range validation.IsDNS1123Subdomain(ref.Name) {
		return false, fmt.Errorf("gatewaysConfigMap: name %q: %s", ref.Name, msg)
	}
	return true, nil
}

// scope adds the scope to the policy and its binding: the ConfigMap as the
// policy's paramKind, the scope's match condition first, and the binding's
// paramRef to the ConfigMap by namespace and name (without a namespace,
// kube-apiserver would look for it in each ListenerSet's own namespace).
func (o Options) scope(policy *admissionregistrationv1.ValidatingAdmissionPolicy, binding *admissionregistrationv1.ValidatingAdmissionPolicyBinding) {
	policy.Spec.ParamKind = &admissionregistrationv1.ParamKind{APIVersion: "v1", Kind: "ConfigMap"}
	policy.Spec.MatchConditions = slices.Insert(policy.Spec.MatchConditions, 0,
		admissionregistrationv1.MatchCondition{Name: ScopeCondition, Expression: scopeExpression()})
	action := o.GatewaysNotFound
	binding.Spec.ParamRef = &admissionregistrationv1.ParamRef{
		Name: o.GatewaysConfigMap.Name, Namespace: o.GatewaysConfigMap.Namespace,
		ParameterNotFoundAction: &action,
	}
}

// GatewaysConfigMap returns the binding's parameter for opts: the ConfigMap
// that lists opts.Gateways, one a line; nil when opts do not scope the
// policy.
func GatewaysConfigMap(opts Options) (*corev1.ConfigMap, error) {
	opts = opts.withDefaults()
	scoped, err := opts.scoped()
	if err != nil || !scoped {
		return nil, err
	}
	return &corev1.ConfigMap{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{Name: opts.GatewaysConfigMap.Name, Namespace: opts.GatewaysConfigMap.Namespace},
		Data:       map[string]string{GatewaysKey: strings.Join(opts.Gateways, "\n") + "\n"},
	}, nil
}
