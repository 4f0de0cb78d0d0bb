package policy

import (
	"bytes"
	"fmt"

	"github.com/airlock/listenerset-webhook/validation"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	"github.com/airlock/listenerset-webhook/registration"
)

// Default names of the generated objects: the rules' policy and binding;
// the declarations' are named with DeclarationsPrefix before them.
const (
	DefaultPolicyName  = "listenerset.microgateway.airlock.com"
	DefaultBindingName = "listenerset.microgateway.airlock.com"
)

// DeclarationsPrefix comes before the names of the rules' policy and
// binding in the names of the declarations' (Policies.Declarations).
const DeclarationsPrefix = "declared-hostnames."

// Options configure Generate.
type Options struct {
	// PolicyName and BindingName name the rules' policy and binding (the
	// defaults when empty); the declarations' take DeclarationsPrefix
	// before them.
	PolicyName, BindingName string
	// Actions are the binding's validationActions (Deny when empty).
	Actions []admissionregistrationv1.ValidationAction
	// NamespaceSelector limits the binding to the namespaces it selects
	// (every namespace when nil).
	NamespaceSelector *metav1.LabelSelector
	// AddedNames are names the list-valued TLS options accept besides the
	// built-in ones, as the webhook's --add-names: each option's
	// AcceptedNamesVariable holds them.
	AddedNames validation.AddedNames
	// Gateways, when not empty, scope the policy to the ListenerSets of
	// these Gateways, Airlock's: "namespace/name" or "namespace/*"
	// (ValidateGateways), in a match condition (scope.go). Empty: every
	// ListenerSet.
	Gateways []string
	// AllowedHostnamesAnnotation is the Namespace annotation the
	// declarations of the hostnames a namespace's ListenerSets may claim
	// are read from, as the webhook's --allowed-hostnames-annotation;
	// validation.DefaultAllowedHostnamesAnnotation when empty.
	AllowedHostnamesAnnotation string
}

func (o Options) withDefaults() Options {
	if o.PolicyName == "" {
		o.PolicyName = DefaultPolicyName
	}
	if o.BindingName == "" {
		o.BindingName = DefaultBindingName
	}
	if len(o.Actions) == 0 {
		o.Actions = []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny}
	}
	return o
}

// Pair is a policy and its binding.
type Pair struct {
	Policy  *admissionregistrationv1.ValidatingAdmissionPolicy
	Binding *admissionregistrationv1.ValidatingAdmissionPolicyBinding
}

// Policies are the generated objects: two policies, each with its binding,
// that together judge what validation.Validate judges without a cluster
// view, the Namespace's hostname declaration included.
type Policies struct {
	// Rules judges every rule, the declared hostnames included, on every
	// ListenerSet but the usual valid one, which its match condition
	// FastPathCondition skips (fast.go).
	Rules Pair
	// Declarations judges the declared hostnames of the ListenerSets the
	// rules skip, where their Namespace declares them: a match condition
	// cannot read the Namespace, a validation can (declared.go).
	Declarations Pair
}

// Pairs are the rules' pair and the declarations', in that order.
func (p Policies) Pairs() []Pair { return []Pair{p.Rules, p.Declarations} }

// Generate returns the policies and their bindings. It fails when the
// apimachinery it is built with no longer gives the messages the policies'
// CEL is written for.
func Generate(opts Options) (Policies, error) {
	opts = opts.withDefaults()
	tenancy := validation.Tenancy{AllowedHostnamesAnnotation: opts.AllowedHostnamesAnnotation}
	if err := tenancy.Check(); err != nil {
		return Policies{}, err
	}
	e, err := expressions()
	if err != nil {
		return Policies{}, err
	}
	rules := opts.pair(opts.PolicyName, opts.BindingName, e.rules, tenancy)
	rules.Policy.Spec.MatchConditions = []admissionregistrationv1.MatchCondition{{Name: FastPathCondition, Expression: e.rules.fastPath}}
	declarations := opts.pair(DeclarationsPrefix+opts.PolicyName, DeclarationsPrefix+opts.BindingName, e.declarations, tenancy)
	for _, p := range []Pair{rules, declarations} {
		if err := opts.scope(p.Policy); err != nil {
			return Policies{}, err
		}
	}
	return Policies{Rules: rules, Declarations: declarations}, nil
}

// pair is the policy of the CEL e and its binding, named policyName and
// bindingName.
func (o Options) pair(policyName, bindingName string, e celPolicy, tenancy validation.Tenancy) Pair {
	vars := make([]admissionregistrationv1.Variable, len(e.variables))
	for i, v := range e.variables {
		vars[i] = admissionregistrationv1.Variable{Name: v.name, Expression: v.expression}
		for _, key := range validation.ListOptions {
			if v.name == AcceptedNamesVariable(key) && len(o.AddedNames[key]) > 0 {
				vars[i].Expression = list(o.AddedNames.Names(key))
			}
		}
		if v.name == AllowedHostnamesVariable {
			vars[i].Expression = lit(tenancy.Annotation())
		}
	}
	policy := &admissionregistrationv1.ValidatingAdmissionPolicy{
		TypeMeta:   metav1.TypeMeta{APIVersion: admissionregistrationv1.SchemeGroupVersion.String(), Kind: "ValidatingAdmissionPolicy"},
		ObjectMeta: metav1.ObjectMeta{Name: policyName},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
			// An error in the policy's own evaluation (it should have none:
			// test/policy checks the costliest object) denies, as the
			// webhook's failurePolicy Fail does.
			FailurePolicy: ptr.To(admissionregistrationv1.Fail),
			MatchConstraints: &admissionregistrationv1.MatchResources{
				ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
					RuleWithOperations: registration.Rule(),
				}},
			},
			Variables: vars,
			Validations: []admissionregistrationv1.Validation{{
				Expression:        e.validation,
				MessageExpression: e.message,
				Message:           "the ListenerSet is invalid (the policy's message could not be built)",
				Reason:            ptr.To(metav1.StatusReasonInvalid),
			}},
		},
	}
	binding := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{
		TypeMeta:   metav1.TypeMeta{APIVersion: admissionregistrationv1.SchemeGroupVersion.String(), Kind: "ValidatingAdmissionPolicyBinding"},
		ObjectMeta: metav1.ObjectMeta{Name: bindingName},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{
			PolicyName:        policyName,
			ValidationActions: o.Actions,
		},
	}
	if o.NamespaceSelector != nil {
		binding.Spec.MatchResources = &admissionregistrationv1.MatchResources{NamespaceSelector: o.NamespaceSelector.DeepCopy()}
	}
	return Pair{Policy: policy, Binding: binding}
}

// YAML returns the policies and their bindings as a four-document YAML
// stream: the rules' policy and binding, then the declarations'.
func YAML(opts Options) ([]byte, error) {
	p, err := Generate(opts)
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	for i, obj := range []any{p.Rules.Policy, p.Rules.Binding, p.Declarations.Policy, p.Declarations.Binding} {
		data, err := yaml.Marshal(obj)
		if err != nil {
			return nil, fmt.Errorf("marshal: %w", err)
		}
		if i > 0 {
			out.WriteString("---\n")
		}
		out.Write(data)
	}
	return out.Bytes(), nil
}
