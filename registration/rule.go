package registration

import (
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/utils/ptr"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// Resource is the resource every engine judges.
const Resource = "listenersets"

// Rule is the rule every engine matches: creates and updates of
// gateway.networking.k8s.io/v1 listenersets ("listenersets" does not match
// listenersets/status, so a controller's status writes are never judged).
// DELETE is not registered here: nothing about a ListenerSet being removed
// can break Airlock Microgateway (DeleteRule is the deletion webhook's).
func Rule() admissionregistrationv1.RuleWithOperations {
	return admissionregistrationv1.RuleWithOperations{
		Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update},
		Rule:       listenerSets(),
	}
}

// DeleteRule is the deletion webhook's rule: deletions of the same
// resource, which it only warns about.
func DeleteRule() admissionregistrationv1.RuleWithOperations {
	return admissionregistrationv1.RuleWithOperations{
		Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Delete},
		Rule:       listenerSets(),
	}
}

func listenerSets() admissionregistrationv1.Rule {
	return admissionregistrationv1.Rule{
		APIGroups:   []string{gwv1.GroupName},
		APIVersions: []string{gwv1.GroupVersion.Version},
		Resources:   []string{Resource},
		Scope:       ptr.To(admissionregistrationv1.NamespacedScope),
	}
}

// RouteResource is the resource the HTTPRoute webhook judges: routes are
// claims on the names of Airlock's listeners.
const RouteResource = "httproutes"

// RouteRule is the HTTPRoute webhook's rule: creates and updates of
// gateway.networking.k8s.io/v1 httproutes (the main resource: a
// controller's status writes are never judged).
func RouteRule() admissionregistrationv1.RuleWithOperations {
	return admissionregistrationv1.RuleWithOperations{
		Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update},
		Rule: admissionregistrationv1.Rule{
			APIGroups:   []string{gwv1.GroupName},
			APIVersions: []string{gwv1.GroupVersion.Version},
			Resources:   []string{RouteResource},
			Scope:       ptr.To(admissionregistrationv1.NamespacedScope),
		},
	}
}
