package offline_test

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/airlock/listenerset-webhook/validation"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
	"sigs.k8s.io/yaml"

	"github.com/airlock/listenerset-webhook/findings"
	"github.com/airlock/listenerset-webhook/offline"
	"github.com/airlock/listenerset-webhook/offline/judge"
	"github.com/airlock/listenerset-webhook/offline/position"
	"github.com/airlock/listenerset-webhook/offline/read"
	"github.com/airlock/listenerset-webhook/offline/report"
	"github.com/airlock/listenerset-webhook/test/golden"
	"github.com/airlock/listenerset-webhook/test/testproc"
	"github.com/airlock/listenerset-webhook/webhook/admission"
)

// check runs Validate on stdin and returns the JSON report.
func check(t *testing.T, input string) report.Report {
	t.Helper()
	return checkWith(t, input, offline.Options{})
}

// checkWith is check with options (their streams and format are set here).
func checkWith(t *testing.T, input string, opts offline.Options) report.Report {
	t.Helper()
	var stdout, stderr bytes.Buffer
	opts.Format, opts.Stdin, opts.Stdout, opts.Stderr = report.JSON, strings.NewReader(input), &stdout, &stderr
	code := offline.Validate([]string{read.StdinPath}, opts)
	var r report.Report
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
	assert.Equal(t, report.ExitValid, r.Summary.ExitCode)
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
	assert.Equal(t, read.KindDuplicateField, w.Kind)
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
	assert.Equal(t, report.ExitInputError, r.Summary.ExitCode)
}

func TestNotAnObject(t *testing.T) {
	r := check(t, "- a\n- b\n---\njust a string\n")
	require.Len(t, r.Skipped, 2)
	assert.Equal(t, report.ExitValid, r.Summary.ExitCode)
}

