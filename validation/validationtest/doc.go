// Package validationtest holds what tests of more than one package need to
// build ListenerSets for validation: the fuzz generator (FuzzListenerSet,
// with its encoder), used by validation's fuzz target and by the policy's
// differential test against a real kube-apiserver; and the cluster-scale
// cluster-scale shapes (rivals.go: tenants sharing one Gateway, and the "most
// cluster rivals" worst object, MostRivals), used by validation's
// benchmarks and clusterview's.
//
// The figures they give: docs/performance.md.
//
// Layering: validationtest imports validation, its rooms (it is under validation/, so internal/ is open to it), findings,
// defaults and test/load/fixtures; only tests and the load tool import it.
package validationtest
