// Package validation decides whether Airlock Microgateway can serve a Gateway
// API ListenerSet. Validate is the verdict, the one function the webhook,
// the offline commands and every other engine call: the object's own rules,
// then, when Options carry a Cluster, the cluster-aware rules, with
// strictness and update ratcheting applied in one place. Rules follow
// Kubernetes' pkg/apis/*/validation (a *field.Path in, a field.ErrorList
// out); listeners are known by name, never by position. MergedListeners is a
// Gateway's merged listener list with each listener's state, Attacher the
// one decision of which routes attach where. Every error and warning has a
// stable code (codes.go, the catalog); the option table and name lists are
// data defined once (names.go).
//
// Where each job lives:
//   - the verdict and ratcheting: validate.go (Validate, Judge, Options),
//     wouldeny.go;
//   - the object's own rules: listenerset.go, listener.go, tls.go,
//     options.go, routes.go (allowedRoutes), overlap.go; Airlock's data:
//     names.go, addednames.go;
//   - the merged view and the cluster rules: merge.go (Gateway API's
//     listener compatibility and the merged list, MergedListeners),
//     cluster.go (the cluster-aware rules), keys.go (the index keys),
//     rivals.go (the rival pruning), tenancy.go, class.go, scope.go;
//   - routes: attach.go (Attacher), routeparents.go (JudgeRoute),
//     detach.go (the routes an update or deletion detaches);
//   - the read views, all passed explicitly: views.go (Cluster, Classes,
//     Routes, RouteParents, NamespaceLabelsFunc), cluster_objects.go
//     (Objects, over plain objects);
//   - findings and their text: the subpackage findings (codes' type,
//     warnings, the bounded reports, escaping and cutting text); the codes
//     this package's rules give, their warning kinds and texts, and the
//     catalog of every code, are codes.go and warnings.go.
//
// Layering, one way: validation imports findings and defaults (and
// gateway-api, apimachinery); findings imports apimachinery only;
// validationtest (fixtures) imports validation; nothing here imports a
// command, the webhook or the offline packages. The package is pure: no
// I/O, no controller-runtime. The rules, as users see them: docs/rules.md
// and docs/codes.md.
package validation

// Generated from this package (make generate; make verify fails while any
// is stale): docs/codes.md and rule 6 of docs/rules.md from the catalog and
// the option table, and the fuzz seeds, which encode the option keys by
// index.
//
//go:generate go test ../test/docs -run ^(TestCodesPageIsGenerated|TestRulesPageOptionsAreGenerated)$ -count=1 -update
//go:generate env UPDATE_FUZZ_SEEDS=1 go test . -run ^TestFuzzSeedsAreExamples$ -count=1
