package findings

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// How much of a verdict is shown: the one rule, used by every engine (the
// webhook's 422 and warnings, the offline reports, the policy's message).
// A report keeps its first errors and warnings up to a budget in entries
// and in bytes, counts every one exactly, and ends with one entry saying how
// many more there were. The rules report into it as they go (errorReport,
// warningReport), so an object built to fail everywhere costs memory for
// what is shown, not for what it could have said: one such 1 MB object
// (64 listeners of four 1 024-item lists) made 262 144 errors, whose
// 422 took kube-apiserver's webhook over ten minutes to build.
const (
	// MaxShownItems is how many bad items of one list-valued TLS option
	// are named one by one; past it, one error names the first
	// MaxShownItems and says how many there are.
	MaxShownItems = 3
	// MaxValueRunes is how much of a string value an error quotes, in
	// characters (CEL's strings count them so, and the policy's message
	// follows this rule); a longer one is cut (cutValue) and says its
	// length in bytes. Hostnames and names (at most 253) are shown whole.
	MaxValueRunes = 256
	// MaxErrors is how many errors a report shows.
	MaxErrors = 64
	// MaxErrorBytes is how many bytes of errors a report shows, as the
	// webhook's 422 holds them (responseLen): each error twice, in the
	// status's message and as a cause with its reason and field, as
	// encoding/json writes them, the summary included. With the
	// warnings (at most six bytes a rune of MaxWarningsRunes) and the
	// review around them, a response stays under 64 KiB.
	MaxErrorBytes = 40 << 10
	// MaxWarningRunes is the longest warning shown: kube-apiserver cuts
	// every warning to 256 runes once a response's warnings pass 4 096
	// runes (k8s.io/apiserver/pkg/endpoints/filters/warning.go), so none
	// of ours is ever cut in the middle by it.
	MaxWarningRunes = 256
	// MaxWarningsRunes is how many runes of warnings a report shows, the
	// summary included: three quarters of kube-apiserver's 4 096 per
	// response, which it shares with the other admission plugins, so that
	// ours, and their summary, are not the ones it drops.
	MaxWarningsRunes = 3 << 10
)

// Texts of the summaries a report ends with.
const (
	// DetailMoreErrors is the detail of the error that ends a report
	// that does not show every error, whose value is how many it leaves
	// out: of how many.
	DetailMoreErrors = "errors not shown (%d in all)"
	// DetailNotShown is the detail of a rule's count of the errors it
	// did not build (before a report counts them all).
	DetailNotShown = "errors not shown"
	// WarnMoreWarnings ends a report that does not show every warning.
	WarnMoreWarnings = "and %d more warnings not shown (%d in all)"
	// DetailShownItems begins the detail of the one error of a
	// list-valued option with more than MaxShownItems bad items of a kind.
	DetailShownItems = "%d items, the first %d shown"
)

// KindMoreWarnings: the warning that says how many more were not shown.
const KindMoreWarnings WarningKind = "MoreWarnings"

// ErrorReport collects errors up to MaxErrors and MaxErrorBytes and counts
// every one. The zero value is empty and ready to use.
type ErrorReport struct {
	shown field.ErrorList
	bytes int
	// total counts every error added, shown or not.
	total int
	// full is set once an error did not fit: every later one is only
	// counted, so the report keeps the order the rules gave.
	full bool
	// hidden counts the errors not shown; hiddenPath is the common parent
	// of their paths.
	hidden     int
	hiddenPath string
}

// Add records errs: shown while they fit, counted either way. An error past
// the budget costs its count and a comparison of its path. A MoreErrors
// (from a rule that counts what it does not build, or another report)
// counts as the errors it stands for.
func (r *ErrorReport) Add(errs ...*field.Error) {
	for _, e := range errs {
		if n, ok := moreCount(e); ok {
			r.total += n
			r.hide(n, e.Field)
			continue
		}
		r.total++
		if !r.full {
			e = cutError(e)
			if n := responseLen(e); len(r.shown) < MaxErrors && r.bytes+n <= MaxErrorBytes-summaryBytes {
				r.shown = append(r.shown, e)
				r.bytes += n
				continue
			}
			r.full = true
		}
		r.hide(1, e.Field)
	}
}

