package validation

import (
	"k8s.io/apimachinery/pkg/util/validation/field"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// ValidateListenerSetUpdateInCluster is ValidateListenerSetInCluster for an
// update, for strict mode: a finding that the stored object (oldLS) already
// has in the same cluster, on the same field with the same value and the same
// winner, does not block the update and becomes a warning (WarnRatcheted),
// as ValidateListenerSetUpdate does for the object's own rules. Strict mode
// thus denies a new conflict or a new reference nobody granted, but never an
// edit that leaves an existing one alone (a label, another listener), for
// example a conflict that arose when the Gateway gained a listener later.
func ValidateListenerSetUpdateInCluster(newLS, oldLS *gwv1.ListenerSet, c Cluster) (field.ErrorList, Warnings) {
	errs, warnings := ValidateListenerSetInCluster(newLS, c)
	if len(errs) == 0 {
		return nil, warnings
	}
	oldErrs, _ := ValidateListenerSetInCluster(oldLS, c)
	return ratchet(errs, oldErrs, warnings)
}
