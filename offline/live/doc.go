// Package live is the audit command: it judges the ListenerSets a live
// cluster stores, each as a create of it would be judged (judge.Stored,
// nothing ratcheted), against the whole cluster also when the options
// narrow the sets judged, and reports them through offline/report. List,
// read-only and paginated, is the reader of every command that reads a
// cluster; RBACRules and KindRules are all it needs. Validate is validate
// -f --kubeconfig: the files judged with the cluster as their context and
// each finding marked introduced, unchanged or fixed (judge.Compare). With
// Options.Reports the verdict is also written as PolicyReports
// (offline/policyreport), the audit's only write.
//
// What it reads, judges, writes and exits with: docs/audit.md; the files
// against the cluster: docs/validate.md.
package live
