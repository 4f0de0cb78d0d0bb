// Package admission adapts the pure packages defaults and validation to
// controller-runtime's admission webhooks for gateway.networking.k8s.io/v1
// ListenerSet, and registers them.
//
// Validator wraps validation.Validate, and controller-runtime's
// WithValidator decodes the object and builds the answer: a 422 Invalid
// status whose causes carry each error's field path, and admission
// warnings. The mutating webhook's handler (defaulting, patch.go) decodes
// with controller-runtime's decoder and answers with defaults.Patch, a JSON
// patch that never removes a field, as controller-runtime's WithDefaulter
// would (TestDefaultingAnswersAsWithDefaulter), without its copy of every
// object. In front of both, reviewGuard
// decodes the review in one pass and refuses what kube-apiserver never
// sends (guard.go). MutatingMatchConditions
// lets kube-apiserver skip the mutating webhook when there is nothing to
// default, Registrations is what every webhook configuration says of the
// webhooks (names, paths, rules, match conditions; the chart's
// files/webhooks.yaml is generated from it), DenialsMetric counts which
// rules deny, and the validating webhook's response carries the errors'
// diagnostic codes as an audit annotation (audit.go, AuditCodesKey). The
// deletion webhook (delete.go, DeletePath) allows every deletion and warns
// of the HTTPRoutes it detaches (validation.JudgeDelete). Nothing here
// decides what is valid; it only translates.
package admission

// The chart's files/webhooks.yaml from Registrations (make generate):
//
//go:generate go test ../../test/chart -run ^TestWebhookFileIsGenerated$ -count=1 -update
