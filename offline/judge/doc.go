// Package judge is the second layer of the offline commands: it gives each
// ListenerSet that offline/read found the verdict kube-apiserver with the
// webhook would give a create of it, and builds the cluster view the
// cluster-aware rules judge it against from the other objects read. It uses
// only offline/read (and offline/crdcheck, defaults, validation); it writes
// nothing: offline/report shows its Verdict in each format, and listing
// places the sets it found valid in the merged listener lists.
//
// A ListenerSet goes the way a create goes (admit.go): the CRD is applied
// with the library kube-apiserver serves custom resources with
// (offline/crdcheck: pruning, defaults, schema, CEL, object metadata), the
// mutating webhook's defaults are added where the CRD set none, then the
// webhook's verdict, validation.Judge. Where the CRD and the webhook catch
// the same problem the webhook's error is shown (merge). The sets are judged
// in Gateway API's precedence order, and each one found valid is a rival of
// those after it.
//
// Every finding gets its diagnostic code: the rules' from validation, the
// others' (input errors, kube-apiserver's own checks) from Codes (codes.go).
//
// Stored (stored.go) is the audit's verdict on ListenerSets a cluster
// stores: the webhook's rules against that cluster, each set as a create,
// without the CRD kube-apiserver applied when it was written.
//
// Options.Scope is the webhook's --scope: a set whose parent Gateway's
// GatewayClass (of the input, or the cluster's) names another controller
// gets neither the mutating webhook's defaults nor its verdict, only
// kube-apiserver's own checks, and Result.Scope says so; one whose parent
// or class is unknown follows Scope.Unknown (validation.Scope.Decide).
//
// Other objects are skipped with a reason; Gateways, GatewayClasses,
// ReferenceGrants, Namespaces and Secrets (metadata only) are kept for the
// cluster-aware checks and the scope.
package judge
