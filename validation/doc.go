// Package validation decides whether Airlock Microgateway can serve a Gateway
// API ListenerSet. Validate is the verdict, the one function the webhook,
// the offline commands and every other engine call: the object's own rules,
// then, when Options carry a Cluster, the cluster-aware rules, with
// strictness and update ratcheting applied in one place. A rule on one
// value is as in Kubernetes' pkg/apis/*/validation (the value and a
// *field.Path in, a field.ErrorList out); a rule that may ratchet or warn
// returns nothing: it takes the field path (and a listener's index, for the
// ratchet's pairing) and records into a shared *verdict.Verdict, which keeps
// errors, warnings and ratcheted errors apart. Listeners are paired by name,
// never by position; the index is only for the path. MergedListeners is a
// Gateway's merged listener list with each listener's state, Attacher the
// one decision of which routes attach where. Every error and warning has a
// stable code (catalog.go, the catalog); the option table and name lists are
// data defined once (object/names.go).
//
// Where each job lives:
//   - the verdict and ratcheting composed: validate.go (Validate, Judge,
//     JudgeDelete, JudgeRoute, Options), wouldeny.go; the catalog of every
//     code: catalog.go;
//   - the object's own rules: the subpackage object (listenerset.go,
//     listener.go, tls.go, options.go, routes.go for allowedRoutes,
//     overlap.go), each rule defined beside its Go function (Rule, rule.go:
//     the docs' row, the codes, the examples every engine is tested with),
//     the rules on one listener value (ListenerValueRules, whose CEL the
//     policy holds), with Airlock's data (names.go, addednames.go), the
//     ratcheting verdict they share with the cluster rules (verdict.go) and
//     Gateway API's listener compatibility (merge.go);
//   - the merged view and the cluster rules: the subpackage merged
//     (mergedlist.go, MergedListeners; cluster.go; keys.go, the index keys;
//     rivals.go, the rival pruning; tenancy.go, class.go, scope.go;
//     cluster_objects.go, Objects over plain objects);
//   - routes: the subpackage routes (attach.go, Attacher; routeparents.go;
//     detach.go, the routes an update or deletion detaches; routeclaims.go,
//     the names a route claims; given.go, the claims a ListenerSet's write
//     gives the routes attached to it);
//   - the read views, all passed explicitly: the subpackage views
//     (Cluster, Classes, Routes, RouteParents, NamespaceLabelsFunc);
//   - findings and their text: the subpackage findings (codes' type,
//     warnings, the bounded reports, escaping and cutting text); each rule
//     package's codes, warning kinds and texts are its codes.go and
//     warnings.go, and catalog.go here assembles them.
//
// Layering, one way: findings and views import no package of this module;
// object imports findings, views and defaults; merged imports object;
// routes imports merged; validation imports them all and composes them;
// validationtest (fixtures) imports what it needs; nothing here imports a
// command, the webhook or the offline packages. The packages are pure: no
// I/O, no controller-runtime. The rules, as users see them: docs/rules.md
// and docs/codes.md.
package validation

// Generated from this package (make generate; make verify fails while any
// is stale): docs/codes.md from the catalog, the table of docs/rules.md
// from the rules' definitions (object.Rules), and the fuzz seeds, which
// encode the generator's choices by index.
//
//go:generate go test ../test/docs -run ^(TestCodesPageIsGenerated|TestRulesTableIsGenerated)$ -count=1 -update
//go:generate env UPDATE_FUZZ_SEEDS=1 go test . -run ^TestFuzzSeedsAreExamples$ -count=1
