package policy

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	rules "github.com/airlock/listenerset-webhook/validation"
)

// The policy's messages are rendered from the Go rules' own error values: an
// error is built with the field package's constructor (and the detail the
// Go rule uses) around placeholders, and its ErrorBody becomes CEL that
// puts the object's values where the placeholders are. So the CEL says
// exactly what apimachinery would, and follows it when it changes.

// Placeholders of a rendered body. A string placeholder shows up quoted (a
// string BadValue is printed with %q); hole finds either spelling.
const (
	holeA = "\x00a\x00"
	holeB = "\x00b\x00"
	holeC = "\x00c\x00"
	// holeInt is an int BadValue (printed with %v).
	holeInt int64 = 7770777
)

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
// the expression itself, holeInt string(expr).
func render(text string, holes map[string]string) string {
	type sub struct{ spell, expr string }
	var subs []sub
	for hole, expr := range holes {
		if hole == strconv.FormatInt(holeInt, 10) {
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
// validation.MaxValueRunes characters with validation.CutSuffix, as every
// engine cuts a value (validation's report.go).
func cutCEL(expr string) string {
	before, after, _ := strings.Cut(rules.CutSuffix, "%d")
	suffix := lit(before) + ` + string(size(bytes(v))) + ` + lit(after)
	return t(`[string({x})].map(v, size(v) <= {max} ? v : [{suffix}].map(s, v.substring(0, {max} - size(s)) + s)[0])[0]`,
		"x", expr, "max", strconv.Itoa(rules.MaxValueRunes), "suffix", suffix)
}

// line is the CEL of one error entry, "<path>: <body>": pathExpr is CEL, e
// the Go rule's error built with holes, holes what CEL fills them with.
func line(pathExpr string, e *field.Error, holes map[string]string) string {
	return rawLine(pathExpr, render(e.ErrorBody(), holes))
}

// rawLine is the CEL of an entry whose body is the CEL string body; only
// its path while build writes the checks (pathsOnly).
func rawLine(pathExpr, body string) string {
	if pathsOnly {
		return "string(" + pathExpr + ")"
	}
	return "[string(" + pathExpr + `), ": ", ` + body + `].join("")`
}

// p is a placeholder path for the constructors; the CEL has the real one.
var p = field.NewPath("x")

// regexOf extracts the regular expression apimachinery names in a
// validation message ("... regex used for validation is '<re>')"), anchored,
// so that the CEL matches with the very expression the message cites.
func regexOf(msg string) string {
	m := regexp.MustCompile(`regex used for validation is '(.*)'\)`).FindStringSubmatch(msg)
	if m == nil {
		panic(fmt.Sprintf("no regex in %q", msg))
	}
	return "^" + m[1] + "$"
}

// one returns the only message of msgs, which must be exactly one.
func one(msgs []string) string {
	if len(msgs) != 1 {
		panic(fmt.Sprintf("want one message, got %q", msgs))
	}
	return msgs[0]
}
