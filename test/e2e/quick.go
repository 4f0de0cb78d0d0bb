package e2e

// QuickTests are the end-to-end behaviours `make test` (-short) checks after
// every change, and what hack/matrix runs against each Kubernetes version:
// every example's verdict through kubectl (create, update, dry run),
// warnings, ratcheting, a stopped webhook with failurePolicy Fail and the
// mutation against the CRD's defaulting. The rest of the suite runs in make
// test-all.
var QuickTests = []string{
	"TestValidExamples", "TestInvalidExamples", "TestInvalidExamplesRejectedBy",
	"TestWarnings", "TestRatcheting", "TestWebhookDown", "TestMutationMatchesCRD",
}
