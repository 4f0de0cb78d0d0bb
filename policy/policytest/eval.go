package policytest

import (
	"context"
	"fmt"
	"math"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilversion "k8s.io/apimachinery/pkg/util/version"
	"k8s.io/apiserver/pkg/admission"
	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"
	"k8s.io/apiserver/pkg/admission/plugin/policy/validating"
	"k8s.io/apiserver/pkg/admission/plugin/webhook/matchconditions"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"k8s.io/apiserver/pkg/cel/environment"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/policy"
)

// Evaluator is one or more compiled policies, evaluated as kube-apiserver
// evaluates the policies bound to a request: each decides on its own (with
// its own budget), and the request is denied when one denies.
type Evaluator struct {
	validators []validating.Validator
}

// CompilePolicies compiles both of the generated policies (Compile), to be
// evaluated together.
func CompilePolicies(p policy.Policies, ver *utilversion.Version) (*Evaluator, error) {
	return CompileAll([]*admissionregistrationv1.ValidatingAdmissionPolicy{p.Rules.Policy, p.Declarations.Policy}, ver)
}

// CompileAll compiles each of policies (Compile), to be evaluated together.
func CompileAll(policies []*admissionregistrationv1.ValidatingAdmissionPolicy, ver *utilversion.Version) (*Evaluator, error) {
	var all Evaluator
	for _, vap := range policies {
		e, err := Compile(vap, ver)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", vap.Name, err)
		}
		all.validators = append(all.validators, e.validators...)
	}
	return &all, nil
}

// Compile compiles policy as kube-apiserver does for a stored policy, with
// the CEL environment of compatibility version ver (e.g. 1.29, what a 1.30
// kube-apiserver accepts in a new policy). An expression that does not
// compile makes every evaluation an error; CompileErrors names them.
func Compile(policy *admissionregistrationv1.ValidatingAdmissionPolicy, ver *utilversion.Version) (*Evaluator, error) {
	compiler, err := plugincel.NewCompositedCompiler(environment.MustBaseEnvSet(ver))
	if err != nil {
		return nil, err
	}
	compiler.CompileAndStoreVariables(variables(policy), optional, environment.NewExpressions)
	validations := make([]plugincel.ExpressionAccessor, len(policy.Spec.Validations))
	messages := make([]plugincel.ExpressionAccessor, len(policy.Spec.Validations))
	for i, v := range policy.Spec.Validations {
		validations[i] = &validating.ValidationCondition{Expression: v.Expression, Message: v.Message, Reason: v.Reason}
		if v.MessageExpression != "" {
			messages[i] = &validating.MessageExpressionCondition{MessageExpression: v.MessageExpression}
		}
	}
	var matcher matchconditions.Matcher
	if len(policy.Spec.MatchConditions) > 0 {
		conds := make([]plugincel.ExpressionAccessor, len(policy.Spec.MatchConditions))
		for i := range policy.Spec.MatchConditions {
			conds[i] = (*matchconditions.MatchCondition)(&policy.Spec.MatchConditions[i])
		}
		matcher = matchconditions.NewMatcher(compiler.CompileCondition(conds, optional, environment.NewExpressions), policy.Spec.FailurePolicy, "policy", "validate", policy.Name)
	}
	v := validating.NewValidator(
		compiler.CompileCondition(validations, optional, environment.NewExpressions),
		matcher,
		compiler.CompileCondition(nil, optional, environment.NewExpressions),
		compiler.CompileCondition(messages, plugincel.OptionalVariableDeclarations{HasAuthorizer: false}, environment.NewExpressions),
		policy.Spec.FailurePolicy, nil)
	return &Evaluator{validators: []validating.Validator{v}}, nil
}

// optional are the variables a policy without params sees.
var optional = plugincel.OptionalVariableDeclarations{HasParams: false, HasAuthorizer: true}

func variables(policy *admissionregistrationv1.ValidatingAdmissionPolicy) []plugincel.NamedExpressionAccessor {
	vars := make([]plugincel.NamedExpressionAccessor, len(policy.Spec.Variables))
	for i, v := range policy.Spec.Variables {
		vars[i] = &validating.Variable{Name: v.Name, Expression: v.Expression}
	}
	return vars
}