func (r *ErrorReport) hide(n int, path string) {
	path = Cut(path, MaxPathBytes, CutPathSuffix)
	if r.hidden == 0 {
		r.hiddenPath = path
	} else {
		r.hiddenPath = commonParent(r.hiddenPath, path)
	}
	r.hidden += n
}

// AddReport adds what another report holds: the errors it shows that keep
// says to keep (nil keeps all), and the ones it only counted.
func (r *ErrorReport) AddReport(o *ErrorReport, keep func(*field.Error) bool) {
	for _, e := range o.shown {
		if keep == nil || keep(e) {
			r.Add(e)
		}
	}
	if o.hidden > 0 {
		r.total += o.hidden
		r.hide(o.hidden, o.hiddenPath)
	}
}

// Total is the number of errors added, shown or not.
func (r *ErrorReport) Total() int { return r.total }

// List is the report: the errors shown, then, when some are not, one that
// says how many (MoreErrors).
func (r *ErrorReport) List() field.ErrorList {
	if r.hidden == 0 {
		return r.shown
	}
	more := moreErrors(r.hiddenPath, r.hidden)
	more.Detail = fmt.Sprintf(DetailMoreErrors, r.total)
	return append(r.shown[:len(r.shown):len(r.shown)], more)
}

// moreErrors is the error that stands for n errors not shown, on the common
// parent of their paths ("spec" when they share none): field.TooMany with
// the number as its value, "spec.listeners: Too many: 197: errors not
// shown (256 in all)" once a report has counted them all.
func moreErrors(parent string, n int) *field.Error {
	if parent == "" {
		parent = "spec"
	}
	return &field.Error{Type: field.ErrorTypeTooMany, Field: parent, BadValue: n, Detail: DetailNotShown, Origin: originMore}
}

// originMore marks the summary error, which names no problem of its own.
const originMore = string(CodeMoreErrors)

// IsMoreErrors tells whether e is a report's summary, which stands for
// errors not shown and names no problem of its own.
func IsMoreErrors(e *field.Error) bool {
	_, ok := moreCount(e)
	return ok
}

// moreCount is the number of errors a summary stands for.
func moreCount(e *field.Error) (int, bool) {
	n, ok := e.BadValue.(int)
	return n, ok && e.Origin == originMore
}

// WarningReport collects warnings up to MaxWarningsRunes, each cut to
// MaxWarningRunes, and counts every one, keeping room for the summary. The
// zero value is empty and ready to use.
type WarningReport struct {
	shown Warnings
	runes int
	total int
	full  bool
}

// summaryRunes is the room kept for the summary warning.
const summaryRunes = 96

// Add records ws: shown while they fit, counted either way.
func (r *WarningReport) Add(ws ...Warning) {
	for _, w := range ws {
		r.total++
		if r.full {
			continue
		}
		w = cutWarning(w)
		n := utf8.RuneCountInString(w.Path) + 2 + utf8.RuneCountInString(w.Message)
		if r.runes+n > MaxWarningsRunes-summaryRunes {
			r.full = true
			continue
		}
		r.shown = append(r.shown, w)
		r.runes += n
	}
}

// AddReport adds what another report holds: its shown warnings, and the
// ones it only counted.
func (r *WarningReport) AddReport(o *WarningReport) {
	r.Add(o.shown...)
	if hidden := o.total - len(o.shown); hidden > 0 {
		r.count(hidden)
	}
}

// count records n warnings that are not shown, whose messages are never
// built (past the budget, or a rule's count of errors it did not build).
func (r *WarningReport) count(n int) {
	r.total += n
	r.full = true
}

// Total is the number of warnings added, shown or not.
func (r *WarningReport) Total() int { return r.total }

// Shown are the warnings that fit, in the order they were added: the first
// len(Shown()) added, each cut to MaxWarningRunes.
func (r *WarningReport) Shown() Warnings { return r.shown }

