// Package object holds a ListenerSet's own rules: what Airlock Microgateway
// can serve judged from the object alone (listenerset.go, listener.go,
// tls.go, options.go, routes.go for allowedRoutes, overlap.go), each
// defined beside its Go function as a Rule (rule.go: docs/rules.md's row,
// its codes, a valid and an invalid example every engine is tested with),
// the rules on one listener value (ListenerValueRules, whose CEL the
// policy holds in policy.ValueRuleCEL), the codes they give and their
// catalog entries (codes.go, warnings.go), and
// Airlock's data they read, defined once (names.go, the option table and
// name lists; addednames.go, names a newer release adds).
//
// It also holds what the object rules share with the cluster-aware rules
// of package validation: the ratcheting verdict (verdict.go: Verdict,
// Ratchet, the values an error involves) and Gateway API's listener
// compatibility with the rows of a merged list (merge.go), the one rule
// for the listeners of a set (the in-set conflicts) and for a Gateway's
// merged list (which package validation builds with it).
//
// Contract: ValidateSpec applies the rules to a defaulted object (Defaulted)
// and records what they find in a Verdict; a view (views.Cluster) only
// tells whether a reference needs a reminder. The package imports findings,
// views and defaults of this module and no rule package above it: package
// validation composes it with the cluster-aware rules and the routes.
package object
