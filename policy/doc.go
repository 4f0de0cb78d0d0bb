// Package policy generates the admissionregistration.k8s.io/v1
// ValidatingAdmissionPolicies (each with its binding) that enforce inside
// kube-apiserver, without a webhook call, every object-only rule of
// validation.Validate, with its ratcheting, and the hostnames a Namespace
// declares, read from the request's Namespace (declared.go): the rules'
// policy, whose match condition lets the usual valid set through (fast.go),
// and the declarations', which judges that set's hostnames (Policies). The
// other cluster-aware rules need the webhook's cluster view and are not part
// of them.
//
// It owns the CEL, and only the CEL: the name lists, details, kinds and
// limits come from validation and defaults, the messages from the
// apimachinery validators the Go rules call, so one change in Go changes both
// engines; Generate fails when those validators no longer give the messages
// the CEL is written for. The CEL uses only what a 1.30 kube-apiserver
// accepts in a new policy (compatibility version 1.29). policytest evaluates
// it with k8s.io/apiserver's own validator; test/policy holds its verdict and
// paths equal to validation.Validate against a real kube-apiserver.
//
// Its parts, defaults, ratcheting, scope and where its message differs from
// the webhook's: docs/policy.md.
package policy

// The chart's copy of the policy with the scope's defaults (make generate):
//
//go:generate sh -c "go run ../cmd/kubectl-listenerset policy --gateways infra/airlock > ../charts/listenerset-webhook/files/policy.yaml.tmp && mv ../charts/listenerset-webhook/files/policy.yaml.tmp ../charts/listenerset-webhook/files/policy.yaml"
