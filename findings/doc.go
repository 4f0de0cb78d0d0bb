// Package findings is what every rule reports in, and how it is shown: a
// finding's stable diagnostic code (Code, its catalog entry CodeDoc, the
// codes of a report's summaries), the warning (Warning, WarningKind), the
// bounded reports of errors and warnings with their exact counts
// (ErrorReport, WarningReport: the one budget every engine uses) and the
// rule by which user text is escaped and cut (Cut, CutEscaped, Escape).
//
// Layering: findings is the vocabulary between the rules and every output
// (the webhook's response, the offline reports, the policy's messages),
// as apimachinery's field package is, so it stands beside package
// validation rather than behind it; it imports
// apimachinery's field errors only, and knows no rule. The rules' own
// codes, warning kinds and texts, and the catalog of every code, are
// validation's.
package findings
