package validation

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation/field"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// Warnings are admission warnings, each "path: message". The object is still
// admitted; kubectl prints each as a "Warning:" line.
type Warnings []string

// add appends the warning "path: message".
func (w *Warnings) add(p *fieldPath, format string, args ...any) {
	*w = append(*w, p.String()+": "+fmt.Sprintf(format, args...))
}

// ValidateListenerSet returns every reason Airlock Microgateway cannot serve
// ls, each with the path of the offending field, and the warnings the object
// earns. It expects ls to be defaulted (defaults.ListenerSet) the way
// kube-apiserver stores it, but does not rely on the CRD schema having run:
// an unset field that has a default is judged as its default.
func ValidateListenerSet(ls *gwv1.ListenerSet) (field.ErrorList, Warnings) {
	var warnings Warnings
	errs := validateSpec(&ls.Spec, ls.Namespace, newPath("spec"), &warnings)
	return errs, warnings
}

// ValidateListenerSetUpdate validates newLS like ValidateListenerSet but
// ratchets: an error that oldLS already had, on the same field with the same
// value, does not block the update and becomes a warning instead, so objects
// stored before a rule existed can still be edited.
func ValidateListenerSetUpdate(newLS, oldLS *gwv1.ListenerSet) (field.ErrorList, Warnings) {
	errs, warnings := ValidateListenerSet(newLS)
	if len(errs) == 0 {
		return nil, warnings
	}
	oldErrs, _ := ValidateListenerSet(oldLS)
	return ratchet(errs, oldErrs, warnings)
}

// ratchet lets through each error of errs that oldErrs has too (same field,
// type, value and detail: the stored object already had it), adding it to
// warnings instead, and returns the errors that still block.
func ratchet(errs, oldErrs field.ErrorList, warnings Warnings) (field.ErrorList, Warnings) {
	stored := sets.New[string]()
	for _, e := range oldErrs {
		stored.Insert(e.Error())
	}
	var blocking field.ErrorList
	for _, e := range errs {
		if msg := e.Error(); stored.Has(msg) {
			warnings = append(warnings, fmt.Sprintf(WarnRatcheted, msg))
		} else {
			blocking = append(blocking, e)
		}
	}
	return blocking, warnings
}

func validateSpec(spec *gwv1.ListenerSetSpec, namespace string, fldPath *fieldPath, w *Warnings) field.ErrorList {
	errs := validateParentRef(&spec.ParentRef, fldPath.Child("parentRef"))
	errs = append(errs, validateListeners(spec.Listeners, namespace, fldPath.Child("listeners"), w)...)
	return errs
}

// validateParentRef: a ListenerSet attaches to a Gateway and nothing else.
func validateParentRef(ref *gwv1.ParentGatewayReference, fldPath *fieldPath) field.ErrorList {
	var errs field.ErrorList
	if ref.Group != nil && *ref.Group != gwv1.GroupName {
		errs = append(errs, field.NotSupported(fldPath.Child("group").Path(), string(*ref.Group), []string{gwv1.GroupName}))
	}
	if ref.Kind != nil && *ref.Kind != "Gateway" {
		errs = append(errs, field.NotSupported(fldPath.Child("kind").Path(), string(*ref.Kind), []string{"Gateway"}))
	}
	errs = append(errs, validateDNSSubdomain(ref.Name, fldPath.Child("name"))...)
	if ref.Namespace != nil {
		errs = append(errs, validateNamespace(*ref.Namespace, fldPath.Child("namespace"))...)
	}
	return errs
}

// validateDNSSubdomain checks a required name with the DNS subdomain format:
// listener names, and the names of the Gateway and Secrets referenced (both
// kinds take such names, so anything else can never resolve).
func validateDNSSubdomain[T ~string](name T, fldPath *fieldPath) field.ErrorList {
	if name == "" {
		return field.ErrorList{field.Required(fldPath.Path(), "")}
	}
	var errs field.ErrorList
	for _, msg := range isDNS1123Subdomain(string(name)) {
		errs = append(errs, field.Invalid(fldPath.Path(), string(name), msg))
	}
	return errs
}

func validateNamespace(ns gwv1.Namespace, fldPath *fieldPath) field.ErrorList {
	var errs field.ErrorList
	for _, msg := range isDNS1123Label(string(ns)) {
		errs = append(errs, field.Invalid(fldPath.Path(), string(ns), msg))
	}
	return errs
}
