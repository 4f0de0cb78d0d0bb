// Package policyreport writes the audit's findings as the ecosystem's policy
// tools read them: one wgpolicyk8s.io/v1alpha2 PolicyReport per namespace
// that holds judged ListenerSets (ReportName, labelled managed-by
// ManagedBy), a result per finding ruled by its diagnostic code, capped at
// MaxBytes of results with one counting result past it. Write applies them
// server-side and deletes the ones it manages that have no set any more,
// with RBACRules on policyreports alone; it never reads or writes anything
// else, and a cluster without the CRD is ErrNoCRD. The types are local (a
// few fields of the CRD's schema): no policy engine's module is needed.
//
// Why this API and not OpenReports, and what a report holds: docs/audit.md.
package policyreport
