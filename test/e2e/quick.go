package e2e

// QuickTests are the end-to-end behaviours `make test` (-short) checks after
// every change, and what hack/matrix runs against each Kubernetes version:
// every example's verdict through kubectl (create, update, dry run),
// warnings, ratcheting, a stopped webhook with failurePolicy Fail, the
// mutation against the CRD's defaulting, two tenants on one Gateway
// (a declared hostname denied, the first claim across owners warned, route
// capture warned), a controller's status beside the prediction (the
// listeners command's marks, the audit's LS017 and LS018), and the warnings
// of a GatewayClass no controller accepted or whose controller does not
// list ListenerSet support. The rest of the suite runs in make test-all.
var QuickTests = []string{
	"TestValidExamples", "TestInvalidExamples", "TestInvalidExamplesRejectedBy",
	"TestWarnings", "TestRatcheting", "TestWebhookDown", "TestMutationMatchesCRD",
	"TestTenancy", "TestReportedStatus", "TestClassStatusWarnings",
}
