package validation

import (
	"k8s.io/apimachinery/pkg/util/validation/field"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// Warnings are admission warnings, each "path: message". The object is still
// admitted; kubectl prints each as a "Warning:" line.
type Warnings []string

// ValidateListenerSet returns every reason Airlock Microgateway cannot serve
// ls, each with the path of the offending field, and the warnings the object
// earns. It expects ls to be defaulted (defaults.ListenerSet) the way
// kube-apiserver stores it, but does not rely on the CRD schema having run.
func ValidateListenerSet(ls *gwv1.ListenerSet) (field.ErrorList, Warnings) {
	return nil, nil // TODO: implemented in the next commit
}

// ValidateListenerSetUpdate validates newLS like ValidateListenerSet but
// ratchets: an error that oldLS already had, on the same field with the same
// value, does not block the update and becomes a warning instead, so objects
// stored before a rule existed can still be edited.
func ValidateListenerSetUpdate(newLS, oldLS *gwv1.ListenerSet) (field.ErrorList, Warnings) {
	return nil, nil // TODO: implemented in the next commit
}