// CompileErrors compiles each expression of policy on its own, as
// kube-apiserver validates a new policy, and returns an error for each that
// does not compile in the CEL environment of compatibility version ver.
func CompileErrors(policy *admissionregistrationv1.ValidatingAdmissionPolicy, ver *utilversion.Version) []error {
	compiler, err := plugincel.NewCompositedCompiler(environment.MustBaseEnvSet(ver))
	if err != nil {
		return []error{err}
	}
	compiler.CompileAndStoreVariables(variables(policy), optional, environment.NewExpressions)
	var errs []error
	for _, c := range policy.Spec.MatchConditions {
		// compiled as kube-apiserver validates them: without variables
		if r := plugincel.NewCompiler(environment.MustBaseEnvSet(ver)).CompileCELExpression((*matchconditions.MatchCondition)(&c), optional, environment.NewExpressions); r.Error != nil {
			errs = append(errs, fmt.Errorf("matchCondition %s: %v", c.Name, r.Error))
		}
	}
	for _, v := range policy.Spec.Variables {
		if r := compiler.CompileCELExpression(&validating.Variable{Name: v.Name, Expression: v.Expression}, optional, environment.NewExpressions); r.Error != nil {
			errs = append(errs, fmt.Errorf("variable %s: %v", v.Name, r.Error))
		}
	}
	for i, v := range policy.Spec.Validations {
		if r := compiler.CompileCELExpression(&validating.ValidationCondition{Expression: v.Expression}, optional, environment.NewExpressions); r.Error != nil {
			errs = append(errs, fmt.Errorf("validation %d: %v", i, r.Error))
		}
		if v.MessageExpression != "" {
			if r := compiler.CompileCELExpression(&validating.MessageExpressionCondition{MessageExpression: v.MessageExpression}, plugincel.OptionalVariableDeclarations{}, environment.NewExpressions); r.Error != nil {
				errs = append(errs, fmt.Errorf("validation %d messageExpression: %v", i, r.Error))
			}
		}
	}
	return errs
}

// Result is the policies' decision on one request.
type Result struct {
	// Allowed is true when the policy admits the object.
	Allowed bool
	// Error is true when the evaluation failed (a CEL error, the cost
	// budget exhausted) rather than decided; Message says why.
	Error   bool
	Message string
	Reason  metav1.StatusReason
}

var gvr = schema.GroupVersionResource{Group: gwv1.GroupName, Version: "v1", Resource: "listenersets"}
var gvk = schema.GroupVersionKind{Group: gwv1.GroupName, Version: "v1", Kind: "ListenerSet"}

// Evaluate runs the policy on a create (old nil) or an update of obj, with
// budget as the runtime cost budget (celconfig.RuntimeCELCostBudget when 0),
// in a Namespace of obj's namespace without labels or annotations.
func (e *Evaluator) Evaluate(obj, old map[string]any, budget int64) Result {
	ns, _, _ := unstructured.NestedString(obj, "metadata", "namespace")
	return e.EvaluateIn(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, obj, old, budget)
}

// EvaluateIn is Evaluate with ns as the request's Namespace
// (namespaceObject; nil as for a cluster-scoped request).
func (e *Evaluator) EvaluateIn(ns *corev1.Namespace, obj, old map[string]any, budget int64) Result {
	if budget == 0 {
		budget = celconfig.RuntimeCELCostBudget
	}
	newObj := &unstructured.Unstructured{Object: obj}
	var oldObj runtime.Object
	op := admission.Create
	if old != nil {
		oldObj = &unstructured.Unstructured{Object: old}
		op = admission.Update
	}
	attr := admission.NewAttributesRecord(newObj, oldObj, gvk, newObj.GetNamespace(), newObj.GetName(), gvr, "", op, nil, true, nil)
	va := &admission.VersionedAttributes{Attributes: attr, VersionedObject: admission.NewLazyObject(newObj), VersionedKind: gvk}
	if oldObj != nil {
		va.VersionedOldObject = admission.NewLazyObject(oldObj)
	}
	out := Result{Allowed: true}
	for _, v := range e.validators {
		res := v.Validate(context.Background(), gvr, va, nil, ns, budget, nil)
		for _, d := range res.Decisions {
			switch d.Evaluation {
			case validating.EvalError:
				return Result{Error: true, Message: d.Message}
			case validating.EvalDeny:
				// kube-apiserver reports the first denial
				if out.Allowed {
					out = Result{Message: d.Message, Reason: d.Reason}
				}
			}
		}
	}
	return out
}

// Cost is the least runtime cost budget with which the policy decides
// obj (old on update) without running out: the cost kube-apiserver charges
// the evaluation, validation and message together, to within 0.1 % from
// above (the tests give it to a tenth of a percent); ok is false when even
// max is not enough.
func (e *Evaluator) Cost(obj, old map[string]any, max int64) (cost int64, ok bool) {
	ns, _, _ := unstructured.NestedString(obj, "metadata", "namespace")
	return e.CostIn(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, obj, old, max)
}

// CostIn is Cost with ns as the request's Namespace (EvaluateIn). Each step
// is a whole evaluation (seconds for the worst objects), so the bracket
// narrows by the geometric mean while its ends are more than a factor 2
// apart (a cost of 10^4 in a budget of 10^7 takes 5 steps, not 10), then
// by halves until it is within 0.1 %: about 15 evaluations, where
// bisection to the unit took 24.
func (e *Evaluator) CostIn(ns *corev1.Namespace, obj, old map[string]any, limit int64) (cost int64, ok bool) {
	if r := e.EvaluateIn(ns, obj, old, limit); r.Error {
		return 0, false
	}
	lo, hi := int64(0), limit // lo fails (or is 0), hi decides
	for hi-lo > 1 && hi-lo > hi/1000 {
		mid := lo + (hi-lo)/2
		if hi > 2*max(lo, 1) {
			mid = int64(math.Sqrt(float64(max(lo, 1)) * float64(hi)))
		}
		if r := e.EvaluateIn(ns, obj, old, mid); r.Error {
			lo = mid
		} else {
			hi = mid
		}
	}
	return hi, true
}
