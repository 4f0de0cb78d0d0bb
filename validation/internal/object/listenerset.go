package object

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation"

	"k8s.io/apimachinery/pkg/util/validation/field"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/defaults"
	"github.com/airlock/listenerset-webhook/findings"
	"github.com/airlock/listenerset-webhook/validation/internal/verdict"
	"github.com/airlock/listenerset-webhook/validation/internal/views"
)

// parentRefRules define the rules of spec.parentRef (Rule).
var parentRefRules = []Rule{
	{Number: 10, Field: "`spec.parentRef`", Summary: fmt.Sprintf("kind `%s`, group `%s`, name required, namespace a DNS label", defaults.GatewayKind, gwv1.GroupName),
		Errors: "Unsupported value / Required / Invalid", Codes: []findings.Code{CodeParentRefKind, CodeParentRefName, CodeParentRefNamespace},
		Valid:   Example{At: "spec.parentRef.namespace", Value: "infra"},
		Invalid: Example{At: "spec.parentRef.kind", Value: "Service"}},
}

// ValidateSpec applies the object's own rules to ls (defaulted, as
// v.Ratchet.New), recording what they find into v. c, when not nil, only
// tells the cross-namespace reminder whether the cluster-aware rules will
// judge a reference exactly (see validateCertificateRef); added are the
// names a newer release adds to the option lists.
func ValidateSpec(ls *gwv1.ListenerSet, c views.Cluster, added AddedNames, fldPath *field.Path, rec *verdict.Verdict) {
	v := &judging{Verdict: rec, added: added}
	validateParentRef(&ls.Spec.ParentRef, fldPath.Child("parentRef"), v)
	validateListeners(ls, c, fldPath.Child("listeners"), v)
}

// judging is what the object's rules record into: the shared verdict, and
// the option names a newer release adds, which the option rules read.
type judging struct {
	*verdict.Verdict
	added AddedNames
}

// validateParentRef: a ListenerSet attaches to a Gateway and nothing else.
// Each field's error ratchets by that field.
func validateParentRef(ref *gwv1.ParentGatewayReference, fldPath *field.Path, v *judging) {
	judge := func(value func(*gwv1.ParentGatewayReference) any, errs ...*field.Error) {
		if len(errs) > 0 {
			v.Judge(v.Ratchet.ParentRef(value), errs...)
		}
	}
	if ref.Group != nil && *ref.Group != gwv1.GroupName {
		judge(func(r *gwv1.ParentGatewayReference) any { return r.Group },
			CodeParentRefKind.Err(field.NotSupported(fldPath.Child("group"), string(*ref.Group), []string{gwv1.GroupName})))
	}
	if ref.Kind != nil && *ref.Kind != defaults.GatewayKind {
		judge(func(r *gwv1.ParentGatewayReference) any { return r.Kind },
			CodeParentRefKind.Err(field.NotSupported(fldPath.Child("kind"), string(*ref.Kind), []gwv1.Kind{defaults.GatewayKind})))
	}
	judge(func(r *gwv1.ParentGatewayReference) any { return r.Name }, CodeParentRefName.Errs(validateDNSSubdomain(ref.Name, fldPath.Child("name")))...)
	if ref.Namespace != nil {
		judge(func(r *gwv1.ParentGatewayReference) any { return r.Namespace }, CodeParentRefNamespace.Errs(validateNamespace(*ref.Namespace, fldPath.Child("namespace")))...)
	}
}

// validateDNSSubdomain checks a required name with the DNS subdomain format:
// listener names, and the names of the Gateway and Secrets referenced (both
// kinds take such names, so anything else can never resolve).
func validateDNSSubdomain[T ~string](name T, fldPath *field.Path) field.ErrorList {
	if name == "" {
		return field.ErrorList{field.Required(fldPath, "")}
	}
	var errs field.ErrorList
	for _, msg := range validation.IsDNS1123Subdomain(string(name)) {
		errs = append(errs, field.Invalid(fldPath, string(name), msg))
	}
	return errs
}

func validateNamespace(ns gwv1.Namespace, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, msg := range validation.IsDNS1123Label(string(ns)) {
		errs = append(errs, field.Invalid(fldPath, string(ns), msg))
	}
	return errs
}
