// Package object holds a ListenerSet's own rules and the data they read:
// what Airlock Microgateway can serve judged from the object alone
// (listenerset.go, listener.go, tls.go, options.go, routes.go for
// allowedRoutes, overlap.go), each defined beside its Go function as a Rule
// (rule.go: docs/rules.md's row, its codes, a valid and an invalid example
// every engine is tested with); the rules on one listener value
// (ListenerValueRules, whose CEL the policy holds in policy.ValueRuleCEL);
// the rules over a set's listeners (SetRules, setrules.go: each one entry
// with its code, Go check, CEL and fast-path guard); the codes they give and their catalog entries (codes.go, warnings.go);
// Airlock's data, defined once (names.go, the option table and name lists;
// addednames.go, names a newer release adds); the values an error involves,
// by which it ratchets (values.go); and Gateway API's listener
// compatibility (merge.go: Merge), the one rule for the listeners of a set
// and, in package incluster, for a Gateway's merged list.
//
// Contract: ValidateSpec applies the rules to a defaulted object
// (Defaulted). A rule on one value takes the value and a *field.Path and
// returns a field.ErrorList; a rule that may ratchet or warn takes the
// listener's index (for the ratchet's pairing by name) and the path, and
// records into the shared *verdict.Verdict, returning nothing. A view
// (views.Cluster) only tells whether a reference needs a reminder. It
// imports findings, defaults and, of validation's rooms, views and verdict;
// package validation composes it and re-exports what callers read.
package object
