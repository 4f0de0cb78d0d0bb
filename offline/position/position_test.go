package position_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/airlock/listenerset-webhook/offline/position"
)

func TestSplit(t *testing.T) {
	for _, tt := range []struct {
		path string
		want []position.Segment
	}{
		{"", nil},
		{"metadata.name", []position.Segment{{"metadata", -1}, {"name", -1}}},
		{"spec.listeners[2].port", []position.Segment{{"spec", -1}, {"listeners", -1}, {"2", 2}, {"port", -1}}},
		{"spec.listeners[0].tls.options[microgateway.airlock.com/foo]", []position.Segment{
			{"spec", -1}, {"listeners", -1}, {"0", 0}, {"tls", -1}, {"options", -1}, {"microgateway.airlock.com/foo", -1}}},
		// A key with a "]" inside stays whole; one ending the path too.
		{"a[x]y].b", []position.Segment{{"a", -1}, {"x]y", -1}, {"b", -1}}},
		{"a[1][2]", []position.Segment{{"a", -1}, {"1", 1}, {"2", 2}}},
		{"a[-1]", []position.Segment{{"a", -1}, {"-1", -1}}},
	} {
		assert.Equal(t, tt.want, position.Split(tt.path), tt.path)
	}
}

// doc is a ListenerSet as people write it. It starts on line 5 of its file
// (after another document), so every line below is its line in the file + 4.
const doc = `apiVersion: gateway.networking.k8s.io/v1
kind: ListenerSet
metadata:
  namespace: team-a
spec:
  parentRef: {name: gw}
  listeners:
  - name: web
    port: 80
  - name: tls
    protocol: HTTPS
    tls:
      options:
        microgateway.airlock.com/foo: "x"
        "8": eight
  - {name: flow, port: 8443}
`

func TestFindYAML(t *testing.T) {
	root, err := position.ParseYAML([]byte(doc), 5)
	require.NoError(t, err)
	for _, tt := range []struct {
		path  string
		want  position.Pos
		exact bool
	}{
		{"spec.listeners[0].port", position.Pos{Line: 13, Column: 5}, true},
		{"spec.listeners[1]", position.Pos{Line: 14, Column: 5}, true},
		{"spec.listeners[1].tls.options[microgateway.airlock.com/foo]", position.Pos{Line: 18, Column: 9}, true},
		{"spec.listeners[1].tls.options[8]", position.Pos{Line: 19, Column: 9}, true},
		{"spec.listeners[2].port", position.Pos{Line: 20, Column: 18}, true},
		{"spec.parentRef.name", position.Pos{Line: 10, Column: 15}, true},
		// Missing fields point at their nearest existing parent.
		{"metadata.name", position.Pos{Line: 7, Column: 1}, false},
		{"spec.parentRef.sectionName", position.Pos{Line: 10, Column: 3}, false},
		{"spec.listeners[7].port", position.Pos{Line: 11, Column: 3}, false},
		{"spec.listeners[1].hostname", position.Pos{Line: 14, Column: 5}, false},
		// Nothing of the path: the document itself.
		{"status.conditions", position.Pos{Line: 5, Column: 1}, false},
		{"", position.Pos{Line: 5, Column: 1}, true},
		// An index into a mapping, a key into a sequence: not found.
		{"spec[0]", position.Pos{Line: 9, Column: 1}, false},
		{"spec.listeners.name", position.Pos{Line: 11, Column: 3}, false},
	} {
		got, exact := root.Find(tt.path)
		assert.Equal(t, tt.want, got, tt.path)
		assert.Equal(t, tt.exact, exact, tt.path)
	}
}

func TestFindYAMLAliasesAndDuplicates(t *testing.T) {
	root, err := position.ParseYAML([]byte("base: &b\n  port: 1\nuse: *b\nx: 1\nx: 2\n"), 1)
	require.NoError(t, err)
	got, exact := root.Find("use.port")
	assert.True(t, exact)
	assert.Equal(t, position.Pos{Line: 2, Column: 3}, got, "through the alias, at the anchor's field")
	got, _ = root.Find("x")
	assert.Equal(t, position.Pos{Line: 5, Column: 1}, got, "the last duplicate, the one decoding keeps")
}

func TestParseYAMLEmptyAndBroken(t *testing.T) {
	root, err := position.ParseYAML([]byte("# only a comment\n"), 3)
	require.NoError(t, err)
	got, _ := root.Find("metadata.name")
	assert.Equal(t, position.Pos{Line: 3, Column: 1}, got)
	_, err = position.ParseYAML([]byte("a: [\n"), 1)
	assert.Error(t, err)
}

// The JSON stream has a value before the one looked at, tabs, a non-ASCII
// string (columns count characters, not bytes) and escapes in a key.
const stream = `{"kind": "Namespace"}
{"apiVersion": "gateway.networking.k8s.io/v1",
	"metadata": {"name": "ä", "labels": {"a\u002fb": "x"}},
	"spec": {"listeners": [
		{"name": "web", "port": 80},
		{"name": "tls", "port": 8443}]}}
`

