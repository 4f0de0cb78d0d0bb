package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/airlock/listenerset-webhook/offline/report"
	"github.com/airlock/listenerset-webhook/test/golden"
	"github.com/airlock/listenerset-webhook/test/testproc"
	"github.com/airlock/listenerset-webhook/version"
)

func TestMain(m *testing.M) {
	// validate reads the kubeconfig's namespace as kubectl does: the tests
	// see none, whatever the machine's (a missing file is an empty config),
	// unless a test sets its own.
	dir, err := os.MkdirTemp("", "kubectl-listenerset-test")
	if err != nil {
		panic(err)
	}
	os.Setenv("KUBECONFIG", filepath.Join(dir, "none"))
	code := m.Run()
	os.RemoveAll(dir)
	testproc.RemoveBinaries()
	os.Exit(code)
}

// The golden files hold the exit code, stdout and stderr of one command line,
// so a reviewer sees exactly what a user would.
func TestValidateGolden(t *testing.T) {
	in := func(name string) string { return filepath.Join("testdata", "input", name) }
	stdinDoc, err := os.ReadFile(in("multi.yaml"))
	require.NoError(t, err)

	tests := []struct {
		golden string
		args   []string
		stdin  string
		exit   int
	}{
		{"valid", []string{"-f", in("valid.yaml")}, "", report.ExitValid},
		{"one-error", []string{"-f", in("duplicate.yaml")}, "", report.ExitInvalid},
		{"many-errors", []string{"-f", in("many-errors.yaml")}, "", report.ExitInvalid},
		{"warnings", []string{"--unknown-fields=warn", "-f", in("warnings.yaml")}, "", report.ExitValid},
		{"unknown-field", []string{"-f", in("warnings.yaml")}, "", report.ExitInvalid},
		{"multi-document", []string{"-f", in("multi.yaml")}, "", report.ExitInvalid},
		{"multi-document-json", []string{"-f", in("multi.yaml"), "-o", "json"}, "", report.ExitInvalid},
		{"directory", []string{"-f", in("tree")}, "", report.ExitInvalid},
		{"stdin", []string{"-f", "-"}, string(stdinDoc), report.ExitInvalid},
		{"several-paths", []string{"-f", in("valid.yaml"), "--filename", in("warnings.yaml")}, "", report.ExitInvalid},
		{"list", []string{"-f", in("list.yaml")}, "", report.ExitInvalid},
		{"wrong-types", []string{"-f", in("wrong-types.yaml")}, "", report.ExitInvalid},
		{"wrong-types-json", []string{"-f", in("wrong-types.yaml"), "-o", "json"}, "", report.ExitInvalid},
		{"unparsable", []string{"-f", in("broken.yaml")}, "", report.ExitInputError},
		{"missing-file", []string{"-f", in("missing.yaml"), "-f", in("valid.yaml")}, "", report.ExitInputError},
		{"missing-file-json", []string{"-f", in("missing.yaml"), "-o", "json"}, "", report.ExitInputError},
		{"only-other-kinds", []string{"-f", in("only-others.yaml")}, "", report.ExitValid},
		{"empty-stdin", []string{"-f", "-"}, "", report.ExitValid},
		{"json-valid-with-warnings", []string{"-o", "json", "--unknown-fields=warn", "-f", in("warnings.yaml")}, "", report.ExitValid},
		{"cluster", []string{"-f", in("cluster.yaml")}, "", report.ExitValid},
		{"cluster-strict", []string{"--strict", "-f", in("cluster.yaml")}, "", report.ExitInvalid},
		// The Airlock name lists, without and with a name added.
		{"added-names-none", []string{"-f", in("added-curve.yaml")}, "", report.ExitInvalid},
		{"added-names", []string{"--add-names=ecdhCurves=X448", "-f", in("added-curve.yaml")}, "", report.ExitInvalid},
		{"added-names-bad", []string{"--add-names=curves=X448", "-f", in("added-curve.yaml")}, "", report.ExitInputError},
		// Two implementations' GatewayClasses: only the set of Airlock's
		// class is judged; the unknown class's by --unknown-parent.
		{"scope", []string{"-f", in("scope.yaml")}, "", report.ExitInvalid},
		{"scope-admit", []string{"--unknown-parent=admit", "-f", in("scope.yaml")}, "", report.ExitInvalid},
		{"scope-all", []string{"--scope=all", "-f", in("scope.yaml")}, "", report.ExitInvalid},
		{"scope-names-json", []string{"--controller-names=gateway.envoyproxy.io/gatewayclass-controller", "--unknown-parent=admit", "-o", "json", "-f", in("scope.yaml")},
			"", report.ExitInvalid},
		// PATHs as arguments, as pre-commit passes them, before and after flags.
		{"positional-github", []string{in("duplicate.yaml"), "-o", "github", in("valid.yaml")}, "", report.ExitInvalid},
		{"positional-junit", []string{"-o", "junit", "--", in("multi.yaml")}, "", report.ExitInvalid},
		{"github-input-error", []string{"-o", "github", in("broken.yaml"), in("missing.yaml")}, "", report.ExitInputError},
	}
	for _, tt := range tests {
		t.Run(tt.golden, func(t *testing.T) {
			args := append([]string{"validate"}, tt.args...)
			var stdout, stderr bytes.Buffer
			code := run(args, strings.NewReader(tt.stdin), &stdout, &stderr)

			got := fmt.Sprintf("$ kubectl-listenerset %s\nexit: %d\n--- stdout\n%s--- stderr\n%s",
				strings.Join(args, " "), code, stdout.String(), stderr.String())
			golden.Assert(t, filepath.Join("testdata", "golden", tt.golden+".txt"), got)
			assert.Equal(t, tt.exit, code, "exit code")
			if strings.Contains(strings.Join(tt.args, " "), "-o json") {
				var r report.Report
				require.NoError(t, json.Unmarshal(stdout.Bytes(), &r), "stdout is one JSON document")
				assert.Equal(t, code, r.Summary.ExitCode)
				assert.Empty(t, stderr.String(), "nothing on stderr with -o json")
			}
		})
	}
}

