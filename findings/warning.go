package findings

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Warning is one admission warning: the object is admitted, and kubectl
// prints String() as a "Warning:" line. Warnings are values with a path and a
// kind, so that a rule decides whether to give one, and no rule has to find
// and remove another rule's warning by its text.
type Warning struct {
	// Path is the field the warning is about, e.g. spec.listeners[0].tls.
	Path string
	// Kind says which rule gave it.
	Kind WarningKind
	// Code is its diagnostic code: its kind's (KindCode), or, for a
	// warning that stands for an error (ratcheted, would deny, a
	// cluster-aware error outside strict), the error's.
	Code Code
	// Message is the text after the path.
	Message string
}

// String is "path: message", the form kube-apiserver's own warnings take.
func (w Warning) String() string { return w.Path + ": " + w.Message }

// Warnings are the warnings of one verdict, in the order the rules gave them.
type Warnings []Warning

// Strings returns each warning's String, for admission responses and output.
func (ws Warnings) Strings() []string {
	if ws == nil {
		return nil
	}
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = w.String()
	}
	return out
}

// Addf records a warning of kind k with code on p, its message format with
// args; past the budget it is only counted, its path and message not built.
func (r *WarningReport) Addf(p *field.Path, k WarningKind, code Code, format string, args ...any) {
	if r.full {
		r.count(1) // not shown: its path and message are not built
		return
	}
	r.Add(Warning{Path: p.String(), Kind: k, Code: code, Message: fmt.Sprintf(format, args...)})
}

// WarningKind names the rule behind a warning.
type WarningKind string

// AddErrors records errs as warnings of kind k, each message format with
// the error's body (its value cut as a report cuts it); a report's summary
// among them counts as the errors it stands for, and past the budget an
// error is counted without building its message.
func (r *WarningReport) AddErrors(k WarningKind, format string, errs field.ErrorList) {
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
