package docs

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/defaults"
	"github.com/airlock/listenerset-webhook/test/golden"
	"github.com/airlock/listenerset-webhook/validation/object"
)

// rulesPage is the hand-written page of the rules, whose TLS options rows
// (the rows of rule 6) and list of list-valued options are generated from
// validation.AirlockOptions, and whose rows that name a limit, a protocol,
// a kind or a group (dataRows) from validation's and defaults' values.
const rulesPage = "docs/rules.md"

// TestRulesPageOptionsAreGenerated: the rows of rule 6 in docs/rules.md's
// table, the list-valued options its "Airlock name lists" section names,
// and the rows of dataRows are exactly what validation.AirlockOptions, the
// limits, protocols, kinds and groups say. It
// fails when an option, its values or a limit changed in Go and the page
// was not regenerated (`make docs-generate`, or this test with -update).
func TestRulesPageOptionsAreGenerated(t *testing.T) {
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
		"`make docs-generate` (go test ./test/docs -run TestRulesPageOptionsAreGenerated -update)")
}

// optionRowPrefix starts each generated row: rule 6 of the table.
const optionRowPrefix = "| 6 | "

// listOptionNames is the sentence that names the list-valued options.
var listOptionNames = regexp.MustCompile("(with `option` one of )`[^`]+`(?:,\\s+`[^`]+`)*")

// withOptionRows is page with its option rows and its list of list-valued
// options replaced by the generated ones.
func withOptionRows(page string) (string, error) {
	lines := strings.SplitAfter(page, "\n")
	first, last := -1, -1
	for i, l := range lines {
		if strings.HasPrefix(l, optionRowPrefix) {
			if first < 0 {
				first = i
			} else if last != i-1 {
				return "", fmt.Errorf("%s: the rows of rule 6 are not together (line %d)", rulesPage, i+1)
			}
			last = i
		}
	}
	if first < 0 {
		return "", fmt.Errorf("%s: no row starts with %q", rulesPage, optionRowPrefix)
	}
	lines = append(append(lines[:first:first], optionRows()), lines[last+1:]...)
	for prefix, row := range dataRows() {
		i := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, prefix) })
		if i < 0 {
			return "", fmt.Errorf("%s: no row starts with %q", rulesPage, prefix)
		}
		lines[i] = prefix + row + "\n"
	}
	out := strings.Join(lines, "")
	if !listOptionNames.MatchString(out) {
		return "", fmt.Errorf("%s: no sentence %q", rulesPage, "with `option` one of `...`")
	}
	names := make([]string, len(object.ListOptions))
	for i, k := range object.ListOptions {
		names[i] = "`" + strings.TrimPrefix(string(k), object.OptionPrefix) + "`"
	}
	return listOptionNames.ReplaceAllLiteralString(out, "with `option` one of "+strings.Join(names, ", ")), nil
}

// optionRows are the rows of rule 6: the options map's limits, then a row
// per option of validation.AirlockOptions (options that share their
// description share a row).
func optionRows() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s`spec.listeners[i].tls.options` | ≤ %d keys, values ≤ %d bytes; keys domain-prefixed (un-prefixed names are reserved by Gateway API); unknown `%s` keys rejected, naming the supported ones | Too many / Too long / Invalid / Unsupported value |\n",
		optionRowPrefix, object.MaxOptions, object.MaxOptionValueLen, object.OptionPrefix)
	opts := object.AirlockOptions
	for i := 0; i < len(opts); {
		rule, errs := optionRule(opts[i])
		keys := []string{"`options[" + string(opts[i].Key) + "]`"}
		j := i + 1
		for ; j < len(opts); j++ {
			if r, e := optionRule(opts[j]); r != rule || e != errs {
				break
			}
			keys = append(keys, "`"+strings.TrimPrefix(string(opts[j].Key), object.OptionPrefix)+"`")
		}
		fmt.Fprintf(&b, "%s%s | %s | %s |\n", optionRowPrefix, strings.Join(keys, ", "), rule, errs)
		i = j
	}
	return b.String()
}

// optionRule is an option's rule and errors columns: its own, or what its
// values say.
func optionRule(o object.AirlockOption) (rule, errs string) {
	values := make([]string, len(o.Values))
	for i, v := range o.Values {
		values[i] = "`" + v + "`"
	}
	rule, errs = o.Rule, o.Errors
	switch {
	case o.List:
		if rule == "" {
			rule = "comma-separated " + strings.Join(values, ", ")
		}
		rule += "; not empty, no empty items, no duplicates, no spaces"
		if errs == "" {
			errs = "Invalid / Duplicate / Unsupported value"
		}
	case rule == "":
		rule = "one of " + strings.Join(values, ", ")
	}
	if errs == "" {
		errs = "Unsupported value"
	}
	return rule, errs
}

// dataRows are the rows of the table that name a limit, a protocol, a kind
// or a group, by the row's first two cells: the rest of the row, from the
// values the rules use.
func dataRows() map[string]string {
	return map[string]string{
		"| 1 | `spec.listeners` | ":             fmt.Sprintf("1 to %d entries | Required / Too many |", object.MaxListeners),
		"| 3 | `spec.listeners[i].protocol` | ": "exactly " + orList(object.SupportedProtocols) + " | Unsupported value |",
		"| 5 | `...certificateRefs[j].group`, `.kind`, `.name` | ": fmt.Sprintf("group `%q`, kind `%s`, name required (DNS subdomain) | Unsupported value / Required |",
			defaults.SecretGroup, defaults.SecretKind),
		"| 9 | `spec.listeners[i].allowedRoutes` | ": fmt.Sprintf("kinds only `%s` in group `%s`; `namespaces.from` one of %s; `%s` needs a valid `selector`, "+
			"each of its lists (`matchLabels`, `matchExpressions`, an expression's `values`) at most %d items (the CRD sets no bound; a longer list is not judged item by item; "+
			"choose namespaces by label) | Unsupported value / Required / Invalid / Too many |",
			object.HTTPRouteKind, gwv1.GroupName, quoted(object.SupportedFrom), gwv1.NamespacesFromSelector, object.MaxSelectorItems),
		"| 10 | `spec.parentRef` | ": fmt.Sprintf("kind `%s`, group `%s`, name required | Unsupported value / Required |", defaults.GatewayKind, gwv1.GroupName),
	}
}

// quoted is each value in backquotes, comma-separated.
func quoted[T ~string](values []T) string {
	q := make([]string, len(values))
	for i, v := range values {
		q[i] = "`" + string(v) + "`"
	}
	return strings.Join(q, ", ")
}

// orList is quoted, its last two joined by "or".
func orList[T ~string](values []T) string {
	q := strings.Split(quoted(values), ", ")
	if len(q) < 2 {
		return strings.Join(q, "")
	}
	return strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
}
