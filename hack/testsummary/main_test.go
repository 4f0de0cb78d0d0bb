package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sampleStream is the real `go test -json ./...` of testdata/sample, a
// module of small packages that pass, skip, fail, panic and do not build,
// run once for all tests.
var sampleStream = sync.OnceValues(func() ([]byte, error) {
	cmd := exec.Command("go", "test", "-json", "-count=1", "./...")
	cmd.Dir = "testdata/sample"
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod", "GOTOOLCHAIN=local")
	out, err := cmd.Output()
	if _, failed := err.(*exec.ExitError); failed {
		err = nil // the sample fails on purpose
	}
	return out, err
})

// packages is the sample's stream reduced to the events of the named
// packages (sample/<name>).
func packages(t *testing.T, names ...string) []byte {
	t.Helper()
	stream, err := sampleStream()
	require.NoError(t, err)
	var b bytes.Buffer
	sc := bufio.NewScanner(bytes.NewReader(stream))
	for sc.Scan() {
		var e event
		require.NoError(t, json.Unmarshal(sc.Bytes(), &e), sc.Text())
		for _, n := range names {
			if e.Package == "sample/"+n || e.ImportPath == "sample/"+n || strings.HasPrefix(e.ImportPath, "sample/"+n+" ") {
				b.Write(sc.Bytes())
				b.WriteByte('\n')
			}
		}
	}
	require.NotZero(t, b.Len(), "no events of %v in:\n%s", names, stream)
	return b.Bytes()
}

func summarize(t *testing.T, stream []byte, verbose, failOnSkip bool) (string, int) {
	t.Helper()
	var out bytes.Buffer
	code := run(bytes.NewReader(stream), &out, verbose, failOnSkip)
	return out.String(), code
}

func TestPassingIsQuiet(t *testing.T) {
	out, code := summarize(t, packages(t, "pass"), false, true)
	assert.Equal(t, 0, code, out)
	assert.Equal(t, "ok  \tsample/pass\t", out[:len("ok  \tsample/pass\t")], "go test's own line first")
	assert.NotContains(t, out, "quiet", "a passing test's logs are not shown")
	assert.NotContains(t, out, "PASS\n", "nor the test binary's PASS, as go test without -v")
	assert.True(t, strings.HasSuffix(out, "testsummary: 2 passed, 0 failed, 0 skipped\n"), out)
	assert.NotContains(t, out, "skipped 0", "no list when nothing skipped")
}

func TestFailureShowsItsOutput(t *testing.T) {
	out, code := summarize(t, packages(t, "fail", "pass"), false, false)
	assert.Equal(t, 1, code, out)
	for _, want := range []string{
		"fail_test.go:12: bad-subtest-error\n", "--- FAIL: TestFail/bad",
		"fail_test.go:8: parent-log-line\n", "--- FAIL: TestFail (",
		"FAIL\tsample/fail\t", "ok  \tsample/pass\t",
	} {
		assert.Contains(t, out, want)
	}
	assert.NotContains(t, out, "quiet", "the passing tests and subtests beside it say nothing")
	assert.NotContains(t, out, "=== ", "no test2json framing")
	assert.True(t, strings.HasSuffix(out, "testsummary: 4 passed, 2 failed, 0 skipped\nFAIL\n"), out)
}

func TestPanicAndBuildFailure(t *testing.T) {
	out, code := summarize(t, packages(t, "panic"), false, false)
	assert.Equal(t, 1, code, out)
	assert.Contains(t, out, "said-before-the-panic")
	assert.Contains(t, out, "panic: the-panic-message")
	assert.Contains(t, out, "FAIL\tsample/panic\t")

	out, code = summarize(t, packages(t, "broken"), false, false)
	assert.Equal(t, 1, code, out, "a package that does not build fails the run")
	assert.Contains(t, out, `cannot use "not-an-int"`)
	assert.Contains(t, out, "FAIL\tsample/broken [build failed]")
}

func TestSkipsListedWithTheirReason(t *testing.T) {
	stream := packages(t, "skip", "pass")
	out, code := summarize(t, stream, false, false)
	assert.Equal(t, 0, code, "a skip alone passes:\n%s", out)
	assert.True(t, strings.HasSuffix(out, "\nskipped 2:\n"+
		"  sample/skip TestSkip: needs root: run make test-node as root (skip_test.go:9)\n"+
		"  sample/skip TestSkipSub/one: needs npm (skip_test.go:13)\n"+
		"testsummary: 5 passed, 0 failed, 2 skipped\n"), out)
	assert.NotContains(t, out, "first a log line", "the reason is the Skip call's message")

	out, code = summarize(t, stream, false, true)
	assert.Equal(t, 1, code, "FAIL_ON_SKIP=1: a skip fails:\n%s", out)
	assert.Contains(t, out, "skipped 2:\n")
	assert.True(t, strings.HasSuffix(out, "FAIL: FAIL_ON_SKIP=1 and 2 skipped: on this machine every test must run\n"), out)
}

func TestVerbosePrintsEverything(t *testing.T) {
	out, code := summarize(t, packages(t, "pass"), true, false)
	assert.Equal(t, 0, code, out)
	for _, want := range []string{"=== RUN   TestPass\n", "quiet-when-passing", "quiet-subtest", "--- PASS: TestPass (", "PASS\n"} {
		assert.Contains(t, out, want)
	}
}

func TestOtherLinesPassThrough(t *testing.T) {
	out, code := summarize(t, []byte("go: downloading example.com/m v1.0.0\n{not json\n"), false, false)
	assert.Equal(t, 0, code)
	assert.Equal(t, "go: downloading example.com/m v1.0.0\n{not json\ntestsummary: 0 passed, 0 failed, 0 skipped\n", out)
}
