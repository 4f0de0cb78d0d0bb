package offline_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
	"sigs.k8s.io/yaml"

	"github.com/airlock/listenerset-webhook/offline"
	"github.com/airlock/listenerset-webhook/webhook/admission"
)

// check runs Validate on stdin and returns the JSON report.
func check(t *testing.T, input string) offline.Report {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := offline.Validate([]string{offline.StdinPath}, offline.Options{
		Format: offline.JSON, Stdin: strings.NewReader(input), Stdout: &stdout, Stderr: &stderr,
	})
	var r offline.Report
	require.NoError(t, json.Unmarshal(stdout.Bytes(), &r), stdout.String())
	assert.Equal(t, code, r.Summary.ExitCode)
	assert.Empty(t, stderr.String())
	return r
}

const ls = `apiVersion: gateway.networking.k8s.io/v1
kind: ListenerSet
metadata: {name: %s, namespace: ns}
spec:
  parentRef: {name: gw}
  listeners:
  - {name: web, protocol: HTTP, port: 8080}
`

func named(name string) string { return strings.ReplaceAll(ls, "%s", name) }

func TestDocumentNumbering(t *testing.T) {
	// Separators at the start and twice in a row make no document; a
	// document of only comments is one (it counts, but is skipped silently).
	input := "---\n" + named("a") + "--- # a comment on the separator\n# only a comment\n---\n---\n" + named("b")
	r := check(t, input)
	require.Len(t, r.Results, 2)
	assert.Equal(t, 1, r.Results[0].Document)
	assert.Equal(t, 3, r.Results[1].Document)
	assert.Empty(t, r.Skipped)
	assert.Equal(t, offline.ExitValid, r.Summary.ExitCode)
}

func TestJSONStreamDuplicateFields(t *testing.T) {
	input := `{"apiVersion":"gateway.networking.k8s.io/v1","kind":"ListenerSet","metadata":{"name":"a"},
	  "spec":{"parentRef":{"name":"gw"},"listeners":[{"name":"web","protocol":"HTTP","port":80,"port":8080}]}}
	{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"ns"}}`
	r := check(t, input)
	require.Len(t, r.Results, 1)
	require.Len(t, r.Results[0].Warnings, 1)
	w := r.Results[0].Warnings[0]
	assert.Equal(t, `duplicate field "spec.listeners[0].port"`, w.Message)
	assert.Equal(t, offline.KindDuplicateField, w.Kind)
	// At the second "port" (the one decoding keeps), by a token scan of the JSON.
	assert.Equal(t, [2]int{2, 93}, [2]int{w.Line, w.Column})
	require.Len(t, r.Skipped, 1)
	assert.Equal(t, 2, r.Skipped[0].Document)
}

func TestYAMLFlowMappingIsNotMistakenForJSON(t *testing.T) {
	r := check(t, `{apiVersion: gateway.networking.k8s.io/v1, kind: ListenerSet, metadata: {name: flow},
  spec: {parentRef: {name: gw}, listeners: [{name: web, protocol: HTTP, port: 8080}]}}`)
	require.Len(t, r.Results, 1)
	assert.True(t, r.Results[0].Valid)
	assert.Empty(t, r.InputErrors)
}

func TestBrokenJSONStream(t *testing.T) {
	r := check(t, `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"ns"}} {"apiVersion": `)
	require.Len(t, r.InputErrors, 1)
	assert.Equal(t, 2, r.InputErrors[0].Document)
	assert.Equal(t, offline.ExitInputError, r.Summary.ExitCode)
}

func TestNotAnObject(t *testing.T) {
	r := check(t, "- a\n- b\n---\njust a string\n")
	require.Len(t, r.Skipped, 2)
	assert.Equal(t, offline.ExitValid, r.Summary.ExitCode)
}

func TestTextSkipNotes(t *testing.T) {
	var stdout, stderr bytes.Buffer
	input := "apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: Service}\n---\nkind: Gateway\napiVersion: gateway.networking.k8s.io/v1\n"
	code := offline.Validate([]string{"-"}, offline.Options{Stdin: strings.NewReader(input), Stdout: &stdout, Stderr: &stderr})
	assert.Equal(t, offline.ExitValid, code)
	assert.Empty(t, stdout.String())
	assert.Equal(t, `skipped Service (v1) in STDIN document 1 item 1: not a ListenerSet
skipped Gateway (gateway.networking.k8s.io/v1) in STDIN document 2: not a ListenerSet; used for the cluster-aware checks
no ListenerSet found
`, stderr.String())
}

// TestSameVerdictAsTheWebhook: the offline command and the webhook's
// Validator must agree on every example and test input, error for error.
func TestSameVerdictAsTheWebhook(t *testing.T) {
	var files []string
	for _, dir := range []string{"../examples", "../cmd/listenerset-webhook/testdata/input"} {
		require.NoError(t, filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(path, ".yaml") && !strings.Contains(path, "/.hidden/") {
				files = append(files, path)
			}
			return err
		}))
	}
	checked := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		for doc := range strings.SplitSeq(string(data), "\n---\n") {
			var obj gwv1.ListenerSet
			if yaml.Unmarshal([]byte(doc), &obj) != nil || obj.Kind != "ListenerSet" || obj.APIVersion != "gateway.networking.k8s.io/v1" {
				continue
			}
			t.Run(f+"/"+obj.Name, func(t *testing.T) {
				r := check(t, doc)
				require.Len(t, r.Results, 1)
				got := r.Results[0]

				warnings, err := admission.Validator{}.ValidateCreate(t.Context(), &obj)

				var want []string
				if err != nil {
					var status *apierrors.StatusError
					require.ErrorAs(t, err, &status)
					for _, c := range status.ErrStatus.Details.Causes {
						want = append(want, c.Field+": "+c.Message)
					}
				}
				var gotErrs []string
				for _, e := range got.Errors {
					gotErrs = append(gotErrs, e.Message)
				}
				assert.Equal(t, want, gotErrs)
				assert.Equal(t, err == nil, got.Valid)
				var gotWarnings []string
				for _, w := range got.Warnings {
					gotWarnings = append(gotWarnings, w.Message)
				}
				for _, w := range warnings {
					assert.Contains(t, gotWarnings, w)
				}
			})
			checked++
		}
	}
	assert.Greater(t, checked, 10, "the examples were found")
}
