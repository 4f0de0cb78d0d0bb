package offline_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/airlock/listenerset-webhook/validation"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/airlock/listenerset-webhook/offline"
	"github.com/airlock/listenerset-webhook/offline/read"
	"github.com/airlock/listenerset-webhook/offline/report"
	"github.com/airlock/listenerset-webhook/validation/validationtest"
)

// maxTextReport is the most validate's text output may hold for one object.
const maxTextReport = 256 << 10

// The worst objects, of counts and of text, give a text report of at most
// maxTextReport bytes, valid UTF-8 in which no byte a terminal interprets
// (a control character other than the line ends it writes) comes from the
// object.
func TestWorstTextReportsAreBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("offline verdicts on 3 MB objects")
	}
	for _, s := range append(validationtest.TextShapes, validationtest.WorstShapes...) {
		if s.Update != nil {
			continue // the offline command judges creates
		}
		for _, n := range []int{1, validation.MaxListeners} {
			data, err := json.Marshal(s.Build(n))
			if err != nil {
				t.Fatal(err)
			}
			var stdout, stderr bytes.Buffer
			offline.Validate([]string{read.StdinPath}, offline.Options{Format: report.Text, Stdin: bytes.NewReader(data), Stdout: &stdout, Stderr: &stderr})
			what := fmt.Sprintf("%s at %d listeners", s.Name, n)
			if size := stdout.Len() + stderr.Len(); size > maxTextReport {
				t.Errorf("%s: a text report of %d bytes, more than %d", what, size, maxTextReport)
			}
			for _, out := range [][]byte{stdout.Bytes(), stderr.Bytes()} {
				if !utf8.Valid(out) {
					t.Errorf("%s: the text report is not UTF-8", what)
				}
				for _, r := range string(out) {
					if r != '\n' && (r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0 || r == '\u2028' || r == '\u2029' || r == '\u202e') {
						t.Errorf("%s: the text report holds %U: %.300q", what, r, out)
						break
					}
				}
			}
			t.Logf("%s: %d bytes of JSON, a text report of %d + %d bytes", what, len(data), stdout.Len(), stderr.Len())
		}
	}
}

// What a terminal would interpret in a manifest's text (ESC sequences, C1
// controls, line separators, bidirectional overrides, written with YAML's
// escapes) reaches the text report escaped, as Go's %q writes it, in the
// errors' paths and the warnings alike; the JSON report keeps it as it is.
func TestTextReportEscapesTerminalText(t *testing.T) {
	const key = `\e[31mred\u202e\L\N\x9b\t`
	input := `apiVersion: gateway.networking.k8s.io/v1
kind: ListenerSet
metadata: {name: t, namespace: ns}
spec:
  parentRef: {name: gw}
  listeners:
  - name: web
    protocol: HTTPS
    port: 443
    tls:
      certificateRefs: [{name: c, namespace: other}]
      options: {"` + key + `": "x", "` + key + `.example.com/a": "y"}
`
	var stdout, stderr bytes.Buffer
	offline.Validate([]string{read.StdinPath}, offline.Options{Format: report.Text, Stdin: strings.NewReader(input), Stdout: &stdout, Stderr: &stderr})
	out := stdout.String() + stderr.String()
	assert.Contains(t, out, `options[\x1b[31mred\u202e\u2028\u0085\u009b\t]`, out)
	for _, raw := range []string{"\x1b", "\u202e", "\u2028", "\u0085", "\u009b", "\t"} {
		assert.NotContains(t, out, raw)
	}
	r := checkWith(t, input, offline.Options{})
	require.NotEmpty(t, r.Results)
	require.NotEmpty(t, r.Results[0].Errors)
	assert.Contains(t, r.Results[0].Errors[0].Field, "\x1b[31mred\u202e\u2028\u0085\u009b\t", "lossless in JSON")
}
