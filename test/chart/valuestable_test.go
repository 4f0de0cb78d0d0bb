package chart

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	yaml "go.yaml.in/yaml/v3"

	"github.com/airlock/listenerset-webhook/test/golden"
)

// The value table of docs/chart.md sits between these two lines.
const (
	chartDoc         = "docs/chart.md"
	valuesTableStart = "<!-- The table below is generated from the comments of charts/listenerset-webhook/values.yaml by `make generate`: edit those. -->"
	valuesTableEnd   = "<!-- End of the generated table. -->"
)

// valueRow is one row of the table: a value, its default as YAML flow, and
// its comment.
type valueRow struct{ key, def, doc string }

// TestValuesTableIsGenerated: docs/chart.md's value table is values.yaml's
// `# --` comments, one row per commented value, with its default; a value
// with no comment of its own or above it fails (no value goes missing from
// the table). `make generate` (this test with -update) rewrites it.
func TestValuesTableIsGenerated(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(root, chartPath, "values.yaml"))
	require.NoError(t, err)
	var doc yaml.Node
	require.NoError(t, yaml.Unmarshal(data, &doc))
	require.Len(t, doc.Content, 1)
	var rows []valueRow
	var undocumented []string
	valueRows(doc.Content[0], "", false, &rows, &undocumented)
	require.Empty(t, undocumented, "values.yaml: values without a `# --` comment of their own or above them")

	var table strings.Builder
	table.WriteString("| value | default | meaning |\n|---|---|---|\n")
	for _, r := range rows {
		fmt.Fprintf(&table, "| `%s` | %s | %s |\n", r.key, r.def, cell(r.doc))
	}

	path := filepath.Join(root, chartDoc)
	page, err := os.ReadFile(path)
	require.NoError(t, err)
	before, rest, ok := bytes.Cut(page, []byte(valuesTableStart+"\n"))
	require.True(t, ok, "%s has no line %q", chartDoc, valuesTableStart)
	_, after, ok := bytes.Cut(rest, []byte(valuesTableEnd))
	require.True(t, ok, "%s has no line %q", chartDoc, valuesTableEnd)
	want := append(append(append(append([]byte{}, before...), valuesTableStart+"\n\n"...), table.String()+"\n"...), append([]byte(valuesTableEnd), after...)...)
	golden.Generated(t, path, want, *update, "`make generate` (go test ./test/chart -run TestValuesTableIsGenerated -update)")
}

// valueRows walks a mapping of values.yaml: a key with a `# --` comment is a
// row (and its own documented keys rows too); a key without one is covered
// when a key above it has one, else it is listed as undocumented.
func valueRows(m *yaml.Node, prefix string, covered bool, rows *[]valueRow, undocumented *[]string) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		key := prefix + k.Value
		text := valueComment(k.HeadComment)
		if text != "" {
			*rows = append(*rows, valueRow{key: key, def: flowDefault(v), doc: text})
		}
		if v.Kind == yaml.MappingNode && len(v.Content) > 0 {
			valueRows(v, key+".", covered || text != "", rows, undocumented)
		} else if text == "" && !covered {
			*undocumented = append(*undocumented, key)
		}
	}
}

// valueComment is the text of the last `# --` block of a head comment, or "".
func valueComment(head string) string {
	lines := strings.Split(head, "\n")
	start := -1
	for i, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), "# --") {
			start = i
		}
	}
	if start < 0 {
		return ""
	}
	var words []string
	for i, l := range lines[start:] {
		l = strings.TrimPrefix(strings.TrimSpace(l), "#")
		if i == 0 {
			l = strings.TrimPrefix(strings.TrimSpace(l), "--")
		}
		if strings.TrimSpace(l) == "" && i > 0 {
			break // a blank comment line ends the block
		}
		words = append(words, strings.Fields(l)...)
	}
	return strings.Join(words, " ")
}

// flowDefault is a value's default as a code span of JSON (YAML's flow form).
func flowDefault(v *yaml.Node) string {
	var x any
	if err := v.Decode(&x); err != nil {
		return "`?`"
	}
	b, err := json.Marshal(x)
	if err != nil {
		return "`?`"
	}
	return "`" + strings.ReplaceAll(string(b), "|", `\|`) + "`"
}

// cell escapes a table cell's pipes.
func cell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
