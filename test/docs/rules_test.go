package docs

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/airlock/listenerset-webhook/validation"

	"github.com/airlock/listenerset-webhook/test/golden"
)

// rulesPage is the hand-written page of the rules, whose table's rows of
// the object rules are generated from their definitions (validation.Rules)
// and whose list of list-valued options from validation.ListOptions.
const rulesPage = "docs/rules.md"

// TestRulesTableIsGenerated: the rows of docs/rules.md's table of the
// object rules and the list-valued options its "Airlock name lists"
// section names are exactly what the rules' definitions
// (validation.Rules) and the option table say. It fails when a rule, an
// option, its values or a limit changed in Go and the page was not
// regenerated (`make docs-generate`, or this test with -update).
func TestRulesTableIsGenerated(t *testing.T) {
	path := filepath.Join(root, rulesPage)
	page, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want, err := withOptionRows(string(page))
	if err != nil {
		t.Fatal(err)
	}
	golden.Generated(t, path, []byte(want), *update,
		"`make docs-generate` (go test ./test/docs -run TestRulesTableIsGenerated -update)")
}

// tableHeader starts the table of the rules; ratchetRowPrefix starts its
// last row, the update's ratcheting, which is not an object rule and
// written by hand.
const (
	tableHeader      = "| # | field | rule | error | denied, e.g. |"
	ratchetRowPrefix = "| 11 | update |"
)

// listOptionNames is the sentence that names the list-valued options.
var listOptionNames = regexp.MustCompile("(with `option` one of )`[^`]+`(?:,\\s+`[^`]+`)*")

// withOptionRows is page with the rows of its table before the ratcheting
// row replaced by validation.Rules, a row each, and its list of
// list-valued options by the option table's.
func withOptionRows(page string) (string, error) {
	lines := strings.SplitAfter(page, "\n")
	header := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, tableHeader) })
	last := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, ratchetRowPrefix) })
	if header < 0 || last < header {
		return "", fmt.Errorf("%s: no table %q with a row %q", rulesPage, tableHeader, ratchetRowPrefix)
	}
	lines = append(append(lines[:header+2:header+2], ruleRows()), lines[last:]...)
	out := strings.Join(lines, "")
	if !listOptionNames.MatchString(out) {
		return "", fmt.Errorf("%s: no sentence %q", rulesPage, "with `option` one of `...`")
	}
	names := make([]string, len(validation.ListOptions))
	for i, k := range validation.ListOptions {
		names[i] = "`" + strings.TrimPrefix(string(k), validation.OptionPrefix) + "`"
	}
	return listOptionNames.ReplaceAllLiteralString(out, "with `option` one of "+strings.Join(names, ", ")), nil
}

// ruleRows are the table's rows of validation.Rules.
func ruleRows() string {
	var b strings.Builder
	for _, r := range validation.Rules() {
		fmt.Fprintf(&b, "| %d | %s | %s | %s | `%s` |\n", r.Number, r.Field, r.Summary, r.Errors, r.Invalid)
	}
	return b.String()
}
