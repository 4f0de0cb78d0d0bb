// Package admission adapts the pure packages defaults and validation to
// controller-runtime's admission webhooks for gateway.networking.k8s.io/v1
// ListenerSet, and registers them (Registrations, of which the chart's
// files/webhooks.yaml is generated). Validator wraps validation.Validate in
// controller-runtime's WithValidator; the mutating handler (patch.go)
// answers with defaults.Patch as WithDefaulter would, never removing a
// field; the deletion webhook (delete.go) allows every deletion and warns of
// the HTTPRoutes it detaches; reviewGuard (guard.go), in front of them all,
// decodes the review once and refuses what kube-apiserver never sends.
// MutatingMatchConditions lets kube-apiserver skip the mutating call when
// there is nothing to default. Nothing here decides what is valid.
// What users see of it: docs/serving.md and docs/reliability.md.
package admission

// The chart's files/webhooks.yaml from Registrations (make generate):
//
//go:generate go test ../../test/chart -run ^TestWebhookFileIsGenerated$ -count=1 -update
