// Package admission adapts the pure packages defaults and validation to
// controller-runtime's admission webhooks for gateway.networking.k8s.io/v1
// ListenerSet, and registers them.
//
// Validator wraps validation.Validate and Defaulter wraps
// defaults.ListenerSet; controller-runtime's WithValidator and WithDefaulter
// decode the object and build the answer: a 422 Invalid status whose causes
// carry each error's field path, admission warnings, or a JSON patch that
// never removes a field (keepUnknownFields). In front of both, reviewGuard
// decodes the review in one pass and refuses what kube-apiserver never
// sends (guard.go). MutatingMatchConditions
// lets kube-apiserver skip the mutating webhook when there is nothing to
// default, Registrations is what every webhook configuration says of the
// webhooks (names, paths, rules, match conditions; the chart's
// files/webhooks.yaml is generated from it), DenialsMetric counts which
// rules deny, and the validating webhook's response carries the errors'
// diagnostic codes as an audit annotation (audit.go, AuditCodesKey). Nothing here decides what is valid; it only translates.
package admission
