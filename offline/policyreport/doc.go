// Package policyreport writes the audit's findings as the policy tools of
// the ecosystem read them: one wgpolicyk8s.io/v1alpha2 PolicyReport per
// namespace that holds judged ListenerSets, named ReportName and labelled
// app.kubernetes.io/managed-by=ManagedBy.
//
// # Which API
//
// wgpolicyk8s.io/v1alpha2, not its successor openreports.io/v1alpha1: Kyverno
// (1.15 to 1.19) writes wgpolicyk8s.io by default and OpenReports only behind
// its alpha --openreportsEnabled flag (default false), and Policy Reporter 3.x
// reads both. docs/audit.md names the sources.
//
// # Content
//
// Build makes the reports from the audit's results (judge.Result, in
// namespace/name order): a result per finding with the diagnostic code as its
// rule (docs/codes.md), fail for an error and warn for a warning, the
// ListenerSet as its resource and the field as the property "field"; a pass
// result for a set without findings; the summary counts every finding, also
// those not shown. A report is capped (MaxBytes of results): past it one
// last result, ruled LS001 (errors left out) or LS002 (only warnings), says
// how many more there were, so that an object stays far under etcd's
// 1.5 MiB request limit. The types are local (a few fields of the CRD's
// schema): no policy engine's module is needed.
//
// # Writing
//
// Write checks with discovery that the CRD is served (ErrNoCRD when not:
// the audit says so on stderr and exits as it would), applies each report
// server-side (field manager ManagedBy) and deletes the reports it manages
// in namespaces that hold no judged set any more (only Namespace's, when
// set). RBACRules are all it needs, on policyreports alone; the audit's
// list-only rules (offline/live) stay as they are. It never reads or
// writes anything but these reports.
package policyreport
