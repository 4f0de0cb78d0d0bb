package admission

import (
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"

	"github.com/airlock/listenerset-webhook/defaults"
)

// NeedsDefaultsCondition names the mutating webhook's match condition.
const NeedsDefaultsCondition = "needs-defaults"

// NeedsDefaultsExpression is true exactly when defaults.ListenerSet would
// change the object: some field it defaults is unset (defaults.Expression,
// written from the same table, defaults.Defaults). kube-apiserver
// evaluates it before calling the mutating webhook and skips the call when
// it is false, which is the usual case: the ListenerSet CRD's schema has
// already set the same defaults (kube-apiserver also drops nulls of
// non-nullable fields before that, so "unset" means "absent" here, as it
// means nil in Go). TestNeedsDefaultsMirrorsTheDefaulter holds the two
// together by evaluating it with kube-apiserver's own matcher.
var NeedsDefaultsExpression = defaults.Expression

// MutatingMatchConditions are the mutating webhook's matchConditions: call
// it only when NeedsDefaultsExpression holds. Registrations carries them to
// the local cluster (test/localcluster) and to the Helm chart (its generated
// files/webhooks.yaml). The validating webhook has none: every create and
// update is judged.
func MutatingMatchConditions() []admissionregistrationv1.MatchCondition {
	return []admissionregistrationv1.MatchCondition{{Name: NeedsDefaultsCondition, Expression: NeedsDefaultsExpression}}
}
