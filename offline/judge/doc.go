// Package judge is the second layer of the offline commands: it gives each
// ListenerSet offline/read found the verdict kube-apiserver with the webhook
// would give a create of it (admit.go: the CRD through offline/crdcheck, the
// mutating webhook's defaults where the CRD set none, validation.Judge; the
// webhook's error shown where both catch a problem), in Gateway API's
// precedence order against a cluster view built from the other objects read,
// each set found valid a rival of those after it. Stored is the audit's
// verdict on what a cluster stores, without the CRD; Options.Scope is the
// webhook's --scope. Every finding gets its diagnostic code (validation's,
// or Codes for the offline commands' own).
//
// It writes nothing: offline/report shows a Verdict, listing places the
// valid sets. The user's view: docs/validate.md and docs/audit.md.
package judge
