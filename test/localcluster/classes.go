package localcluster

import (
	"context"
	"encoding/json"
	"slices"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
	"sigs.k8s.io/gateway-api/pkg/features"
)

// ExampleGatewayClass is the GatewayClass examples/gateway.yaml holds,
// Airlock Microgateway's, which `make run` and the end-to-end tests accept
// (AcceptClass) after applying the file.
const ExampleGatewayClass = "airlock-microgateway"

// ControllerFeatures are the features AcceptClass lists by default: Gateway
// API's core Gateway, HTTPRoute and ReferenceGrant support, and ListenerSet
// support, as a controller that programs ListenerSets reports at least.
var ControllerFeatures = []features.FeatureName{
	features.SupportGateway, features.SupportHTTPRoute, features.SupportListenerSet, features.SupportReferenceGrant,
}

// AcceptedClassStatus is the status a GatewayClass controller writes when it
// takes the class at generation: Accepted True (reason Accepted), and the
// features it supports, sorted by name as the CRD asks. Nothing here runs a
// controller, so a class that should look taken gets this written through
// the status subresource (AcceptClass); otherwise it keeps the CRD's
// default, Accepted Unknown (Pending), and the webhook warns about it.
func AcceptedClassStatus(generation int64, supported ...features.FeatureName) gwv1.GatewayClassStatus {
	status := gwv1.GatewayClassStatus{Conditions: []metav1.Condition{{
		Type:               string(gwv1.GatewayClassConditionStatusAccepted),
		Status:             metav1.ConditionTrue,
		Reason:             string(gwv1.GatewayClassReasonAccepted),
		Message:            "Written in place of a controller: none runs here",
		ObservedGeneration: generation,
		LastTransitionTime: metav1.NewTime(time.Now().Truncate(time.Second)),
	}}}
	names := slices.Clone(supported)
	slices.Sort(names)
	for _, n := range slices.Compact(names) {
		status.SupportedFeatures = append(status.SupportedFeatures, gwv1.SupportedFeature{Name: gwv1.FeatureName(n)})
	}
	return status
}

// ClassStatusPatch is a JSON merge patch of a GatewayClass's status to
// AcceptedClassStatus, for `kubectl patch --subresource=status --type=merge`.
func ClassStatusPatch(generation int64, supported ...features.FeatureName) ([]byte, error) {
	return json.Marshal(map[string]any{"status": AcceptedClassStatus(generation, supported...)})
}

// AcceptClass writes, through the status subresource, the status a
// controller writes when it takes GatewayClass name: Accepted True at the
// class's generation, and supported (ControllerFeatures when none) as its
// supported features.
func AcceptClass(ctx context.Context, c client.Client, name string, supported ...features.FeatureName) error {
	if len(supported) == 0 {
		supported = ControllerFeatures
	}
	gc := &unstructured.Unstructured{}
	gc.SetAPIVersion(gwv1.GroupVersion.String())
	gc.SetKind("GatewayClass")
	if err := c.Get(ctx, client.ObjectKey{Name: name}, gc); err != nil {
		return err
	}
	patch, err := ClassStatusPatch(gc.GetGeneration(), supported...)
	if err != nil {
		return err
	}
	return c.Status().Patch(ctx, gc, client.RawPatch(types.MergePatchType, patch))
}