// More is the warning that says how many were not shown; ok is false when
// every one was.
func (r *WarningReport) More() (w Warning, ok bool) {
	if !r.full {
		return Warning{}, false
	}
	return Warning{Path: "spec", Kind: KindMoreWarnings, Code: CodeMoreWarnings,
		Message: fmt.Sprintf(WarnMoreWarnings, r.total-len(r.shown), r.total)}, true
}

// List is the report: the warnings shown, then, when some are not, More.
func (r *WarningReport) List() Warnings {
	more, ok := r.More()
	if !ok {
		return r.shown
	}
	return append(r.shown[:len(r.shown):len(r.shown)], more)
}

// summaryBytes is the room kept for the summary error: its path is cut to
// MaxPathBytes and is in the 422 twice, as the error's.
const summaryBytes = 2*MaxPathBytes + 256

// responseLen is what e adds to the webhook's 422 (apierrors.NewInvalid),
// as encoding/json writes it: its Error() in the status's message, with
// the ", " between errors, and its cause,
// {"reason":"…","message":"…","field":"…"}, with the comma after it.
func responseLen(e *field.Error) int {
	const cause = len(`{"reason":"","message":"","field":""},`)
	return JSONLen(e.Error()) + len(", ") + cause + JSONLen(string(e.Type)) + JSONLen(e.ErrorBody()) + JSONLen(e.Field)
}

// cutError returns e with its user text cut to its shares (text.go): the
// path to MaxPathBytes, a string value to MaxValueRunes, the detail to
// MaxDetailBytes; a copy when anything is cut (e is the rule's).
func cutError(e *field.Error) *field.Error {
	path := Cut(e.Field, MaxPathBytes, CutPathSuffix)
	detail := Cut(e.Detail, MaxDetailBytes, CutSuffix)
	s, isString := e.BadValue.(string)
	value := s
	if isString {
		value = CutValue(s)
	}
	if path == e.Field && detail == e.Detail && value == s {
		return e
	}
	e2 := *e
	e2.Field, e2.Detail = path, detail
	if isString {
		e2.BadValue = value
	}
	return &e2
}

// CutValue cuts s to MaxValueRunes characters, saying how long it was in
// bytes: "aaaa... (4096 bytes)", the suffix counted in the MaxValueRunes. A
// cut value is not cut again. The policy's CEL cuts the same way
// (policy.cutCEL).
func CutValue(s string) string {
	if len(s) <= MaxValueRunes || utf8.RuneCountInString(s) <= MaxValueRunes {
		return s
	}
	suffix := fmt.Sprintf(CutSuffix, len(s))
	keep := MaxValueRunes - len(suffix)
	for i := range s {
		if keep == 0 {
			return s[:i] + suffix
		}
		keep--
	}
	return s
}

// cutWarning writes a warning's path and message as a person reads them
// (Escape: kube-apiserver drops a warning with a control character) in at
// most MaxWarningRunes runes in all: a path of at most half of them, the
// message in the rest, each cut with its tail (text.go).
func cutWarning(w Warning) Warning {
	w.Path = CutEscaped(w.Path, MaxWarningRunes/2, CutPathSuffix)
	w.Message = CutEscaped(w.Message, MaxWarningRunes-len(": ")-utf8.RuneCountInString(w.Path), CutSuffix)
	return w
}

// commonParent is the longest common path of a and b that ends at a whole
// step ("spec.listeners[3].tls" and "spec.listeners[4].name" give
// "spec.listeners"); a "." or "[" inside a map key's brackets is no step.
func commonParent(a, b string) string {
	if len(a) > len(b) {
		a, b = b, a
	}
	if strings.HasPrefix(b, a) && (len(b) == len(a) || b[len(a)] == '.' || b[len(a)] == '[') {
		return a // a is b or a parent of it
	}
	last, inKey := 0, false
	for i := 0; i < len(a) && a[i] == b[i]; i++ {
		switch c := a[i]; {
		case inKey:
			inKey = c != ']'
		case c == '[':
			last, inKey = i, true
		case c == '.':
			last = i
		}
	}
	return a[:last]
}
