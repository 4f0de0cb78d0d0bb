// Package validation decides whether Airlock Microgateway can serve a Gateway
// API ListenerSet. It follows the conventions of Kubernetes' own
// pkg/apis/*/validation packages: every rule is a small function that takes the
// field path of the value it checks and appends to a field.ErrorList, so that a
// single call reports every problem at once with its exact path. The path is a
// fieldPath (path.go), a field.Path that is only built when an error needs it,
// so that a valid object is validated without allocating.
//
// Problems that do not stop Airlock from serving the object are returned as
// admission warnings ("path: message"); their texts live in warnings.go.
//
// The package is pure: it imports gateway-api and apimachinery only, so the
// webhook and the offline validate command share the very same decisions.
package validation
