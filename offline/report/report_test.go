package report

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/airlock/listenerset-webhook/offline/read"
)

func TestGitHubEscaping(t *testing.T) {
	assert.Equal(t, "100%25 done%0D%0Anext: a, b", escapeData("100% done\r\nnext: a, b"))
	assert.Equal(t, "C%3A\\x%2Cy%25%0A", escapeProperty("C:\\x,y%\n"))
}

func TestTemplate(t *testing.T) {
	assert.Equal(t, "spec.listeners[*].tls.options[*]", template("spec.listeners[2].tls.options[example.com/x]"))
	assert.Equal(t, "metadata.name", template("metadata.name"))
}

// TestWarningKindsHaveHelp: every validation.WarningKind has a rule text of
// its own in SARIF output, so a new kind is noticed here rather than getting
// the generic text unseen. The kinds are read from validation's source.
func TestWarningKindsHaveHelp(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "../../validation/warnings.go", nil, 0)
	require.NoError(t, err)
	found := 0
	ast.Inspect(f, func(n ast.Node) bool {
		spec, ok := n.(*ast.ValueSpec)
		if !ok || spec.Type == nil || len(spec.Values) != 1 {
			return true
		}
		if id, ok := spec.Type.(*ast.Ident); !ok || id.Name != "WarningKind" {
			return true
		}
		lit, ok := spec.Values[0].(*ast.BasicLit)
		require.True(t, ok)
		kind, err := strconv.Unquote(lit.Value)
		require.NoError(t, err)
		assert.Contains(t, warningHelp, kind, "no help text for warning kind %s", kind)
		found++
		return true
	})
	assert.Greater(t, found, 5, "the WarningKind constants were found")
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
