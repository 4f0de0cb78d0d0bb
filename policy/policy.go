package policy

import (
	"bytes"
	"fmt"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	"github.com/airlock/listenerset-webhook/registration"
	"github.com/airlock/listenerset-webhook/validation/merged"
	"github.com/airlock/listenerset-webhook/validation/object"
)

// Default names of the generated objects.
const (
	DefaultPolicyName  = "listenerset.microgateway.airlock.com"
	DefaultBindingName = "listenerset.microgateway.airlock.com"
)

// Options configure Generate.
type Options struct {
	// PolicyName and BindingName name the two objects (the defaults when
	// empty).
	PolicyName, BindingName string
	// Actions are the binding's validationActions (Deny when empty).
	Actions []admissionregistrationv1.ValidationAction
	// NamespaceSelector limits the binding to the namespaces it selects
	// (every namespace when nil).
	NamespaceSelector *metav1.LabelSelector
	// AddedNames are names the list-valued TLS options accept besides the
	// built-in ones, as the webhook's --add-names: each option's
	// AcceptedNamesVariable holds them.
	AddedNames object.AddedNames
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

// Generate returns the policy and its binding. It fails when the
// apimachinery it is built with no longer gives the messages the policy's
// CEL is written for.
func Generate(opts Options) (*admissionregistrationv1.ValidatingAdmissionPolicy, *admissionregistrationv1.ValidatingAdmissionPolicyBinding, error) {
	opts = opts.withDefaults()
	tenancy := merged.Tenancy{AllowedHostnamesAnnotation: opts.AllowedHostnamesAnnotation}
	if err := tenancy.Check(); err != nil {
		return nil, nil, err
	}
	e, err := expressions()
	if err != nil {
		return nil, nil, err
	}
	vars := make([]admissionregistrationv1.Variable, len(e.variables))
	for i, v := range e.variables {
		vars[i] = admissionregistrationv1.Variable{Name: v.name, Expression: v.expression}
		for _, key := range object.ListOptions {
			if v.name == AcceptedNamesVariable(key) && len(opts.AddedNames[key]) > 0 {
				vars[i].Expression = list(opts.AddedNames.Names(key))
			}
		}
		if v.name == AllowedHostnamesVariable {
			vars[i].Expression = lit(tenancy.Annotation())
		}
	}
	policy := &admissionregistrationv1.ValidatingAdmissionPolicy{
		TypeMeta:   metav1.TypeMeta{APIVersion: admissionregistrationv1.SchemeGroupVersion.String(), Kind: "ValidatingAdmissionPolicy"},
		ObjectMeta: metav1.ObjectMeta{Name: opts.PolicyName},
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
			// The usual valid object is told apart cheaply and skips the
			// rest (fast.go).
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
		ObjectMeta: metav1.ObjectMeta{Name: opts.BindingName},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{
			PolicyName:        opts.PolicyName,
			ValidationActions: opts.Actions,
		},
	}
	if opts.NamespaceSelector != nil {
		binding.Spec.MatchResources = &admissionregistrationv1.MatchResources{NamespaceSelector: opts.NamespaceSelector.DeepCopy()}
	}
	if err := opts.scope(policy); err != nil {
		return nil, nil, err
	}
	return policy, binding, nil
}

// YAML returns the policy and its binding as a two-document YAML stream.
func YAML(opts Options) ([]byte, error) {
	policy, binding, err := Generate(opts)
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	for i, obj := range []any{policy, binding} {
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
