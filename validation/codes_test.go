package validation

import (
	"flag"
	"fmt"
	"os"
	"regexp"
	"slices"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/airlock/listenerset-webhook/findings"
	"github.com/airlock/listenerset-webhook/validation/internal/incluster"
	"github.com/airlock/listenerset-webhook/validation/internal/object"
	"github.com/airlock/listenerset-webhook/validation/internal/verdict"
)

// The rule batteries (the tables of this package's tests, examples/, the
// fuzz seeds and the worst objects, codes_battery_test.go) hand every
// verdict to coded and codedWarnings, which fail on a finding without a
// code, or with a code that is not the catalog's for its path or kind, and
// note the codes seen; TestMain then fails when a run of every test saw
// some code of the catalog never (a code no rule gives any more, or a rule
// the batteries never reach).
var seen = struct {
	sync.Mutex
	codes map[findings.Code]bool
}{codes: map[findings.Code]bool{}}

var indexOrKey = regexp.MustCompile(`\[[^\]]*\]`)

// pathPattern is a field path with each index and key written [*].
func pathPattern(path string) string { return indexOrKey.ReplaceAllString(path, "[*]") }

func docOf(c findings.Code) (findings.CodeDoc, bool) {
	i := slices.IndexFunc(allCodes, func(d findings.CodeDoc) bool { return d.Code == c })
	if i < 0 {
		return findings.CodeDoc{}, false
	}
	return allCodes[i], true
}

// codeProblem says what is wrong with a finding's code at path, "" when
// nothing is.
func codeProblem(c findings.Code, path string, kinds ...findings.CodeKind) string {
	if c == "" {
		return "has no code"
	}
	d, ok := docOf(c)
	switch {
	case !ok:
		return fmt.Sprintf("has code %s, which the catalog does not list", c)
	case !slices.Contains(kinds, d.Kind):
		return fmt.Sprintf("has code %s of kind %s, not %v", c, d.Kind, kinds)
	case len(d.Paths) > 0 && !slices.Contains(d.Paths, pathPattern(path)):
		return fmt.Sprintf("has code %s, whose paths are %v, not %s", c, d.Paths, pathPattern(path))
	}
	seen.Lock()
	seen.codes[c] = true
	seen.Unlock()
	return ""
}

// coded checks the codes of errs and returns them without their codes, as
// the tables, written with apimachinery's constructors, expect them (a
// summary keeps its Origin, which makes it one).
func coded(t testing.TB, errs field.ErrorList) field.ErrorList {
	t.Helper()
	if errs == nil {
		return nil
	}
	out := make(field.ErrorList, len(errs))
	for i, e := range errs {
		if p := codeProblem(findings.CodeOf(e), e.Field, findings.CodeKindError, findings.CodeKindCluster, findings.CodeKindSummary); p != "" {
			t.Errorf("error %q %s", e.Error(), p)
		}
		c := *e
		if !findings.IsMoreErrors(e) {
			c.Origin = ""
		}
		out[i] = &c
	}
	return out
}

// codedWarnings checks the codes of ws and returns ws: a warning of a kind
// with its own code has that code; one that stands for an error, an
// error's code.
func codedWarnings(t testing.TB, ws findings.Warnings) findings.Warnings {
	t.Helper()
	for _, w := range ws {
		kinds := []findings.CodeKind{findings.CodeKindError, findings.CodeKindCluster}
		if KindCode(w.Kind) != "" {
			if w.Code != KindCode(w.Kind) {
				t.Errorf("warning %q of kind %s has code %q, not its kind's %s", w.String(), w.Kind, w.Code, KindCode(w.Kind))
			}
			kinds = []findings.CodeKind{findings.CodeKindWarning, findings.CodeKindCluster, findings.CodeKindSummary}
		}
		if p := codeProblem(w.Code, w.Path, kinds...); p != "" {
			t.Errorf("warning %q %s", w.String(), p)
		}
	}
	return ws
}

// TestMain runs the tests, then, when every test ran and passed, checks
// that the batteries gave every code of the catalog.
func TestMain(m *testing.M) {
	flag.Parse()
	code := m.Run()
	if code != 0 || flag.Lookup("test.run").Value.String() != "" || flag.Lookup("test.skip").Value.String() != "" ||
		flag.Lookup("test.fuzz").Value.String() != "" {
		os.Exit(code)
	}
	var missing []findings.Code
	for _, d := range Catalog() {
		if !seen.codes[d.Code] && d.Retired == "" {
			missing = append(missing, d.Code)
		}
	}
	if len(missing) > 0 {
		fmt.Printf("FAIL: no test's verdict gave the codes %v: give each rule's cases a table row, or retire the code (never reuse it)\n", missing)
		os.Exit(1)
	}
	os.Exit(code)
}

// TestCatalog: every code is listed once, in its range, with its texts;
// a warning kind has at most one code.
func TestCatalog(t *testing.T) {
	ranges := map[findings.CodeKind]byte{findings.CodeKindSummary: '0', findings.CodeKindError: '1', findings.CodeKindWarning: '2', findings.CodeKindCluster: '3'}
	codes := map[findings.Code]bool{}
	kinds := map[findings.WarningKind]findings.Code{}
	for _, d := range allCodes {
		assert.Regexp(t, `^LS[0-9]{3}$`, string(d.Code), "%s has a code's form", d.Code)
		assert.False(t, codes[d.Code], "%s is listed twice", d.Code)
		codes[d.Code] = true
		if r, ok := ranges[d.Kind]; assert.True(t, ok, "%s has kind %q", d.Code, d.Kind) {
			assert.Equal(t, string(r), string(d.Code[2]), "%s of kind %s is in the range LS%cxx", d.Code, d.Kind, r)
		}
		assert.NotEmpty(t, d.Title, d.Code)
		assert.NotEmpty(t, d.Cause, d.Code)
		assert.NotEmpty(t, d.Fix, d.Code)
		if d.Kind != findings.CodeKindSummary {
			assert.NotEmpty(t, d.Paths, d.Code)
		}
		if d.WarningKind != "" {
			other, dup := kinds[d.WarningKind]
			assert.False(t, dup, "kind %s has the codes %s and %s", d.WarningKind, other, d.Code)
			kinds[d.WarningKind] = d.Code
		}
		if d.Kind == findings.CodeKindWarning {
			assert.NotEmpty(t, d.WarningKind, "warning code %s names its kind", d.Code)
		}
	}
	for _, k := range []findings.WarningKind{verdict.KindRatcheted, KindWouldDeny, incluster.KindClusterFinding} {
		assert.Empty(t, KindCode(k), "%s carries its error's code", k)
	}
	require.Equal(t, "https://github.com/airlock/listenerset-webhook/blob/main/docs/codes.md#ls104", object.CodeDuplicateListenerName.HelpURI())
}

func TestCodeOf(t *testing.T) {
	assert.Equal(t, object.CodePort, findings.CodeOf(object.CodePort.Err(field.Invalid(field.NewPath("spec"), 0, ""))))
	assert.Empty(t, findings.CodeOf(field.Invalid(field.NewPath("spec"), 0, "").WithOrigin("format=dns-label")),
		"apimachinery's origins are no codes")
}

// TestCodesLeaveTheTextsAlone: a code is no part of what kubectl prints.
func TestCodesLeaveTheTextsAlone(t *testing.T) {
	e := field.Duplicate(field.NewPath("spec", "listeners").Index(1).Child("name"), "web")
	assert.Equal(t, e.Error(), object.CodeDuplicateListenerName.Err(field.Duplicate(field.NewPath("spec", "listeners").Index(1).Child("name"), "web")).Error())
}