func TestFindJSON(t *testing.T) {
	start := len(`{"kind": "Namespace"}` + "\n")
	root := position.ParseJSON([]byte(stream), start, nil)
	require.NotNil(t, root)
	for _, tt := range []struct {
		path  string
		want  position.Pos
		exact bool
	}{
		{"", position.Pos{Line: 2, Column: 1}, true},
		{"metadata.name", position.Pos{Line: 3, Column: 15}, true},
		{"metadata.labels[a/b]", position.Pos{Line: 3, Column: 39}, true},
		{"spec.listeners[1].port", position.Pos{Line: 6, Column: 19}, true},
		{"spec.listeners[0]", position.Pos{Line: 5, Column: 3}, true},
		{"spec.listeners[0].hostname", position.Pos{Line: 5, Column: 3}, false},
		{"spec.parentRef", position.Pos{Line: 4, Column: 2}, false},
	} {
		got, exact := root.Find(tt.path)
		assert.Equal(t, tt.want, got, tt.path)
		assert.Equal(t, tt.exact, exact, tt.path)
	}
}

func TestParseJSONTruncated(t *testing.T) {
	root := position.ParseJSON([]byte(`{"a": {"b": [1, `), 0, nil)
	require.NotNil(t, root)
	got, exact := root.Find("a.b[1]")
	assert.False(t, exact)
	assert.Equal(t, position.Pos{Line: 1, Column: 8}, got)
	assert.Nil(t, position.ParseJSON([]byte("   "), 0, nil))
}

func TestLines(t *testing.T) {
	l := position.NewLines([]byte("ab\nçd\n\nx"))
	for off, want := range map[int]position.Pos{
		0: {Line: 1, Column: 1}, 2: {Line: 1, Column: 3}, 3: {Line: 2, Column: 1},
		5: {Line: 2, Column: 2}, 7: {Line: 3, Column: 1}, 8: {Line: 4, Column: 1}, 99: {Line: 4, Column: 2},
	} {
		assert.Equal(t, want, l.At(off), "offset %d", off)
	}
}

// TestLinesLongLines: the marks that make At cheap on long lines give the
// same places as counting from the line's start, at every offset, also
// inside a multi-byte character and on invalid UTF-8.
func TestLinesLongLines(t *testing.T) {
	var b strings.Builder
	for i := range 5000 {
		b.WriteString([]string{"a", "ä", "€", "😀", "\xff", "bc", "\xe2\x82"}[i*7%13%7])
		if i%1500 == 1499 {
			b.WriteString("\n\n")
		}
	}
	data := []byte(b.String())
	l := position.NewLines(data)
	line, start := 1, 0
	for off := 0; off <= len(data); off++ {
		want := position.Pos{Line: line, Column: utf8.RuneCount(data[start:off]) + 1}
		require.Equal(t, want, l.At(off), "offset %d", off)
		if off < len(data) && data[off] == '\n' {
			line, start = line+1, off+1
		}
	}
}

func TestKeyOnLine(t *testing.T) {
	root, err := position.ParseYAML([]byte(doc), 5)
	require.NoError(t, err)
	got, ok := root.KeyOnLine(15, "protocol")
	assert.True(t, ok)
	assert.Equal(t, position.Pos{Line: 15, Column: 5}, got)
	_, ok = root.KeyOnLine(14, "protocol")
	assert.False(t, ok)
}

// TestYAMLDocumentLine: a document's line, read without its tree where a
// scan can tell, is its tree's; the tree is still built on demand.
func TestYAMLDocumentLine(t *testing.T) {
	for _, d := range []string{
		"a: 1\n", "# c\n\n  # d\nkind: x\n", "\n\n  a: 1\n", "{a: 1}\n", "[1]\n", "- a\n", "&x\na: 1\n",
		"&x a: 1\n", "!!map\na: 1\n", "--- {a: 1}\n", "\"a\": 1\n", "'a': 1\n", "? a\n: 1\n", "hello\n",
		"|\n  x\n", "\ufeffa: 1\n", "a:\n  b: 1\n", "-foo: 1\n", "  \r\n# x\r\na: 1\r\n", "_a: 1\n", "9: x\n",
	} {
		doc := position.YAMLDocument([]byte(d), 7)
		tree, err := position.ParseYAML([]byte(d), 7)
		require.NoError(t, err, "%q", d)
		assert.Equal(t, tree.Pos.Line, doc.Line(), "%q", d)
		assert.Equal(t, tree, doc.Tree(), "%q", d)
	}
	// Not a tree: the document's first line.
	for _, d := range []string{"\t\na: 1\n", "...\na: 1\n", "@a: 1\n", "a: [\n"} {
		doc := position.YAMLDocument([]byte(d), 7)
		assert.Nil(t, doc.Tree(), "%q", d)
		if d[0] != 'a' {
			assert.Equal(t, 7, doc.Line(), "%q", d)
		}
	}
	json := []byte(`{"a": 1}` + "\n\n" + `  {"b": [2]}`)
	lines := position.NewLines(json)
	doc := position.JSONValue(json, 12, lines)
	assert.Equal(t, 3, doc.Line())
	assert.Equal(t, position.Pos{Line: 3, Column: 3}, doc.Tree().Pos)
	assert.Equal(t, 5, position.Parsed(&position.Node{Pos: position.Pos{Line: 5}}).Line())
}
