package validation

import (
	"fmt"
	"slices"
	"strings"

	"github.com/airlock/listenerset-webhook/findings"
	"github.com/airlock/listenerset-webhook/validation/internal/incluster"
	"github.com/airlock/listenerset-webhook/validation/internal/object"
	"github.com/airlock/listenerset-webhook/validation/internal/routes"
)

// catalog describes the reports' summaries. The wrapping warning kind
// KindWouldDeny has no code of its own: such a warning carries the code of
// the error it stands for.
var catalog = []findings.CodeDoc{
	{Code: findings.CodeMoreErrors, Kind: findings.CodeKindSummary, Title: "Errors not shown",
		Cause: fmt.Sprintf("The report shows its first errors up to a budget (%d errors, %d KiB of text); this entry says how many more there were, at the common parent of their paths.", findings.MaxErrors, findings.MaxErrorBytes>>10),
		Fix:   "Fix the errors shown and validate again; the rest are then shown."},
	{Code: findings.CodeMoreWarnings, Kind: findings.CodeKindSummary, Title: "Warnings not shown", WarningKind: findings.KindMoreWarnings,
		Cause: "The report shows its first warnings up to kube-apiserver's budget for warnings; this entry says how many more there were.",
		Fix:   "Fix the warnings shown and validate again; the rest are then shown."},
}

// allCodes is catalog and the codes of every rule: the object's, the
// cluster-aware ones' and the routes'.
var allCodes = codesNow()

// codesNow is allCodes as the rules' tables hold them now (a test may add
// a set rule with a code of its own: validationtest.AddSetRule).
func codesNow() []findings.CodeDoc {
	return slices.Concat(catalog, object.Codes(), incluster.ClusterCodes(), routes.RouteCodes())
}

// Catalog is every code, by code: the object rules', the cluster-aware
// rules', the routes' and the reports' summaries.
func Catalog() []findings.CodeDoc {
	out := codesNow()
	slices.SortFunc(out, func(a, b findings.CodeDoc) int { return strings.Compare(string(a.Code), string(b.Code)) })
	return out
}

// kindCodes is the code of each warning kind that has one of its own.
var kindCodes = findings.CodesByKind(allCodes)

// KindCode is the code of warnings of kind k; "" for a kind that wraps an
// error (its warnings carry the error's code) or that has none.
func KindCode(k findings.WarningKind) findings.Code { return kindCodes[k] }