// TestUsage: each command line's exit code and what it prints on each
// stream. A row that expects nothing on a stream asserts that the stream is
// empty, so help that moved to stderr, or an error that leaked to stdout,
// fails the row.
func TestUsage(t *testing.T) {
	commands := []string{"Usage:", "kubectl listenerset [command]", "validate    Validate ListenerSet manifests offline",
		"listeners   Print each Gateway's merged listener list", "policy      Print the ValidatingAdmissionPolicies", "completion  "}
	validateHelp := "kubectl listenerset validate (-f PATH | PATH)... [flags]"
	seeValidate := "See 'kubectl listenerset validate --help' for usage."
	tests := []struct {
		name   string
		args   []string
		exit   int
		stdout []string // substrings; none: stdout must be empty
		stderr []string // substrings; none: stderr must be empty
	}{
		{"no command", nil, exitOK, commands, nil},
		{"unknown command", []string{"lint"}, exitUsage, nil,
			[]string{`error: unknown command "lint" for "kubectl listenerset"`, "See 'kubectl listenerset --help' for usage."}},
		{"serve is the server's", []string{"serve"}, exitUsage, nil, []string{`error: unknown command "serve"`}},
		{"help", []string{"help"}, exitOK, commands, nil},
		{"-h", []string{"-h"}, exitOK, commands, nil},
		{"--help", []string{"--help"}, exitOK, commands, nil},
		{"help validate", []string{"help", "validate"}, exitOK, []string{validateHelp, "Exit status: 0 all valid"}, nil},
		{"validate without -f", []string{"validate"}, exitUsage, nil,
			[]string{"error: validate needs -f PATH (or PATH arguments)", seeValidate}},
		{"validate with a positional path", []string{"validate", "x.yaml"}, report.ExitInputError, nil,
			[]string{`error: x.yaml: stat x.yaml: no such file or directory`}},
		{"validate bad format", []string{"validate", "-f", "x.yaml", "-o", "yaml"}, exitUsage, nil,
			[]string{`error: -o "yaml": must be one of text|json|junit|sarif|github`, seeValidate}},
		{"validate --output", []string{"validate", "--output=sarif", "-"}, exitOK, []string{`"version": "2.1.0"`, `"results": []`}, nil},
		{"validate -o sarif", []string{"validate", "-o", "sarif", "-"}, exitOK, []string{`"version": "2.1.0"`, `"results": []`}, nil},
		{"validate bad --unknown-fields", []string{"validate", "-f", "x.yaml", "--unknown-fields", "drop"}, exitUsage, nil,
			[]string{`error: --unknown-fields "drop": must be error, warn or ignore`}},
		{"validate bad flag", []string{"validate", "--nope"}, exitUsage, nil,
			[]string{"error: unknown flag: --nope", seeValidate}},
		{"validate -h", []string{"validate", "-h"}, exitOK,
			[]string{validateHelp, "Exit status: 0 all valid", "--strict", "-f, --filename strings", "-o, --output string", `(default "text")`, "--crd strings", "--unknown-fields string"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assertRun(t, tt.args, tt.exit, tt.stdout, tt.stderr)
		})
	}
}

// TestVersion: --version and the version command print the version the
// linker set, the commit and the Go version on stdout, as the server's
// --version does.
func TestVersion(t *testing.T) {
	v, c := version.Version, version.Commit
	t.Cleanup(func() { version.Version, version.Commit = v, c })
	version.Version, version.Commit = "v9.8.7", "0123abcd"
	want := "kubectl-listenerset v9.8.7, commit 0123abcd, " + runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH + "\n"
	for _, args := range [][]string{{"--version"}, {"version"}} {
		var stdout, stderr bytes.Buffer
		require.Equal(t, exitOK, run(args, strings.NewReader(""), &stdout, &stderr), stderr.String())
		assert.Equal(t, want, stdout.String(), args)
		assert.Empty(t, stderr.String(), args)
	}
	var stdout, stderr bytes.Buffer
	assert.Equal(t, exitUsage, run([]string{"version", "extra"}, strings.NewReader(""), &stdout, &stderr))
	assert.Contains(t, stderr.String(), "unknown command \"extra\"")
}

