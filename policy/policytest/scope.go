package policytest

import (
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/policy"
)

// ParentOf is the namespace/name of ls's parent Gateway as the policy's
// scope reads it: the parentRef's namespace, or ns (the set's own) when it
// has none.
func ParentOf(ls *gwv1.ListenerSet, ns string) string {
	if p := ls.Spec.ParentRef.Namespace; p != nil {
		ns = string(*p)
	}
	return ns + "/" + string(ls.Spec.ParentRef.Name)
}

// EveryOtherParent lists every other distinct parent Gateway of cases (all
// in namespace ns), in the order first seen, so that a sample is about half
// in the scope and half out: the most common parent first. A parent the
// list cannot hold (policy.ValidateGateways) stays out. listed tells each
// parent's place, gateways is the list.
func EveryOtherParent(cases []*gwv1.ListenerSet, ns string) (listed map[string]bool, gateways []string) {
	listed = map[string]bool{}
	for _, ls := range cases {
		p := ParentOf(ls, ns)
		if _, seen := listed[p]; seen {
			continue
		}
		listed[p] = len(listed)%2 == 0 && len(policy.ValidateGateways([]string{p}, nil)) == 0
		if listed[p] {
			gateways = append(gateways, p)
		}
	}
	return listed, gateways
}
