package incluster

import (
	"slices"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
	"sigs.k8s.io/gateway-api/pkg/features"

	"github.com/airlock/listenerset-webhook/findings"
)

// classConsequence is what a user sees of a ListenerSet whose class's
// controller will not program it: its status stays the CRD's default
// (Accepted and Programmed Unknown, reason Pending), and nothing serves its
// listeners.
const classConsequence = "the ListenerSet stays Pending and unprogrammed"

// WarnClass warns, before the set is stored, when the controller of its
// parent's GatewayClass gc will not program it (nil gc: the class is not
// known, which the scope's note says when it matters; no warning here):
//
//   - the class has conditions and none says Accepted True: no controller
//     has taken the class (the CRD's default condition, Accepted Unknown
//     with reason Pending, "Waiting for controller"), or its controller
//     refused it (Accepted False; the warning gives its reason and
//     message). A class without any condition says nothing: kube-apiserver
//     writes the CRD's default into every class it stores, so only a class
//     no server has stored, as written in a manifest for the offline
//     commands, has none, and no controller has looked at that one yet;
//   - the class lists its controller's features (status.supportedFeatures)
//     and ListenerSet support is not among them, as with controllers
//     older than their ListenerSet support (Airlock Microgateway before
//     5.1.0). An empty list says nothing: a controller need not fill it.
//
// Warnings only, in every mode: the class is not the ListenerSet owner's to
// fix, and a controller may take it a moment later.
func WarnClass(gc *gwv1.GatewayClass, w *findings.WarningReport) {
	for _, x := range ClassWarnings(gc) {
		w.Add(x)
	}
}

// ClassWarnings are WarnClass' warnings on gc, for a command that
// explains one set rather than judging it (why): one decision, whoever
// tells it.
func ClassWarnings(gc *gwv1.GatewayClass) findings.Warnings {
	w := &findings.WarningReport{}
	if gc == nil {
		return nil
	}
	path := field.NewPath("spec", "parentRef")
	controller := string(gc.Spec.ControllerName)
	if conditions := gc.Status.Conditions; len(conditions) > 0 {
		accepted := meta.FindStatusCondition(conditions, string(gwv1.GatewayClassConditionStatusAccepted))
		switch {
		case accepted == nil:
			clusterWarn(w, path, KindClassNotAccepted, warnClassNotAccepted, gc.Name, controller, "no Accepted condition")
		case accepted.Status == metav1.ConditionTrue:
		case accepted.Status == metav1.ConditionFalse:
			clusterWarn(w, path, KindClassNotAccepted, warnClassRefused, gc.Name, controller, conditionReason(accepted))
		default:
			clusterWarn(w, path, KindClassNotAccepted, warnClassNotAccepted, gc.Name, controller,
				"Accepted is "+string(accepted.Status)+", reason "+accepted.Reason)
		}
	}
	if fs := gc.Status.SupportedFeatures; len(fs) > 0 && !slices.ContainsFunc(fs, supportsListenerSets) {
		clusterWarn(w, path, KindListenerSetNotSupported, warnListenerSetNotSupported, gc.Name, controller, string(features.SupportListenerSet))
	}
	return w.List()
}

// supportsListenerSets: f is Gateway API's feature of ListenerSet support.
func supportsListenerSets(f gwv1.SupportedFeature) bool {
	return string(f.Name) == string(features.SupportListenerSet)
}

// conditionReason is a condition's reason and, when it has one, message, as
// kubectl describe shows them: "InvalidParameters: no such ConfigMap".
func conditionReason(c *metav1.Condition) string {
	if c.Message == "" {
		return c.Reason
	}
	return c.Reason + ": " + c.Message
}
