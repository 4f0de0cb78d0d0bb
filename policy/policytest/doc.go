// Package policytest evaluates the generated ValidatingAdmissionPolicy in
// process, with the CEL compiler and validator kube-apiserver itself uses
// (k8s.io/apiserver's validating policy plugin), for unit tests and cost
// figures; the verdict of record is still the real kube-apiserver's, which
// test/policy asks.
//
// The policy and its tests: docs/policy.md.
package policytest
