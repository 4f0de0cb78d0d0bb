package policy

import (
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/airlock/listenerset-webhook/findings"
)

// The policy's messages are rendered from the Go rules' own error values: an
// error is built with the field package's constructor (and the detail the
// Go rule uses) around placeholders, and its ErrorBody becomes CEL that
// puts the object's values where the placeholders are. So the CEL says
// exactly what apimachinery would, and follows it when it changes.

// Placeholders of a rendered body, each named by the value the CEL puts
// there. A string placeholder shows up quoted (a string BadValue is printed
// with %q) or bare (in a detail); render finds either spelling.
const (
	// valueHole is an error's BadValue: the value judged.
	valueHole = "\x00value\x00"
	// intValueHole is an int BadValue (printed with %v): a number no text
	// of the rules holds.
	intValueHole int64 = 7770777
)

// hole is the placeholder of the value named name (valueHole is
// hole("value")).
func hole(name string) string { return "\x00" + name + "\x00" }

// lit is s as a CEL string literal (Go's quoting is valid CEL).
func lit(s string) string { return strconv.Quote(s) }

// list is a CEL list of string literals.
func list[T ~string](items []T) string {
	q := make([]string, len(items))
	for i, s := range items {
		q[i] = lit(string(s))
	}
	return "[" + strings.Join(q, ", ") + "]"
}

// render turns text with holes into a CEL string expression: a quoted hole
// (a string BadValue) becomes strings.quote(expr), a bare one (in a detail)
// the expression itself, intValueHole string(expr).
func render(text string, holes map[string]string) string {
	type sub struct{ spell, expr string }
	var subs []sub
	for hole, expr := range holes {
		if hole == strconv.FormatInt(intValueHole, 10) {
			subs = append(subs, sub{hole, "string(" + expr + ")"})
			continue
		}
		// string() keeps the join's list literal homogeneous: the object's
		// fields are dyn
		subs = append(subs, sub{strconv.Quote(hole), "strings.quote(" + cutCEL(expr) + ")"}, sub{hole, "string(" + expr + ")"})
	}
	var parts []string
	for text != "" {
		at, which := -1, sub{}
		for _, s := range subs {
			if i := strings.Index(text, s.spell); i >= 0 && (at < 0 || i < at || (i == at && len(s.spell) > len(which.spell))) {
				at, which = i, s
			}
		}
		if at < 0 {
			parts = append(parts, lit(text))
			break
		}
		if at > 0 {
			parts = append(parts, lit(text[:at]))
		}
		parts = append(parts, "("+which.expr+")")
		text = text[at+len(which.spell):]
	}
	switch len(parts) {
	case 0:
		return `""`
	case 1:
		return parts[0]
	}
	// one join copies the text once; a chain of + copies it per part
	return "[" + strings.Join(parts, ", ") + `].join("")`
}

// cutCEL is the CEL of the string expr as a message quotes it: cut to
// findings.MaxValueRunes characters with findings.CutSuffix, as every
// engine cuts a value (findings' report.go).
func cutCEL(expr string) string {
	before, after, _ := strings.Cut(findings.CutSuffix, "%d")
	suffix := lit(before) + ` + string(size(bytes(v))) + ` + lit(after)
	return fill(`[string({x})].map(v, size(v) <= {max} ? v : [{suffix}].map(s, v.substring(0, {max} - size(s)) + s)[0])[0]`,
		"x", expr, "max", strconv.Itoa(findings.MaxValueRunes), "suffix", suffix)
}

// placeholderPath is the path the constructors are given; the CEL has the
// real one, and a body (ErrorBody) leaves the path out.
var placeholderPath = field.NewPath("x")

// writer writes the CEL of the rules' entries for one tier of the policy
// (see build): the checks (pathsOnly) or the details.
type writer struct {
	// pathsOnly writes each entry as its path only.
	pathsOnly bool
	// drift gathers, for both tiers, each apimachinery validator whose
	// messages the CEL can no longer be written from (upstream.go).
	drift *drift
}

// line is the CEL of one error entry, "<path>: <body>": pathExpr is CEL, e
// the Go rule's error built with holes, holes what CEL fills them with.
func (w writer) line(pathExpr string, e *field.Error, holes map[string]string) string {
	return w.rawLine(pathExpr, render(e.ErrorBody(), holes))
}

// rawLine is the CEL of an entry whose body is the CEL string body; only
// its path in the checks (pathsOnly).
func (w writer) rawLine(pathExpr, body string) string {
	if w.pathsOnly {
		return "string(" + pathExpr + ")"
	}
	return "[string(" + pathExpr + `), ": ", ` + body + `].join("")`
}
