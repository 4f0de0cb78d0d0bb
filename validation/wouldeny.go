package validation

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// KindWouldDeny: an error that does not deny, because the webhook's
// enforcement is "warn" (the first step of an adoption: see what would be
// denied before anything is).
const KindWouldDeny WarningKind = "WouldDeny"

// WarnWouldDeny wraps the body of an error the enforcement lets through;
// the message begins with it, so that a warning that stands for a denial
// is recognised at a glance and by grep.
const WarnWouldDeny = "would be denied (enforcement warn): %s"

// ErrorsAsWarnings moves r's errors into its warnings, each as a
// KindWouldDeny warning, ahead of the warnings r already has: r then admits
// the object, and what would have denied it is what kubectl prints first.
// The shown errors become shown warnings while they fit the warnings'
// budget (report.go), and every other error is counted, so the totals stay
// exact: Warnings.Total() is the errors and warnings there were.
func (r *Report) ErrorsAsWarnings() {
	var ws WarningReport
	ws.addErrors(KindWouldDeny, WarnWouldDeny, r.Errors.List())
	ws.AddReport(&r.Warnings)
	r.Errors, r.Warnings = ErrorReport{}, ws
}

// addErrors records errs as warnings of kind k, each message format with
// the error's body (its value cut as a report cuts it); a report's summary
// among them counts as the errors it stands for, and past the budget an
// error is counted without building its message.
func (r *WarningReport) addErrors(k WarningKind, format string, errs field.ErrorList) {
	for _, e := range errs {
		if n, ok := moreCount(e); ok {
			r.count(n)
			continue
		}
		if r.full {
			r.count(1)
			continue
		}
		r.Add(Warning{Path: e.Field, Kind: k, Code: CodeOf(e), Message: fmt.Sprintf(format, cutError(e).ErrorBody())})
	}
}