func TestTextSkipNotes(t *testing.T) {
	var stdout, stderr bytes.Buffer
	input := "apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: Service}\n---\nkind: Gateway\napiVersion: gateway.networking.k8s.io/v1\n"
	code := offline.Validate([]string{"-"}, offline.Options{Stdin: strings.NewReader(input), Stdout: &stdout, Stderr: &stderr})
	assert.Equal(t, report.ExitValid, code)
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
	for _, dir := range []string{"../examples", "../cmd/kubectl-listenerset/testdata/input"} {
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
				// Unknown fields never reach the webhook: kube-apiserver's
				// strict field validation rejects them first (or, under
				// --validate=warn, prunes them), so they are warnings here.
				r := checkWith(t, doc, offline.Options{Judge: judge.Options{UnknownFields: judge.UnknownFieldsWarn}})
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

// srcRoot stands for the working directory in SARIF goldens, so that they
// do not depend on where the repository is checked out.
const srcRoot = "/src/listenerset-webhook"

var formatCases = []struct {
	name  string
	paths []string
	exit  int
}{
	{"invalid", []string{"testdata/input/invalid.yaml"}, report.ExitInvalid},
	{"valid-json", []string{"testdata/input/valid.json"}, report.ExitValid},
	{"list", []string{"testdata/input/list.yaml"}, report.ExitInvalid},
	{"unparsable", []string{"testdata/input/broken.yaml", "testdata/input/valid.json"}, report.ExitInputError},
	{"routes", []string{"testdata/input/routes.yaml"}, report.ExitValid},
	{"tenancy", []string{"testdata/input/tenancy.yaml"}, report.ExitInvalid},
	{"class-status", []string{"testdata/input/class-status.yaml"}, report.ExitValid},
}

func runFormat(t *testing.T, format report.Format, paths []string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = offline.Validate(paths, offline.Options{Format: format, Stdout: &out, Stderr: &errOut, WorkDir: srcRoot})
	return code, out.String(), errOut.String()
}

// TestFormatsGolden: every format on every case, exit code, stdout and
// stderr, against testdata/golden/<case>.<format>.golden. Only text writes
// to stderr.
func TestFormatsGolden(t *testing.T) {
	for _, tc := range formatCases {
		for _, format := range report.Formats {
			t.Run(tc.name+"/"+string(format), func(t *testing.T) {
				code, stdout, stderr := runFormat(t, format, tc.paths)
				got := fmt.Sprintf("$ kubectl-listenerset validate -o %s %s\nexit: %d\n--- stdout\n%s--- stderr\n%s",
					format, strings.Join(tc.paths, " "), code, stdout, stderr)
				path := filepath.Join("testdata", "golden", tc.name+"."+string(format)+".golden")
				golden.Assert(t, path, got)
				assert.Equal(t, tc.exit, code, "exit code")
				if format != report.Text {
					assert.Empty(t, stderr, "only text writes to stderr")
				}
				switch format {
				case report.JSON, report.SARIF:
					assert.True(t, json.Valid([]byte(stdout)), "one JSON document")
				case report.JUnit:
					assert.NoError(t, xml.Unmarshal([]byte(stdout), new(struct{})), "well-formed XML")
				case report.JSONLines:
					lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
					for _, l := range lines {
						assert.True(t, json.Valid([]byte(l)), "one JSON object a line: %s", l)
					}
					var last struct{ Type string }
					require.NoError(t, json.Unmarshal([]byte(lines[len(lines)-1]), &last))
					assert.Equal(t, "summary", last.Type, "the last line is the summary")
				}
			})
		}
	}
}

// TestFindingsPointAtTheirField: the line and column of every finding with
// a field that exists in the file are those of the field's key (or of the
// list item, for an index), whatever the format: checked on the JSON report,
// which the other formats are rendered from, against the input's text.
func TestFindingsPointAtTheirField(t *testing.T) {
	checked := 0
	for _, tc := range formatCases {
		_, stdout, _ := runFormat(t, report.JSON, tc.paths)
		var r report.Report
		require.NoError(t, json.Unmarshal([]byte(stdout), &r))
		for _, res := range r.Results {
			data, err := os.ReadFile(res.File)
			require.NoError(t, err)
			lines := strings.Split(string(data), "\n")
			check := func(fieldPath string, line, col int) {
				require.Greater(t, line, 0, fieldPath)
				require.LessOrEqual(t, line, len(lines), fieldPath)
				text := []rune(lines[line-1])
				require.LessOrEqual(t, col, len(text), fieldPath)
				at := string(text[col-1:])
				segs := position.Split(fieldPath)
				last := segs[len(segs)-1]
				if last.Index >= 0 { // a list item: its first key
					assert.Regexp(t, `^"?[a-zA-Z]`, at, "%s at %s:%d:%d", fieldPath, res.File, line, col)
				} else {
					assert.True(t, strings.HasPrefix(strings.TrimLeft(at, `"`), last.Key),
						"%s at %s:%d:%d is %q", fieldPath, res.File, line, col, at)
				}
				checked++
			}
			for _, e := range res.Errors {
				check(e.Field, e.Line, e.Column)
			}
			for _, w := range res.Warnings {
				if w.Field != "" {
					check(w.Field, w.Line, w.Column)
				}
			}
		}
	}
	assert.GreaterOrEqual(t, checked, 6)
}

// TestFindingPositionFallback: a missing field points at its nearest
// existing parent, and a document after "---" keeps the file's lines.
func TestFindingPositionFallback(t *testing.T) {
	input := "# a comment\n---\n" + strings.ReplaceAll(named("x"), "  parentRef: {name: gw}\n", "") // no parentRef
	r := check(t, input)
	require.Len(t, r.Results, 1)
	assert.Equal(t, 3, r.Results[0].Line, "the document starts on line 3 of the file")
	var found bool
	for _, e := range r.Results[0].Errors {
		if e.Field == "spec.parentRef.name" || e.Field == "spec.parentRef" {
			found = true
			assert.Equal(t, [2]int{6, 1}, [2]int{e.Line, e.Column}, "at spec, the nearest parent that exists")
		}
	}
	assert.True(t, found, "an error on the missing parentRef: %+v", r.Results[0].Errors)
}

// TestSARIFMultitoolValidate runs Microsoft's SARIF multitool (npm
// @microsoft/sarif-multitool, pinned in hack/ci-tools.sh, installed into
// the cache of built tools by make ci-tools; skipped when it is not there) on the SARIF of
// every case: no error and no warning of its rules is allowed. It also
// checks what GitHub code scanning needs of an upload: each result has a
// ruleId, and a location relative to %SRCROOT% with a start line.
func TestSARIFMultitoolValidate(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the SARIF multitool")
	}
	tool, missing, err := testproc.CITool("..", "sarif-multitool")
	require.NoError(t, err)
	if missing != "" {
		t.Skip(missing)
	}
	dir := t.TempDir()
	var files []string
	for _, tc := range formatCases {
		_, stdout, _ := runFormat(t, report.SARIF, tc.paths)
		f := filepath.Join(dir, tc.name+".sarif")
		require.NoError(t, os.WriteFile(f, []byte(stdout), 0o644))
		files = append(files, f)

		var log struct {
			Runs []struct {
				OriginalURIBaseIDs map[string]struct{ URI string } `json:"originalUriBaseIds"`
				Results            []struct {
					RuleID    string `json:"ruleId"`
					Level     string `json:"level"`
					Locations []struct {
						PhysicalLocation struct {
							ArtifactLocation struct{ URI, URIBaseID string } `json:"artifactLocation"`
							Region           struct{ StartLine int }         `json:"region"`
						} `json:"physicalLocation"`
					} `json:"locations"`
				} `json:"results"`
			} `json:"runs"`
		}
		require.NoError(t, json.Unmarshal([]byte(stdout), &log))
		require.Len(t, log.Runs, 1)
		assert.Equal(t, "file://"+srcRoot+"/", log.Runs[0].OriginalURIBaseIDs["%SRCROOT%"].URI)
		assert.NotEmpty(t, log.Runs[0].Results, tc.name)
		for _, res := range log.Runs[0].Results {
			assert.NotEmpty(t, res.RuleID)
			assert.Contains(t, []string{"error", "warning"}, res.Level)
			require.Len(t, res.Locations, 1)
			loc := res.Locations[0].PhysicalLocation
			assert.Equal(t, "%SRCROOT%", loc.ArtifactLocation.URIBaseID)
			assert.True(t, strings.HasPrefix(loc.ArtifactLocation.URI, "testdata/input/"), loc.ArtifactLocation.URI)
			assert.Positive(t, loc.Region.StartLine)
		}
	}
	// One run over all files; its own findings go to a SARIF log of its own.
	verdict := filepath.Join(dir, "multitool.sarif")
	cmd := exec.Command(tool, append([]string{"validate", "--output", verdict}, files...)...)
	cmd.Env = append(os.Environ(), "DOTNET_SYSTEM_GLOBALIZATION_INVARIANT=1", "DOTNET_CLI_TELEMETRY_OPTOUT=1")
	start := time.Now()
	console, err := cmd.CombinedOutput()
	t.Logf("sarif-multitool validate on %d files: %s", len(files), time.Since(start).Round(time.Millisecond))
	require.NoError(t, err, "%s", console)
	data, err := os.ReadFile(verdict)
	require.NoError(t, err, "%s", console)
	var findings struct {
		Runs []struct {
			Results []struct {
				RuleID  string `json:"ruleId"`
				Level   string `json:"level"`
				Message struct {
					ID        string   `json:"id"`
					Arguments []string `json:"arguments"`
				} `json:"message"`
			} `json:"results"`
		} `json:"runs"`
	}
	require.NoError(t, json.Unmarshal(data, &findings))
	require.NotEmpty(t, findings.Runs, "the multitool wrote a log")
	for _, run := range findings.Runs {
		for _, r := range run.Results {
			if r.Level == "error" || r.Level == "warning" || r.Level == "" {
				t.Errorf("sarif-multitool %s %s: %s %q", r.Level, r.RuleID, r.Message.ID, r.Message.Arguments)
			}
		}
	}
	// The check can fail: a log without ruleId is an error to the multitool.
	bad := filepath.Join(dir, "bad.sarif")
	require.NoError(t, os.WriteFile(bad, []byte(`{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"x"}},"results":[{"message":{"text":"m"}}]}]}`), 0o644))
	badCmd := exec.Command(tool, "validate", "--output", filepath.Join(dir, "bad-verdict.sarif"), bad)
	badCmd.Env = cmd.Env
	badOut, _ := badCmd.CombinedOutput()
	assert.Contains(t, string(badOut), "error", "the multitool reports a result without ruleId")
}

// TestTextSuffixIsTheReportPosition: every finding of the text output (each
// error, warning and input error) ends in " (at FILE:LINE:COLUMN)", or as much
// of it as the report knows, and that is the file, line and column the JSON
// report (which the CI formats are rendered from) gives the same finding, so
// the text cannot drift from them. The lines are rebuilt here from the JSON
// report alone, kubectl's text before the suffix included, and must be
// exactly the text's lines that carry a position, no more and no fewer.
func TestTextSuffixIsTheReportPosition(t *testing.T) {
	runs := [][]string{{read.StdinPath}}
	for _, tc := range formatCases {
		runs = append(runs, tc.paths)
	}
	cmdInputs, err := filepath.Glob("../cmd/kubectl-listenerset/testdata/input/*")
	require.NoError(t, err)
	for _, p := range cmdInputs {
		runs = append(runs, []string{p})
	}
	runs = append(runs, []string{"testdata/input/missing.yaml"})
	stdin, err := os.ReadFile("../cmd/kubectl-listenerset/testdata/input/multi.yaml")
	require.NoError(t, err)

	at := func(file string, line, col int) string {
		pos := file
		if line > 0 {
			pos += ":" + strconv.Itoa(line)
			if col > 0 {
				pos += ":" + strconv.Itoa(col)
			}
		}
		return " (at " + pos + ")"
	}
	kinds := map[string]int{}
	for _, paths := range runs {
		t.Run(strings.Join(paths, " "), func(t *testing.T) {
			validate := func(format report.Format) (string, string) {
				var stdout, stderr bytes.Buffer
				offline.Validate(paths, offline.Options{Format: format, Stdin: bytes.NewReader(stdin), Stdout: &stdout, Stderr: &stderr})
				return stdout.String(), stderr.String()
			}
			js, _ := validate(report.JSON)
			var r report.Report
			require.NoError(t, json.Unmarshal([]byte(js), &r))
			var want []string
			for _, e := range r.InputErrors {
				doc := ""
				if e.Document > 0 {
					doc = fmt.Sprintf("document %d: ", e.Document)
				}
				want = append(want, "error: "+e.File+": "+doc+e.Message+at(e.File, e.Line, e.Column))
				kinds["input error"]++
			}
			for _, res := range r.Results {
				name := res.Name
				if res.Namespace != "" {
					name = res.Namespace + "/" + name
				}
				for _, w := range res.Warnings {
					want = append(want, "Warning: "+w.Message+at(res.File, w.Line, w.Column))
					kinds["warning"]++
				}
				for _, e := range res.Errors {
					line := "* " + e.Message + at(res.File, e.Line, e.Column)
					if len(res.Errors) == 1 {
						line = fmt.Sprintf("The ListenerSet %q is invalid: %s%s", name, e.Message, at(res.File, e.Line, e.Column))
					}
					want = append(want, line)
					kinds["error"]++
				}
			}
			stdout, stderr := validate(report.Text)
			var got []string
			for _, l := range strings.Split(stdout+stderr, "\n") {
				if strings.Contains(l, " (at ") {
					got = append(got, l)
				}
			}
			assert.ElementsMatch(t, want, got, "--- stdout\n%s--- stderr\n%s", stdout, stderr)
		})
	}
	// Each kind of finding was met, so the check above is not vacuous.
	assert.Greater(t, kinds["error"], 10, "%v", kinds)
	assert.Greater(t, kinds["warning"], 10, "%v", kinds)
	assert.GreaterOrEqual(t, kinds["input error"], 2, "%v", kinds)
}

// TestEveryOfflineFindingHasACode: every error, warning and input error the
// command reports carries a code of report.Catalog, on the golden inputs,
// the examples and input made to meet each of kube-apiserver's own checks
// (an unknown field as error and as warning, a duplicate key, a value of the
// wrong type, an invalid name, a file that does not parse). Their JSON is
// what every format is rendered from.
func TestEveryOfflineFindingHasACode(t *testing.T) {
	dir := t.TempDir()
	own := map[string]string{
		"unknown.yaml": `apiVersion: gateway.networking.k8s.io/v1
kind: ListenerSet
metadata: {name: unknown, namespace: team-a}
spec:
  parentRef: {name: gw}
  listeners: [{name: web, port: 80, protocol: HTTP, colour: red}]
`,
		"duplicate.yaml": `apiVersion: gateway.networking.k8s.io/v1
kind: ListenerSet
metadata: {name: dup, namespace: team-a}
spec:
  parentRef: {name: gw}
  parentRef: {name: gw}
  listeners: [{name: web, port: 80, protocol: HTTP}]
`,
		"type.yaml": `apiVersion: gateway.networking.k8s.io/v1
kind: ListenerSet
metadata: {name: type, namespace: team-a}
spec:
  parentRef: {name: gw}
  listeners: [{name: web, port: eighty, protocol: HTTP}]
`,
		"name.yaml": `apiVersion: gateway.networking.k8s.io/v1
kind: ListenerSet
metadata: {name: Not_A_Name, namespace: team-a}
spec:
  parentRef: {name: gw}
  listeners: [{name: web, port: 80, protocol: HTTP}]
`,
		"finalizer.yaml": `apiVersion: gateway.networking.k8s.io/v1
kind: ListenerSet
metadata: {name: finalizer, namespace: team-a, finalizers: [bad]}
spec:
  parentRef: {name: gw}
  listeners: [{name: web, port: 80, protocol: HTTP}]
`,
		"metadata.yaml": "apiVersion: gateway.networking.k8s.io/v1\nkind: ListenerSet\nmetadata: 5\nspec: {}\n",
		"broken.yaml":   "a: [\n",
	}
	for name, body := range own {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644))
	}
	codes := map[string]bool{}
	for _, d := range report.Catalog() {
		codes[string(d.Code)] = true
	}
	seen := map[string]bool{}
	check := func(where, code string) {
		if assert.True(t, codes[code], "%s: code %q is not in the catalog", where, code) {
			seen[code] = true
		}
	}
	for _, unknown := range judge.UnknownFieldsModes {
		paths := []string{dir, filepath.Join("..", "examples")}
		for _, tc := range formatCases {
			paths = append(paths, tc.paths...)
		}
		var out bytes.Buffer
		offline.Validate(paths, offline.Options{Format: report.JSON, Stdout: &out, Stderr: io.Discard, WorkDir: srcRoot,
			Judge: judge.Options{UnknownFields: unknown}})
		var r report.Report
		require.NoError(t, json.Unmarshal(out.Bytes(), &r))
		for _, res := range r.Results {
			for _, e := range res.Errors {
				check(res.File+": "+e.Message, e.Code)
			}
			for _, w := range res.Warnings {
				check(res.File+": "+w.Message, w.Code)
			}
		}
		for _, e := range r.InputErrors {
			check(e.File+": "+e.Message, e.Code)
		}
	}
	for _, c := range []findings.Code{judge.CodeInputError, judge.CodeUndecodable, judge.CodeUnknownField,
		judge.CodeDuplicateField, judge.CodeAPIServerError, judge.CodeAPIServerWarning} {
		assert.True(t, seen[string(c)], "no input met %s", c)
	}
}

