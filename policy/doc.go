// Package policy generates the admissionregistration.k8s.io/v1
// ValidatingAdmissionPolicy (and its binding) that enforces, inside
// kube-apiserver and without a webhook call, every object-only rule of
// validation.Validate: the rules that read nothing but the ListenerSet (and,
// on update, the stored one). The cluster-aware rules (validation's
// cluster.go) are not part of it: a policy cannot read the other objects the
// way the webhook's cluster view does.
//
// It owns the CEL: the name lists come from validation (names.go), the
// messages from the same apimachinery functions and validation constants the
// Go rules use, so one change in Go changes both engines. The policy computes
// every violation in variables and fails once, with a message of
// "<field path>: <detail>" entries as the webhook's causes read (kube-apiserver
// reports only the first failing validation, and refuses multi-line
// messages, so the entries are joined with "; "). It assumes only what
// kube-apiserver guarantees before admission: the CRD's structural schema
// (required fields, types) ran; every field the CRD or the mutating webhook
// defaults is read with its default when absent, so the verdict does not
// depend on whether defaulting ran.
//
// The test in test/policy holds the policy's verdict equal to
// validation.Validate against a real kube-apiserver.
package policy
