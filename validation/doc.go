// Package validation decides whether Airlock Microgateway can serve a Gateway
// API ListenerSet. Validate (validate.go) is the verdict, the one function the
// webhook, the offline validate command and every other engine call: the
// object's own rules, then, when Options carry a Cluster, the cluster-aware
// rules, with strictness and update ratcheting applied in one place.
//
// It follows Kubernetes' pkg/apis/*/validation: every rule is a small
// function that takes the *field.Path of the value it checks (built by the
// caller) and returns a field.ErrorList, so one call reports every problem
// at once with its exact path. Listeners are known by name, never by
// position: ratcheting pairs an update's listeners with the stored ones by
// name (validate.go). Gateway API's listener compatibility is one rule
// (compat.go) for the listeners of a set and for a Gateway's merged list.
// MergedListeners (compat.go) builds that merged list with each listener's
// state (Accepted, Conflicted, NotAllowed, Invalid, Unknown); the
// cluster-aware conflict rule judges a ListenerSet by its rows of that list,
// merged from the few rivals that decide them (cluster.go, decisive), and the
// listeners command (package listing) prints it.
//
// Routes attach to a ListenerSet's listeners by one decision,
// Attacher.Attach (attach.go): an update or a deletion that would leave
// HTTPRoutes attached to none of the set's listeners warns (detach.go,
// never an error), and JudgeRoute says why a route attaches to nothing
// (routeparents.go, for the audit and the offline commands). A Cluster that
// is also Routes gives them the routes.
//
// Problems that do not stop Airlock from serving the object are Warnings,
// values with a path and a kind (warnings.go). Every error and warning has a
// stable diagnostic code (codes.go): a rule gives it where it builds its
// error, a warning's kind decides its code. The name lists the rules check
// against live in names.go, with their source, and so does the option table
// (AirlockOptions): each of Airlock's TLS options, its values and its code,
// defined once; the option rule interprets it, and the policy's CEL, the
// codes' catalog, the docs and the fixtures derive from it.
//
// The package is pure: it imports gateway-api, apimachinery and defaults only,
// and reads the cluster through the read-only Cluster interface.
package validation

// Generated from this package (make generate; make verify fails while any
// is stale): docs/codes.md and rule 6 of docs/rules.md from the catalog and
// the option table, and the fuzz seeds, which encode the option keys by
// index.
//
//go:generate go test ../test/docs -run ^(TestCodesPageIsGenerated|TestRulesPageOptionsAreGenerated)$ -count=1 -update
//go:generate env UPDATE_FUZZ_SEEDS=1 go test . -run ^TestFuzzSeedsAreExamples$ -count=1
