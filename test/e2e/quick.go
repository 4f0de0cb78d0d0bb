package e2e

// QuickTests are the end-to-end behaviours `make test` (-short) checks after
// every change, and what hack/matrix runs against each Kubernetes version:
// every example's verdict through kubectl (create, update, dry run),
// warnings, ratcheting, a stopped webhook with failurePolicy Fail, the
// mutation against the CRD's defaulting, two tenants on one Gateway
// (a declared hostname denied, the first claim across owners warned, route
// capture warned), and a controller's status beside the prediction (the
// listeners command's marks, the audit's LS017 and LS018, about 2 s). The
// rest of the suite runs in make test-all.
var QuickTests = []string{
	"TestValidExamples", "TestInvalidExamples", "TestInvalidExamplesRejectedBy",
	"TestWarnings", "TestRatcheting", "TestWebhookDown", "TestMutationMatchesCRD",
	"TestTenancy",
	"TestReportedStatus",
}
