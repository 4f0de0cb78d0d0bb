package findings

import (
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Code is a finding's stable diagnostic code, e.g. LS104: what a CI job
// suppresses, an alert matches and docs/codes.md explains. A rule gives its
// code where it builds its error (an error's Origin, through Code.Err and
// Code.Errs), and a warning's code follows from its kind (the catalog's
// WarningKind), so a rule's code is decided in one place. A code, once
// given, keeps its meaning and is never given to another rule, even after
// its rule is gone.
//
// The ranges: LS0xx what no rule of the webhook says (a report's summary,
// what the offline commands find before the rules: input, kube-apiserver's
// own checks), LS1xx the object's own errors, LS2xx its warnings, LS3xx the
// cluster-aware findings (errors under strict, warnings otherwise).
type Code string

// CodeKind says what a code stands for: the kind column of docs/codes.md.
type CodeKind string

// Kinds of codes.
const (
	// CodeKindError: an error of the object's own rules; it denies.
	CodeKindError CodeKind = "error"
	// CodeKindWarning: a warning of the object's own rules.
	CodeKindWarning CodeKind = "warning"
	// CodeKindCluster: a cluster-aware finding; an error under strict, a
	// warning otherwise, or a warning only, as its cause says.
	CodeKindCluster CodeKind = "cluster"
	// CodeKindSummary: a report's last entry, standing for the findings it
	// does not show.
	CodeKindSummary CodeKind = "summary"
	// CodeKindOffline: found by the offline commands before the rules: the
	// input, or kube-apiserver's own checks.
	CodeKindOffline CodeKind = "offline"
)

// CodeDoc describes a code as docs/codes.md lists it.
type CodeDoc struct {
	Code Code
	Kind CodeKind
	// Title is a few words, e.g. "Duplicate listener name": SARIF's short
	// description and GitHub's annotation title.
	Title string
	// Paths are the field paths the code's findings are at, each index
	// and map key written [*]; none for a summary, which stands at the
	// common parent of what it counts.
	Paths []string
	// Cause says what is wrong, Fix what to do.
	Cause, Fix string
	// WarningKind, for a warning's code, is the kind it is given by.
	WarningKind WarningKind
	// Rules are the object rules whose errors carry the code, "field:
	// rule" each (validation.Rule): the codes page lists them.
	Rules []string
	// Retired, for a code no rule gives any more, says since when and
	// why. The entry stays, so that the code is never given again.
	Retired string
}

// CodesPage is the page that explains every code; HelpURI points into it.
// SARIF's helpUri takes it, so it is absolute: the repository's docs.
const CodesPage = "https://github.com/airlock/listenerset-webhook/blob/main/docs/codes.md"

// HelpURI is the code's entry of CodesPage.
func (c Code) HelpURI() string { return CodesPage + "#" + strings.ToLower(string(c)) }

// Err gives e the code c.
func (c Code) Err(e *field.Error) *field.Error { return e.WithOrigin(string(c)) }

// Errs gives every error of errs the code c (the list of a helper that
// serves several rules, such as validateDNSSubdomain).
func (c Code) Errs(errs field.ErrorList) field.ErrorList { return errs.WithOrigin(string(c)) }

// CodeOf is the code the rule gave e; "" when e is none of this package's
// (kube-apiserver's own errors, which the offline command shows too).
func CodeOf(e *field.Error) Code {
	if isCode(e.Origin) {
		return Code(e.Origin)
	}
	return ""
}

// isCode tells whether s has a code's form, LS and three digits.
func isCode(s string) bool {
	if len(s) != 5 || !strings.HasPrefix(s, "LS") {
		return false
	}
	for _, c := range s[2:] {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// The codes of the summaries (report.go).
const (
	CodeMoreErrors   Code = "LS001"
	CodeMoreWarnings Code = "LS002"
)

// CodesByKind is the code of each warning kind docs give one, the map a
// catalog's warnings are coded by.
func CodesByKind(docs []CodeDoc) map[WarningKind]Code {
	m := map[WarningKind]Code{}
	for _, d := range docs {
		if d.WarningKind != "" {
			m[d.WarningKind] = d.Code
		}
	}
	return m
}
