// Package validation decides whether Airlock Microgateway can serve a Gateway
// API ListenerSet, and is the one door to the rules: callers (the webhook,
// the offline commands, listing, why, reported, the policy's generator)
// import this package and nothing under it; the rooms behind it are under
// internal/, so the compiler keeps it so. Validate is the verdict, the one
// function every engine calls: the object's own rules, then, when Options
// carry a Cluster, the cluster-aware rules, with strictness and update
// ratcheting applied in one place (validate.go: Validate, Judge,
// JudgeDelete, JudgeRoute, Options; wouldeny.go). Every error and warning
// has a stable code (catalog.go, the catalog). What callers read of the
// rooms (the scope and tenancy settings, the merged listener, the codes,
// the option table and limits, the views they serve) is re-exported in
// door.go, by alias, so that a name means one thing on both sides.
//
// The rooms, one job each:
//   - internal/object: the object's own rules and their data (the option
//     table and name lists, defined once), each rule defined beside its Go
//     function (Rule: the docs' row, its codes, the examples every engine
//     is tested with), and Gateway API's listener compatibility;
//   - internal/incluster: the merged-list model and MergedListeners, which
//     builds it, and the cluster-aware rules that judge by it (the parent,
//     allowedListeners, grants, tenancy, scope, the GatewayClass), with
//     Objects, every view over plain objects;
//   - internal/routes: which HTTPRoutes attach where (Attacher) and what
//     they claim, a route's parents, the routes a change detaches;
//   - internal/verdict: the ratcheting verdict every rule records into;
//   - internal/views: the read views the rules are handed, interfaces only;
//   - internal/fixture: the small objects the tests of the door and of the
//     rooms share (tests only).
//
// A rule on one value is as in Kubernetes' pkg/apis/*/validation (the value
// and a *field.Path in, a field.ErrorList out); a rule that may ratchet or
// warn takes the path (and a listener's index, for the ratchet's pairing
// by name) and records into a shared *verdict.Verdict, returning nothing.
// Listeners are paired by name, never by position; the index is only for
// the path.
//
// Layering, one way: findings (top level) and views import no package of
// this module; verdict imports findings; object imports verdict, views and
// defaults; incluster imports object; routes imports incluster; validation
// imports them all and composes them; validationtest (fixtures for tests)
// imports what it needs. The packages are pure: no I/O, no
// controller-runtime. The rules, as users see them: docs/rules.md and
// docs/codes.md.
package validation

// Generated from this package (make generate; make verify fails while any
// is stale): docs/codes.md from the catalog, the table of docs/rules.md
// from the rules' definitions (object.Rules), and the fuzz seeds, which
// encode the generator's choices by index.
//
//go:generate go test ../test/docs -run ^(TestCodesPageIsGenerated|TestRulesTableIsGenerated)$ -count=1 -update
//go:generate env UPDATE_FUZZ_SEEDS=1 go test . -run ^TestFuzzSeedsAreExamples$ -count=1
