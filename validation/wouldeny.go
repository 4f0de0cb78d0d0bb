package validation

import "github.com/airlock/listenerset-webhook/findings"

// KindWouldDeny: an error that does not deny, because the webhook's
// enforcement is "warn" (the first step of an adoption: see what would be
// denied before anything is).
const KindWouldDeny findings.WarningKind = "WouldDeny"

// WarnWouldDeny wraps the body of an error the enforcement lets through;
// the message begins with it, so that a warning that stands for a denial
// is recognised at a glance and by grep.
const WarnWouldDeny = "would be denied (enforcement warn): %s"

// ErrorsAsWarnings moves r's errors into its warnings, each as a
// KindWouldDeny warning, ahead of the warnings r already has: r then admits
// the object, and what would have denied it is what kubectl prints first.
// The shown errors become shown warnings while they fit the warnings'
// budget (findings' report.go), and every other error is counted, so the totals stay
// exact: Warnings.Total() is the errors and warnings there were.
func (r *Report) ErrorsAsWarnings() {
	var ws findings.WarningReport
	ws.AddErrors(KindWouldDeny, WarnWouldDeny, r.Errors.List())
	ws.AddReport(&r.Warnings)
	r.Errors, r.Warnings = findings.ErrorReport{}, ws
}
