// Package policy is the differential test of the generated
// ValidatingAdmissionPolicy against a real kube-apiserver: only the policy is
// installed (no webhook), and every example and thousands of random objects
// of the fuzz generator are sent with server-side dry-run, also into
// Namespaces that declare the hostnames their ListenerSets may claim; each
// verdict and each set of field paths must equal validation.Validate's.
//
// What it holds and how long it takes: docs/policy.md.
package policy
