// Package validation decides whether Airlock Microgateway can serve a Gateway
// API ListenerSet. Validate is the verdict, the one function the webhook,
// the offline commands and every other engine call: the object's own rules,
// then, when Options carry a Cluster, the cluster-aware rules, with
// strictness and update ratcheting applied in one place. Rules follow
// Kubernetes' pkg/apis/*/validation (a *field.Path in, a field.ErrorList
// out); listeners are known by name, never by position. MergedListeners is a
// Gateway's merged listener list with each listener's state, Attacher the
// one decision of which routes attach where. Every error and warning has a
// stable code (codes.go); the option table and name lists are data defined
// once (names.go).
//
// The package is pure: it imports gateway-api, apimachinery and defaults
// only, and reads the cluster through the read-only Cluster interface. The
// rules, as users see them: docs/rules.md and docs/codes.md.
package validation

// Generated from this package (make generate; make verify fails while any
// is stale): docs/codes.md and rule 6 of docs/rules.md from the catalog and
// the option table, and the fuzz seeds, which encode the option keys by
// index.
//
//go:generate go test ../test/docs -run ^(TestCodesPageIsGenerated|TestRulesPageOptionsAreGenerated)$ -count=1 -update
//go:generate env UPDATE_FUZZ_SEEDS=1 go test . -run ^TestFuzzSeedsAreExamples$ -count=1
