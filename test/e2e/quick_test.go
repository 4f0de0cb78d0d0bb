package e2e

import (
	"flag"
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

// quickTests are the end-to-end behaviours `make test` (-short) checks after
// every change, and what hack/matrix runs against each Kubernetes version:
// every example's verdict through kubectl (create, update, dry run),
// warnings, ratcheting, a stopped webhook with failurePolicy Fail, the
// mutation against the CRD's defaulting, two tenants on one Gateway
// (a declared hostname denied, the first claim across owners warned, route
// capture warned), a controller's status beside the prediction (the
// listeners command's marks, the audit's LS017 and LS018), and the warnings
// of a GatewayClass no controller accepted or whose controller does not
// list ListenerSet support. The rest of the suite runs in make test-all.
//
// They are the test functions themselves, so that renaming or deleting one
// fails to compile rather than dropping it from make test and the matrix;
// their names (quickTestNames) come from the functions. (Set in init: each
// of them reads the names, through requireCluster, which a package-level
// initializer may not.)
var quickTests []func(*testing.T)

func init() {
	quickTests = []func(*testing.T){
		TestValidExamples, TestInvalidExamples, TestInvalidExamplesRejectedBy,
		TestWarnings, TestRatcheting, TestWebhookDown, TestMutationMatchesCRD,
		TestTenancy, TestReportedStatus, TestClassStatusWarnings,
	}
	quickTestNames = testNames(quickTests)
}

// listQuickTests is the test binary's -quick-tests: hack/matrix, which
// cannot import a _test.go file, asks the binary for the names it runs.
var listQuickTests = flag.Bool("quick-tests", false, "print the names of the quick tests (make test's, the matrix'), one a line, and exit")

// quickTestNames are quickTests' names, as `go test -run` and t.Name() give
// them.
var quickTestNames []string

// testNames gives each function's name. A function that is not a
// package-level Test function (a closure, a method value) has no such name:
// it panics, at the test binary's start.
func testNames(tests []func(*testing.T)) []string {
	names := make([]string, 0, len(tests))
	for _, f := range tests {
		full := runtime.FuncForPC(reflect.ValueOf(f).Pointer()).Name() // <import path>.TestName
		name := full[strings.LastIndexByte(full, '.')+1:]
		if !strings.HasPrefix(name, "Test") || strings.Contains(full, ".func") {
			panic(fmt.Sprintf("quickTests: %s is not a package-level Test function", full))
		}
		names = append(names, name)
	}
	return names
}