// TestFilenamesAsKubectlTakesThem: -f takes comma-separated paths and may
// repeat, as kubectl's does, and PATH arguments add to them: all are read.
func TestFilenamesAsKubectlTakesThem(t *testing.T) {
	in := func(name string) string { return filepath.Join("testdata", "input", name) }
	for name, args := range map[string][]string{
		"comma":      {"-f", in("valid.yaml") + "," + in("duplicate.yaml")},
		"repeated":   {"--filename", in("valid.yaml"), "-f", in("duplicate.yaml")},
		"positional": {"-f", in("valid.yaml"), in("duplicate.yaml")},
	} {
		t.Run(name, func(t *testing.T) {
			assertRun(t, append([]string{"validate"}, args...), report.ExitInvalid,
				[]string{"listenerset.gateway.networking.k8s.io/team-a/web valid", `The ListenerSet "team-a/dup" is invalid`},
				// The inputs hold no Gateway: the scope's note (LS309).
				[]string{"Warning: spec.parentRef: Gateway team-a/gw is unknown"})
		})
	}
}

// TestPreCommitHook runs the repository's .pre-commit-hooks.yaml for real,
// once: pre-commit (Debian's, installed by make ci-tools; skipped when it
// is not on PATH) runs `pre-commit
// try-repo` on this repository (with its uncommitted changes, as try-repo
// does), which builds the command with the system Go as pre-commit's golang
// language does and passes the changed files as arguments. A valid and an
// invalid ListenerSet: the hook must fail, naming the invalid one's error,
// and have judged the valid one too (it ran once, on both files).
func TestPreCommitHook(t *testing.T) {
	if testing.Short() {
		t.Skip("runs pre-commit, which builds the command")
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	require.NoError(t, err)
	preCommit, missing, err := testproc.CITool(root, "pre-commit")
	require.NoError(t, err)
	if missing != "" {
		t.Skip(missing)
	}

	work := t.TempDir()
	for name, src := range map[string]string{"good.yaml": "valid.yaml", "bad.yaml": "duplicate.yaml"} {
		data, err := os.ReadFile(filepath.Join("testdata", "input", src))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(work, name), data, 0o644))
	}
	goEnv := func(name string) string {
		v, err := exec.Command("go", "env", name).Output()
		require.NoError(t, err)
		return strings.TrimSpace(string(v))
	}
	env := append(os.Environ(),
		"PRE_COMMIT_HOME="+t.TempDir(),
		// pre-commit sets GOPATH to its environment; keep the machine's module
		// and build caches so that nothing is downloaded or rebuilt again.
		"GOMODCACHE="+goEnv("GOMODCACHE"), "GOCACHE="+goEnv("GOCACHE"), "GOTOOLCHAIN=local",
		"GIT_AUTHOR_NAME=test", "GIT_AUTHOR_EMAIL=test@localhost",
		"GIT_COMMITTER_NAME=test", "GIT_COMMITTER_EMAIL=test@localhost")
	for _, args := range [][]string{{"init", "-q"}, {"add", "good.yaml", "bad.yaml"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env = work, env
		b, err := cmd.CombinedOutput()
		require.NoError(t, err, "git %v: %s", args, b)
	}

	cmd := exec.Command(preCommit, "try-repo", root, "listenerset-validate", "--files", "good.yaml", "bad.yaml", "--verbose")
	cmd.Dir, cmd.Env = work, env
	start := time.Now()
	b, err := cmd.CombinedOutput()
	t.Logf("pre-commit try-repo (builds the hook): %s", time.Since(start).Round(time.Second))
	output := string(b)
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit, "the hook must fail on bad.yaml:\n%s", output)
	assert.Equal(t, 1, exit.ExitCode(), output)
	assert.Contains(t, output, "validate Gateway API ListenerSets", "the hook ran")
	// kubectl's line, then where the field is in the file the hook was given.
	assert.Contains(t, output, `The ListenerSet "team-a/dup" is invalid: spec.listeners[1].name: Duplicate value: "web" (at bad.yaml:14:5)`+"\n", output)
	assert.Contains(t, output, "listenerset.gateway.networking.k8s.io/team-a/web valid", "both files in one call")
	assert.Contains(t, output, "- exit code: 1", "validate's own exit code")
}

// assertRun runs the command with args and an empty stdin and checks its
// exit code and that stdout and stderr contain each of the wanted strings
// (and are empty when none is wanted).
func assertRun(t *testing.T, args []string, exit int, stdout, stderr []string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(args, strings.NewReader(""), &out, &errOut)
	assert.Equal(t, exit, code, "exit code")
	for _, s := range []struct {
		name string
		got  string
		want []string
	}{{"stdout", out.String(), stdout}, {"stderr", errOut.String(), stderr}} {
		if len(s.want) == 0 {
			assert.Empty(t, s.got, "%s must be empty", s.name)
		}
		for _, want := range s.want {
			assert.Contains(t, s.got, want, s.name)
		}
	}
}
