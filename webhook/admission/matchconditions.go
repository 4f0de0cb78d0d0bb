package admission

import admissionregistrationv1 "k8s.io/api/admissionregistration/v1"

// NeedsDefaultsCondition names the mutating webhook's match condition.
const NeedsDefaultsCondition = "needs-defaults"

// NeedsDefaultsExpression is true exactly when defaults.ListenerSet would
// change the object: some field it defaults is unset. kube-apiserver
// evaluates it before calling the mutating webhook and skips the call when
// it is false, which is the usual case: the ListenerSet CRD's schema has
// already set the same defaults (kube-apiserver also drops nulls of
// non-nullable fields before that, so "unset" means "absent" here, as it
// means nil in Go). Each line mirrors one rule of defaults/defaults.go;
// TestNeedsDefaultsMirrorsTheDefaulter holds them together by evaluating it
// with kube-apiserver's own matcher.
const NeedsDefaultsExpression = `!has(object.spec) || !has(object.spec.parentRef) ||
!has(object.spec.parentRef.group) || !has(object.spec.parentRef.kind) ||
(has(object.spec.listeners) && object.spec.listeners.exists(l,
  (has(l.tls) && (!has(l.tls.mode) ||
    (has(l.tls.certificateRefs) && l.tls.certificateRefs.exists(r, !has(r.group) || !has(r.kind))))) ||
  !has(l.allowedRoutes) || !has(l.allowedRoutes.namespaces) || !has(l.allowedRoutes.namespaces.from) ||
  (has(l.allowedRoutes.kinds) && l.allowedRoutes.kinds.exists(k, !has(k.group)))))`

// MutatingMatchConditions are the mutating webhook's matchConditions: call
// it only when NeedsDefaultsExpression holds. Registrations carries them to
// the local cluster (test/localcluster) and to the Helm chart (its generated
// files/webhooks.yaml). The validating webhook has none: every create and
// update is judged.
func MutatingMatchConditions() []admissionregistrationv1.MatchCondition {
	return []admissionregistrationv1.MatchCondition{{Name: NeedsDefaultsCondition, Expression: NeedsDefaultsExpression}}
}
