package report

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/airlock/listenerset-webhook/findings"
	"github.com/airlock/listenerset-webhook/offline/judge"
	"github.com/airlock/listenerset-webhook/offline/read"
	"github.com/airlock/listenerset-webhook/validation"
)

func TestGitHubEscaping(t *testing.T) {
	assert.Equal(t, "100%25 done%0D%0Anext: a, b", escapeData("100% done\r\nnext: a, b"))
	assert.Equal(t, "C%3A\\x%2Cy%25%0A", escapeProperty("C:\\x,y%\n"))
}

// TestCatalogCodes: the codes a report can carry are listed once each;
// every warning kind of validation (read from its source, so that a new
// kind is noticed here) and of the offline commands has its code, but for
// the kinds that stand for an error and carry its code.
func TestCatalogCodes(t *testing.T) {
	codes := map[findings.Code]bool{}
	for _, d := range Catalog() {
		assert.False(t, codes[d.Code], "%s is listed twice", d.Code)
		codes[d.Code] = true
		assert.Equal(t, ruleOf(string(d.Code)).HelpURI, d.Code.HelpURI())
	}
	wrappers := []findings.WarningKind{validation.KindRatcheted, validation.KindWouldDeny, validation.KindClusterFinding}
	found := 0
	// every WarningKind constant of the rules and of findings, wherever a
	// room defines it
	var files []string
	for _, dir := range []string{filepath.Join("..", "..", "validation"), filepath.Join("..", "..", "findings")} {
		require.NoError(t, filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, "_test.go") && !strings.Contains(path, "validationtest") {
				files = append(files, path)
			}
			return err
		}))
	}
	for _, file := range files {
		f, err := parser.ParseFile(token.NewFileSet(), file, nil, 0)
		require.NoError(t, err)
		ast.Inspect(f, func(n ast.Node) bool {
			spec, ok := n.(*ast.ValueSpec)
			if !ok || spec.Type == nil || len(spec.Values) != 1 {
				return true
			}
			if !isWarningKind(spec.Type) {
				return true
			}
			lit, ok := spec.Values[0].(*ast.BasicLit)
			require.True(t, ok)
			kind, err := strconv.Unquote(lit.Value)
			require.NoError(t, err)
			if !slices.Contains(wrappers, findings.WarningKind(kind)) {
				assert.NotEmpty(t, validation.KindCode(findings.WarningKind(kind)), "no code for warning kind %s", kind)
			}
			found++
			return true
		})
	}
	assert.Greater(t, found, 10, "the WarningKind constants were found")
	for _, kind := range []string{judge.KindUnknownField, judge.KindAPIServer, read.KindDuplicateField, read.KindStrictDecoding} {
		assert.True(t, slices.ContainsFunc(judge.Codes, func(d findings.CodeDoc) bool { return string(d.WarningKind) == kind }), "no code for %s", kind)
	}
}

func TestSARIFArtifact(t *testing.T) {
	for _, tt := range []struct{ file, uri, base string }{
		{"manifests/a b.yaml", "manifests/a%20b.yaml", srcRoot},
		{"/repo/manifests/a.yaml", "manifests/a.yaml", srcRoot},
		{"./x/../a.yaml", "a.yaml", srcRoot},
		{"/elsewhere/a.yaml", "file:///elsewhere/a.yaml", ""},
		{"../a.yaml", "file:///a.yaml", ""},
		{read.StdinName, "STDIN", srcRoot},
	} {
		a := artifact(tt.file, "/repo")
		require.NotNil(t, a.URI, tt.file)
		assert.Equal(t, tt.uri, *a.URI, tt.file)
		if tt.base == "" {
			assert.Nil(t, a.URIBaseId, tt.file)
		} else {
			require.NotNil(t, a.URIBaseId, tt.file)
			assert.Equal(t, tt.base, *a.URIBaseId, tt.file)
		}
	}
	assert.Equal(t, "file:///repo/", dirURI("/repo"))
}

// isWarningKind: t is findings.WarningKind, as validation names it, or
// WarningKind, as findings does.
func isWarningKind(t ast.Expr) bool {
	switch t := t.(type) {
	case *ast.Ident:
		return t.Name == "WarningKind"
	case *ast.SelectorExpr:
		pkg, ok := t.X.(*ast.Ident)
		return ok && pkg.Name == "findings" && t.Sel.Name == "WarningKind"
	}
	return false
}
