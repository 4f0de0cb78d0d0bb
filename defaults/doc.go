// Package defaults fills in the fields of a Gateway API ListenerSet that the
// upstream CRD schema would default, so that objects reaching the webhook from
// an older CRD, or read from files by the offline validate command, are judged
// exactly as kube-apiserver would store them.
//
// Each defaulted field is one row of Defaults (table.go): ListenerSet, Needed
// and the mutating webhook's match condition in CEL (Expression) are all
// derived from it.
//
// The package is pure: it imports gateway-api and apimachinery only, and is
// the lowest layer (validation and the webhook import it, never the reverse).
//
// Where it runs: the mutating webhook (docs/serving.md) and validate
// (docs/validate.md).
package defaults
