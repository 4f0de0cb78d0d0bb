package findings

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

func TestErrorReportShowsAllThatFits(t *testing.T) {
	var r ErrorReport
	errs := field.ErrorList{field.Required(spec.Child("a"), ""), field.Invalid(spec.Child("b"), "x", "bad")}
	r.Add(errs...)
	assert.Equal(t, errs, r.List())
	assert.Equal(t, 2, r.Total())
}

func TestErrorReportCountsWhatItDoesNotShow(t *testing.T) {
	var r ErrorReport
	const n = 1000
	for i := range n {
		r.Add(field.Invalid(listeners.Index(i%64).Child("port"), i, "bad"))
	}
	list := r.List()
	require.Len(t, list, MaxErrors+1, "MaxErrors shown, then the summary")
	assert.Equal(t, n, r.Total())
	more := list[MaxErrors]
	assert.True(t, IsMoreErrors(more))
	assert.Equal(t, "spec.listeners: Too many: 936: errors not shown (1000 in all)", more.Error())
	for _, e := range list[:MaxErrors] {
		assert.False(t, IsMoreErrors(e))
	}
}

func TestErrorReportByteBudget(t *testing.T) {
	var r ErrorReport
	// every value as long as is shown, of characters JSON writes in six bytes
	value := strings.Repeat("<", 1000)
	for i := range 50 {
		r.Add(field.Invalid(listeners.Index(i).Child("name"), value, "bad"))
	}
	list := r.List()
	require.Less(t, len(list), 50, "the byte budget shows fewer than MaxErrors")
	n := 0
	for _, e := range list[:len(list)-1] {
		n += JSONLen(e.Error())
		assert.Contains(t, e.Error(), "... (1000 bytes)", "a long value is cut")
	}
	assert.LessOrEqual(t, n, MaxErrorBytes)
	assert.Equal(t, 50, r.Total())
}

func TestErrorReportKeepsRulesCounts(t *testing.T) {
	// a rule that counted what it did not build (the selector's), and
	// another report's errors, are counted as the errors they stand for
	var inner ErrorReport
	for i := range MaxErrors + 10 {
		inner.Add(field.Required(listeners.Index(1).Child("name"), fmt.Sprint(i)))
	}
	var r ErrorReport
	r.Add(field.Required(listeners.Index(0).Child("port"), ""))
	r.Add(moreErrors(listeners.Index(0).Child("allowedRoutes").String(), 500))
	r.AddReport(&inner, nil)
	assert.Equal(t, 1+500+MaxErrors+10, r.Total())
	list := r.List()
	last := list[len(list)-1]
	assert.Equal(t, fmt.Sprintf("spec.listeners: Too many: %d: errors not shown (%d in all)", 500+1+10, r.Total()), last.Error())
	// a list with a summary, added again, keeps its count
	var again ErrorReport
	again.Add(list...)
	assert.Equal(t, r.Total(), again.Total())
	assert.Equal(t, list, again.List())
}

func TestWarningReportFitsKubeAPIServersBudget(t *testing.T) {
	var r WarningReport
	for i := range 500 {
		r.Add(Warning{Path: listeners.Index(i).Child("tls").String(), Kind: WarningKind("ForeignOption"), Message: strings.Repeat("é", 300)})
	}
	list := r.List()
	runes := 0
	for _, w := range list {
		n := utf8.RuneCountInString(w.String())
		assert.LessOrEqual(t, n, MaxWarningRunes, "kube-apiserver would cut %q", w)
		runes += n
	}
	assert.LessOrEqual(t, runes, MaxWarningsRunes)
	last := list[len(list)-1]
	assert.Equal(t, KindMoreWarnings, last.Kind)
	assert.Equal(t, fmt.Sprintf("spec: and %d more warnings not shown (500 in all)", 500-(len(list)-1)), last.String())
	assert.Equal(t, 500, r.Total())
}

func TestCutValue(t *testing.T) {
	assert.Equal(t, "short", CutValue("short"))
	exact := strings.Repeat("a", MaxValueRunes)
	assert.Equal(t, exact, CutValue(exact))
	long := strings.Repeat("é", 1000) // two bytes a rune
	cut := CutValue(long)
	assert.Equal(t, MaxValueRunes, utf8.RuneCountInString(cut))
	assert.True(t, utf8.ValidString(cut), "cut at a rune boundary")
	assert.Equal(t, strings.Repeat("é", 200), CutValue(strings.Repeat("é", 200)), "256 characters are not cut, whatever their bytes")
	assert.True(t, strings.HasSuffix(cut, "... (2000 bytes)"))
	assert.Equal(t, cut, CutValue(cut), "a cut value is not cut again")
}

