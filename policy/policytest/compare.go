package policytest

import (
	"regexp"
	"slices"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/airlock/listenerset-webhook/findings"
	"github.com/airlock/listenerset-webhook/policy"
)

var moreRE = regexp.MustCompile(`; and (\d+) more$`)

// Entries splits the policy's message (after kube-apiserver's "... denied
// request: " prefix, if any) into its "<path>: <detail>" entries; truncated
// says the message was cut.
func Entries(msg string) (entries []string, truncated bool) {
	if _, after, ok := strings.Cut(msg, "denied request: "); ok {
		msg = after
	}
	if m := moreRE.FindStringIndex(msg); m != nil {
		msg, truncated = msg[:m[0]], true
	}
	start := 0
	for i := 0; i < len(msg); i++ {
		if !strings.HasPrefix(msg[i:], policy.Separator) {
			continue
		}
		for _, s := range policy.EntryStarts {
			if strings.HasPrefix(msg[i+len(policy.Separator):], s) {
				entries = append(entries, msg[start:i])
				start = i + len(policy.Separator)
				break
			}
		}
	}
	return append(entries, msg[start:]), truncated
}

// PathOf is the path of an entry.
func PathOf(entry string) string { p, _, _ := strings.Cut(entry, ": "); return p }

// Paths are the distinct paths of entries, sorted.
func Paths(entries []string) []string {
	var out []string
	for _, e := range entries {
		out = append(out, PathOf(e))
	}
	return slices.Compact(slices.Sorted(slices.Values(out)))
}

// Entry is e as the policy writes it: e.Error() with a string value quoted as
// CEL's strings.quote quotes it (only \a \b \f \n \r \t \v, backslash and
// quote escaped; Go's %q escapes the unprintable characters too) and a line
// break elsewhere (an option key, a listener's name) escaped.
func Entry(e *field.Error) string {
	body := e.ErrorBody()
	if v, ok := e.BadValue.(string); ok {
		body = strings.Replace(body, strconv.Quote(v), celQuote(v), 1)
	}
	return strings.ReplaceAll(e.Field+": "+body, "\n", `\n`)
}

// ErrorEntries are the entries of errs, sorted: the entries a message that shows every error
// holds, as Entries of that message sorts them (SortedEntries).
func ErrorEntries(errs field.ErrorList) []string {
	out := make([]string, 0, len(errs))
	for _, e := range errs {
		out = append(out, Entry(e))
	}
	slices.Sort(out)
	return out
}

// SortedEntries are the entries of a policy message, sorted, to compare
// with ErrorEntries.
func SortedEntries(msg string) []string {
	entries, _ := Entries(msg)
	slices.Sort(entries)
	return entries
}

// ErrorPaths are the distinct paths of errs as the policy spells them.
func ErrorPaths(errs field.ErrorList) []string {
	var out []string
	for _, e := range errs {
		out = append(out, strings.ReplaceAll(e.Field, "\n", `\n`))
	}
	return slices.Compact(slices.Sorted(slices.Values(out)))
}

func celQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, c := range strings.ToValidUTF8(s, "\uFFFD") {
		switch c {
		case '\a':
			b.WriteString(`\a`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case '\v':
			b.WriteString(`\v`)
		case '\\':
			b.WriteString(`\\`)
		case '"':
			b.WriteString(`\"`)
		default:
			b.WriteRune(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// Cut tells whether validation's report errs is cut: it ends with the
// summary of the errors it does not show (findings.IsMoreErrors).
func Cut(errs field.ErrorList) bool {
	return len(errs) > 0 && findings.IsMoreErrors(errs[len(errs)-1])
}

// NotCovered is the first of the policy's paths that validation's report
// errs does not cover ("" when it covers every one), for a message or a
// report that is cut: a path is covered when an error of errs has it or,
// when errs is cut, when it is under the common parent of the errors errs
// does not show (its summary's path).
func NotCovered(paths []string, errs field.ErrorList) string {
	want := ErrorPaths(errs)
	parent := ""
	if Cut(errs) {
		parent = strings.ReplaceAll(errs[len(errs)-1].Field, "\n", `\n`)
	}
	for _, p := range paths {
		if slices.Contains(want, p) {
			continue
		}
		if parent != "" && (strings.HasPrefix(p, parent+".") || strings.HasPrefix(p, parent+"[")) {
			continue
		}
		return p
	}
	return ""
}
