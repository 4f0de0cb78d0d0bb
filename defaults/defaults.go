package defaults

import (
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// Values the upstream v1.6 CRD schema defaults to. They are repeated here,
// not read from the CRD, because the webhook must give the same result where
// the CRD is older or absent (offline validation).
const (
	// GatewayGroup is the API group of Gateway API.
	GatewayGroup gwv1.Group = gwv1.GroupName
	// GatewayKind is the only kind a ListenerSet attaches to.
	GatewayKind gwv1.Kind = "Gateway"
	// SecretGroup is the core API group, spelled as Gateway API spells it.
	SecretGroup gwv1.Group = ""
	// SecretKind is the kind of a certificateRef when unset.
	SecretKind gwv1.Kind = "Secret"
)

// ListenerSet sets every unset field of ls that has a default, in place. It
// only ever adds: a field that is set, even to an invalid value, is left for
// validation to judge. Calling it twice changes nothing the second time.
func ListenerSet(ls *gwv1.ListenerSet) {
	for _, d := range Defaults {
		d.set(ls)
	}
}

// Needed reports whether ListenerSet would change ls: whether a field it
// defaults is unset. It reads only, so callers that must not change the
// object they were given copy it only when needed (kube-apiserver's CRD
// defaulting usually has set everything). The mutating webhook's
// matchConditions (Expression) say the same in CEL.
func Needed(ls *gwv1.ListenerSet) bool {
	for _, d := range Defaults {
		if d.unset(ls) {
			return true
		}
	}
	return false
}
