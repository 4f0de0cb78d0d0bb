package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/airlock/listenerset-webhook/validation"

	"github.com/airlock/listenerset-webhook/findings"
	"github.com/airlock/listenerset-webhook/offline/policyreport"
	"github.com/airlock/listenerset-webhook/policy"
	"github.com/airlock/listenerset-webhook/webhook/inflight"
)

// A limit the pages state, by the Go constant that is the limit: each
// phrase must occur on its page (so that a reworded page fails here rather
// than going unchecked), and the number its group captures, as the page
// writes it ("3 072", "40 KiB"), must be the constant's value.
type statedLimit struct {
	name   string // the constant, as a page may name it in backquotes
	value  int
	page   string
	phrase string // a regular expression with one group: the number
}

// num is a number as the pages write it: digits grouped by spaces, and
// an optional unit.
const num = `(\d+(?: \d{3})*(?: KiB| MiB|Ki|Mi)?)`

var statedLimits = []statedLimit{
	{"validation.MaxAllowedHostnames", validation.MaxAllowedHostnames, "docs/tenancy.md", `nothing else between them, at most ` + num},
	{"validation.MaxAllowedHostnames", validation.MaxAllowedHostnames, "docs/tenancy.md", `blanks around an entry, more than ` + num + ` entries`},
	{"validation.MaxAllowedHostnames", validation.MaxAllowedHostnames, "docs/rules.md", `more than ` + num + ` entries \(` + "`MaxAllowedHostnames`"},
	{"validation.MaxAllowedHostnames", validation.MaxAllowedHostnames, "docs/policy.md", "A declaration holds at most `validation.MaxAllowedHostnames` \\(" + num + `\)`},
	{"validation.MaxAllowedHostnames", validation.MaxAllowedHostnames, "docs/policy.md", `in a Namespace of each of ` + "`policytest.WorstDeclarations`" + ` \(` + num},
	{"policy.MaxDetailedEntries", policy.MaxDetailedEntries, "docs/policy.md", `with the\s+first ` + num + ` bad entries`},
	{"policy.MaxMessageBytes", policy.MaxMessageBytes, "docs/policy.md", `failing listeners, up to ` + num + ` bytes`},
	{"policy.MaxMessageBytes", policy.MaxMessageBytes, "docs/policy.md", `failing listeners, cut at ` + num + ` bytes`},
	{"policy.MaxDetailedListeners", policy.MaxDetailedListeners, "docs/policy.md", `the first\s+` + num + ` failing listeners, cut at`},
	{"policy.MaxGatewaysBytes", policy.MaxGatewaysBytes, "docs/policy.md", `list holds at most ` + num + " as JSON \\(`policy.MaxGatewaysBytes`"},
	{"policy.MaxGatewaysBytes", policy.MaxGatewaysBytes, "docs/chart.md", `At most ` + num + ` as JSON`},
	{"validation.MaxListeners", validation.MaxListeners, "docs/policy.md", `a count error of more than ` + num + ` listeners`},
	{"validation.MaxAddedNames", validation.MaxAddedNames, "docs/rules.md", `at most ` + num + `\s+names per option`},
	{"validation.MaxAddedNameLen", validation.MaxAddedNameLen, "docs/rules.md", `each 1-` + num + ` letters, digits`},
	{"findings.MaxErrors", findings.MaxErrors, "docs/rules.md", `the first ` + num + ` errors that fit`},
	{"findings.MaxErrorBytes", findings.MaxErrorBytes, "docs/rules.md", `errors that fit ` + num + ` as the webhook's 422`},
	{"findings.MaxWarningsRunes", findings.MaxWarningsRunes, "docs/rules.md", `warnings within ` + num + ` of the`},
	{"findings.MaxValueRunes", findings.MaxValueRunes, "docs/rules.md", `a value is quoted up to ` + num + ` characters`},
	{"findings.MaxPathBytes", findings.MaxPathBytes, "docs/rules.md", `a field path up to ` + num + ` bytes`},
	{"findings.MaxDetailBytes", findings.MaxDetailBytes, "docs/rules.md", `a detail up to ` + num + `\.`},
	{"policyreport.MaxBytes", policyreport.MaxBytes, "docs/audit.md", `A report's results are capped at ` + num},
	{"validation.MaxListeners", validation.MaxListeners, "docs/audit.md", `bounded by the CRD \(8 conditions,\s+` + num + ` listeners\)`},
	{"inflight.DefaultMaxBytes", inflight.DefaultMaxBytes, "docs/serving.md", "`--max-in-flight-bytes` \\| `" + num + "`"},
	{"inflight.DefaultMaxBytes", inflight.DefaultMaxBytes, "docs/reliability.md", "`webhook.maxInFlightBytes`, default " + num},
	{"inflight.MinMaxBytes", inflight.MinMaxBytes, "docs/serving.md", "at least `" + num + "`"},
	{"inflight.RequestOverhead", inflight.RequestOverhead, "docs/reliability.md", `weighs its Content-Length plus ` + num},
}

// TestStatedLimits: every limit the pages state is the code's. A page
// that says 256 where the constant is 128 fails, naming the page, the
// phrase and the constant; so does a page that no longer has the phrase
// (reword the table with it), and a backquoted name of a limit
// (`MaxSomething`, qualified or not) that the table does not know, so that
// a page cannot name a constant the code does not have.
func TestStatedLimits(t *testing.T) {
	pages := map[string]string{}
	read := func(page string) string {
		if s, ok := pages[page]; ok {
			return s
		}
		b, err := os.ReadFile(filepath.Join(root, page))
		if err != nil {
			t.Fatal(err)
		}
		pages[page] = string(b)
		return pages[page]
	}
	for _, l := range statedLimits {
		re := regexp.MustCompile(l.phrase)
		ms := re.FindAllStringSubmatch(read(l.page), -1)
		if len(ms) == 0 {
			t.Errorf("%s: no phrase /%s/ stating %s (%d); the page was reworded: update statedLimits", l.page, l.phrase, l.name, l.value)
		}
		for _, m := range ms {
			if got, err := pageNumber(m[1]); err != nil || got != l.value {
				t.Errorf("%s: %q states %s as %q, the code's is %d", l.page, m[0], l.name, m[1], l.value)
			}
		}
	}
	known := map[string]bool{}
	for _, l := range statedLimits {
		known[l.name] = true
		known[l.name[strings.Index(l.name, ".")+1:]] = true
	}
	named := regexp.MustCompile("`((?:[a-z]+\\.)?Max[A-Z]\\w*)`")
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range slices.Concat([]string{filepath.Join(root, "README.md")}, docs) {
		page, _ := filepath.Rel(root, path)
		for _, m := range named.FindAllStringSubmatch(read(page), -1) {
			if !known[m[1]] {
				t.Errorf("%s names %s, which statedLimits does not know: add the constant and the phrase that states it", page, m[1])
			}
		}
	}
}

// pageNumber reads a number as the pages write it: "3 072", "40 KiB", a
// quantity ("24Mi").
func pageNumber(s string) (int, error) {
	mult := 1
	for suffix, m := range map[string]int{" KiB": 1 << 10, " MiB": 1 << 20, "Ki": 1 << 10, "Mi": 1 << 20} {
		if rest, ok := strings.CutSuffix(s, suffix); ok {
			mult, s = m, rest
			break
		}
	}
	n, err := strconv.Atoi(strings.ReplaceAll(strings.TrimSpace(s), " ", ""))
	return n * mult, err
}