func TestCommonParent(t *testing.T) {
	for _, tc := range []struct{ a, b, want string }{
		{"spec.listeners[3].tls", "spec.listeners[4].name", "spec.listeners"},
		{"spec.listeners[3].tls", "spec.listeners[3].tls", "spec.listeners[3].tls"},
		{"spec.listeners[3]", "spec.listeners[3].tls.options", "spec.listeners[3]"},
		{"spec.listeners[1]", "spec.listeners[12]", "spec.listeners"},
		{"spec.listeners[0].tls.options[a.b/c]", "spec.listeners[0].tls.options[a.b/d]", "spec.listeners[0].tls.options"},
		{"spec.parentRef", "spec.listeners", "spec"},
		{"metadata.name", "spec.listeners", ""},
	} {
		assert.Equal(t, tc.want, commonParent(tc.a, tc.b), "%s, %s", tc.a, tc.b)
		assert.Equal(t, tc.want, commonParent(tc.b, tc.a), "%s, %s", tc.b, tc.a)
	}
}

// A path longer than its share (a map key the CRD does not bound) is cut
// with a tail that says so, and the error is shown: neither the message nor
// the field carries the whole key, and the report still names the problem.
func TestErrorReportCutsLongPaths(t *testing.T) {
	key := strings.Repeat("k", 1<<20)
	var r ErrorReport
	r.Add(field.Invalid(listeners.Index(0).Child("tls", "options").Key(key), key, "reserved"))
	list := r.List()
	require.Len(t, list, 1, "shown, not only counted")
	e := list[0]
	assert.True(t, strings.HasSuffix(e.Field, fmt.Sprintf(CutPathSuffix, len("spec.listeners[0].tls.options[")+len(key)+1)), e.Field)
	assert.LessOrEqual(t, JSONLen(e.Field), MaxPathBytes)
	assert.LessOrEqual(t, responseLen(e), MaxErrorBytes)
	assert.Contains(t, e.Error(), fmt.Sprintf(CutSuffix, len(key)), "the value is cut too")

	// past the budget, the summary's path is cut as well
	var full ErrorReport
	for i := range MaxErrors {
		full.Add(field.Invalid(listeners.Index(i).Child("port"), 0, "bad"))
	}
	full.Add(field.Invalid(listeners.Index(1).Child("tls", "options").Key(key), key, "reserved"))
	more := full.List()[MaxErrors]
	require.True(t, IsMoreErrors(more))
	assert.LessOrEqual(t, JSONLen(more.Field), MaxPathBytes)
}

// A warning's path and message are escaped, so that kube-apiserver keeps
// it, and cut within MaxWarningRunes without cutting an escape.
func TestWarningReportEscapes(t *testing.T) {
	var r WarningReport
	key := "a\tb\x1b[31m\u0085" + strings.Repeat("\u2028", 500)
	r.Add(Warning{Path: "spec.listeners[0].tls.options[" + key + "]", Kind: WarningKind("Ratcheted"), Message: "x: " + key})
	w := r.List()[0]
	assert.True(t, strings.HasPrefix(w.Path, `spec.listeners[0].tls.options[a\tb\x1b[31m\u0085\u2028`), w.Path)
	assert.True(t, strings.HasSuffix(w.Path, fmt.Sprintf(CutPathSuffix, len("spec.listeners[0].tls.options[")+len(key)+1)), w.Path)
	assert.True(t, strings.HasSuffix(w.Message, fmt.Sprintf(CutSuffix, len(key)+3)), w.Message)
	assert.LessOrEqual(t, utf8.RuneCountInString(w.String()), MaxWarningRunes)
	assert.NotContains(t, w.String(), "\u2028")
}

// spec and listeners are the paths the tests' errors are under.
var (
	spec      = field.NewPath("spec")
	listeners = spec.Child("listeners")
)

// A summary carries the summaries' code.
func TestMoreErrorsCode(t *testing.T) {
	assert.Equal(t, CodeMoreErrors, CodeOf(moreErrors("spec", 3)))
}