// TestOtherImplementationExample: examples/ holds another implementation's
// ListenerSet (examples/other-implementation.yaml, with its GatewayClass
// and Gateway); validate of the whole directory with the command's default
// scope finds it valid, with no finding, and judges every other example
// as before, while the examples' Airlock Gateway (examples/gateway.yaml) is
// known as Airlock's; with the scope off it is refused, as the webhook
// would refuse it under Airlock's class.
func TestOtherImplementationExample(t *testing.T) {
	scope := validation.Scope{ControllerNames: []gwv1.GatewayController{validation.AirlockControllerName}}
	judgeExamples := func(s validation.Scope) map[string]judge.Result {
		var out bytes.Buffer
		offline.Validate([]string{filepath.Join("..", "examples")},
			offline.Options{Format: report.JSON, Stdout: &out, Stderr: io.Discard, Judge: judge.Options{Scope: s}})
		var r report.Report
		require.NoError(t, json.Unmarshal(out.Bytes(), &r), out.String())
		byName := map[string]judge.Result{}
		for _, res := range r.Results {
			byName[read.Name(res.Namespace, res.Name)] = res
		}
		return byName
	}
	scoped, all := judgeExamples(scope), judgeExamples(validation.Scope{})
	other := scoped["listenerset-envoy/envoy-l4"]
	assert.True(t, other.Valid, "%+v", other)
	assert.Empty(t, other.Warnings)
	assert.Equal(t, validation.OutcomeOther, other.Scope)
	assert.False(t, all["listenerset-envoy/envoy-l4"].Valid, "under Airlock's rules: TCP, UDP, TLS, two certificateRefs")

	require.Equal(t, len(all), len(scoped))
	for name, res := range scoped {
		if name == "listenerset-envoy/envoy-l4" {
			continue
		}
		assert.Empty(t, res.Scope, "%s: the examples' Gateway is of Airlock's class", name)
		assert.Equal(t, all[name].Valid, res.Valid, name)
		assert.Equal(t, all[name].Errors, res.Errors, name)
		// The one example whose parentRef names no Gateway is judged, and
		// told why (LS309); every other finding is the unscoped one.
		ws := []read.Warning{}
		for _, w := range res.Warnings {
			if w.Code != string(validation.CodeScopeUnknown) {
				ws = append(ws, w)
			} else {
				assert.Equal(t, "listenerset-demo/parent-not-gateway", name, w.Message)
			}
		}
		assert.Equal(t, all[name].Warnings, ws, name)
	}
}
