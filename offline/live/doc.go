// Package live is the audit command: it judges the ListenerSets a live
// cluster already stores, each as a create of it would be judged, against
// the cluster around it, and reports them through offline/report in every
// format validate has. Admission only sees writes; this is how a platform
// learns which stored sets its rules refuse (ratcheting lets an update
// through with their unchanged errors as warnings, and never reports the
// object as a whole), and which cluster-aware findings appeared without any
// ListenerSet write (a Gateway that dropped allowedListeners, a deleted
// ReferenceGrant, another team's set that took a port first).
//
// # Reading
//
// Read lists, read-only and paginated (Limit and Continue, PageSize objects
// a request, so that memory follows what is kept, not one response of the
// whole cluster), every Gateway, ListenerSet and ReferenceGrant
// (gateway.networking.k8s.io/v1) and the metadata of every Namespace (and,
// with Options.Secrets, of every Secret; with the scope on, every
// GatewayClass, for whose sets are Airlock's). Nothing is watched, cached, got or
// written: RBACRules, list on those kinds, is all it needs, and the command
// prints them (--print-rbac, a ClusterRole). Of each stored ListenerSet,
// managedFields and status are dropped as it is read: no rule reads them.
//
// List is the reader under Read, for every command that reads a live
// cluster: Kinds says what it lists beyond Gateways, ListenerSets and
// Namespaces, and KindRules the RBAC that takes, so that a command that
// reads less (listeners: no ReferenceGrants) asks for less.
//
// The view is always the whole cluster, also with Options.Namespace or
// Options.Gateway: a set's rivals on its Gateway live in other namespaces.
// Those options only select the sets judged and reported.
//
// # Reports
//
// With Options.Reports (audit --write-reports) Audit also writes the
// verdict as one PolicyReport per namespace through offline/policyreport,
// the audit's only write, with rules of its own (ReportsClusterRole, on
// policyreports alone); a cluster without the CRD is a line on stderr and
// no error, a failed write exit 2. Nothing is written when the cluster
// could not be listed.
//
// # Verdict
//
// Each selected set goes through judge.Stored: validation.Judge, the
// webhook's own rules and cluster-aware checks, with the listed objects as
// its cluster and no old object, so that nothing is ratcheted; with the
// scope on (judge.Options.Scope, the command's default), only the sets of
// an Airlock GatewayClass are judged, and the others have no findings. Its creation
// time is kept: it stands in the merged listener list where it stands in
// the cluster, and every other stored set is its rival, as in the
// webhook's live view (webhook/clusterview). kube-apiserver applied the CRD
// (schema, CEL rules, object metadata) when the object was written; the
// audit does not apply it again (validate's --crd does, for files).
//
// # Files against the cluster
//
// Validate is validate -f PATH --kubeconfig: the files judged as without
// it (offline/judge, CRD and all) but with the listed cluster as their
// context (judge.Options.Cluster: the files' objects replace the cluster's
// of the same namespace and name, its other ListenerSets are rivals), and
// every finding marked against the cluster's own verdict on what it
// stores, judged as the audit judges it (judge.Compare): introduced,
// unchanged, or fixed (the stored set's findings the file's version no
// longer has). The cluster's other sets whose findings the files change are
// added. Exit status 1 only for an introduced error (offline.Options.
// AnyError: for any).
//
// # Output and exit codes
//
// offline/report's, as validate's (see package offline), except that a
// stored object has no file: the text output has no " (at ...)" suffix,
// JSON's file is "" and document 0, JUnit has a testsuite per namespace,
// GitHub commands no file property and SARIF results a logical location
// (the ListenerSet and field) and no physical one. A cluster that cannot be
// reached or listed is an input error in the report (exit 2).
package live
