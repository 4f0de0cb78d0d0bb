package read

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func stdin(t *testing.T, data string) *Input {
	t.Helper()
	return Paths([]string{StdinPath}, strings.NewReader(data))
}

// TestStatedLine: the YAML converter's message names the line of a syntax
// error, counted in the file (the document is parsed where it stands), and
// statedLine reads it. It fails when go.yaml.in's wording changes.
func TestStatedLine(t *testing.T) {
	in := stdin(t, "a: 1\n---\n# two\nb: [\n")
	require.Len(t, in.Entries, 2)
	e := in.Entries[1].Error
	require.NotNil(t, e)
	assert.Equal(t, InputError{File: StdinName, Document: 2, Line: 4,
		Message: "yaml: line 4: did not find expected node content"}, *e)
	assert.Equal(t, 0, statedLine("no place"))
}

// TestDuplicateKeys: a key given twice is a warning at the later key, from
// the node tree; the object keeps the last value.
func TestDuplicateKeys(t *testing.T) {
	in := stdin(t, "---\nkind: A\nmetadata:\n  name: x\n  name: z\nspec: {a: 1, a: 2}\nkind: B\n")
	require.Len(t, in.Entries, 1)
	o := in.Entries[0].Object
	assert.Equal(t, "B", o.Kind)
	assert.Equal(t, "z", o.Name)
	assert.Equal(t, []Warning{
		{Kind: KindDuplicateField, Message: `line 5: duplicate field "name"`, Line: 5, Column: 3},
		{Kind: KindDuplicateField, Message: `line 6: duplicate field "a"`, Line: 6, Column: 14},
		{Kind: KindDuplicateField, Message: `line 7: duplicate field "kind"`, Line: 7, Column: 1},
	}, o.Warnings)
}

// TestDuplicateKeysTheTreeDoesNotShow: keys the converter resolves to one
// (1 and 01) are its complaint, at the document.
func TestDuplicateKeysTheTreeDoesNotShow(t *testing.T) {
	in := stdin(t, "kind: A\n---\nkind: B\nlabels:\n  1: a\n  01: b\n")
	require.Len(t, in.Entries, 2)
	w := in.Entries[1].Object.Warnings
	require.Len(t, w, 1)
	assert.Equal(t, KindStrictDecoding, w[0].Kind)
	assert.Equal(t, 3, w[0].Line)
	assert.Contains(t, w[0].Message, "which starts at line 3")
}

// TestSplitYAML: kubectl's separators ("---", then spaces or a comment), no
// document between two of them, lines counted in the file.
func TestSplitYAML(t *testing.T) {
	docs := SplitYAML([]byte("a: 1\n--- # next\n---\nb: 2\n---x: 3\n---  \n# only a comment\n"))
	require.Len(t, docs, 3)
	assert.Equal(t, YAMLDocument{Data: []byte("a: 1\n"), Line: 1}, docs[0])
	assert.Equal(t, YAMLDocument{Data: []byte("b: 2\n---x: 3\n"), Line: 4}, docs[1])
	assert.Equal(t, YAMLDocument{Data: []byte("# only a comment\n"), Line: 7}, docs[2])
}

// TestListItems: a List's items are objects of their own, at their lines.
func TestListItems(t *testing.T) {
	in := stdin(t, "apiVersion: v1\nkind: List\nitems:\n- kind: A\n  apiVersion: v1\n- 3\n")
	require.Len(t, in.Entries, 2)
	assert.Equal(t, Location{File: StdinName, Document: 1, Item: 1, Line: 4}, in.Entries[0].Object.Location)
	assert.Equal(t, "3", string(in.Entries[1].Object.Raw))
	assert.Equal(t, []string{StdinName}, in.Files)
}
