// Command matrix is the Kubernetes version matrix (`make test-matrix`; `make
// test-matrix-ends` runs it for the oldest supported version and the newest,
// `make test-all` for the oldest, the newest being the default version its
// other tests run against): for each
// version it builds or finds that version's kube-apiserver and kubectl
// (KUBE_VERSION=<v> hack/k8s-binaries.sh), runs the tests whose outcome
// depends on the server against them, and prints one row per version.
//
//	go run ./hack/matrix                     # every version of hack/k8s-binaries.sh versions
//	go run ./hack/matrix 1.30.14 1.37.2      # these
//	go run ./hack/matrix -build=false        # skip (with the reason) versions the cache does not hold
//
// The tests are the suites' own, run with KUBE_VERSION set (test/localcluster
// starts kube-apiserver from bin/k8s/<v> and fails unless it reports v):
//
//   - test/e2e's quickTests (make test's), against the product's CRD set (E2E_CRDS, no CRD matrix):
//     every example created, updated and dry-run (--dry-run=server) with the
//     messages that version's kubectl prints, warnings, ratcheting, the
//     mutating webhook's matchConditions against the CRD's defaulting, and a
//     stopped webhook with failurePolicy Fail;
//   - test/policy, the ValidatingAdmissionPolicy's differential test against
//     validation.Validate on a sample: every example and table object, the
//     worst objects and POLICY_DIFF_N (-fuzz, 300) fuzz objects, as creates
//     and updates;
//   - test/chart, the chart rendered for that version (helm template
//     --kube-version) in each admission mode, and a server-side dry-run of
//     every object.
//
// A row passes when every test ran and passed, fails when one failed or a
// package did not build or start, and is skipped, with the reason, when the
// version's binaries could not be had. The report also goes to
// .run/matrix/report.txt, and each version's test output to
// .run/matrix/<v>.log.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/airlock/listenerset-webhook/test/localcluster"
)

// suites are the packages and the tests of each that the matrix runs: what
// depends on the server's version. The rest of each package (the offline
// commands, the render tests of the chart, the cluster-aware checks' informers)
// does not, and runs in `make test-all` against the default version.
var suites = []suite{
	// test/e2e's quickTests, make test's: create, update, --dry-run=server, kubectl's messages, warnings,
	// ratcheting, failurePolicy Fail, matchConditions, tenancy, class status
	{name: "e2e", pkg: "./test/e2e", listFlag: "-quick-tests"},
	{name: "policy", pkg: "./test/policy", tests: []string{"TestPolicyAgainstKubeAPIServer"}},
	{name: "chart", pkg: "./test/chart", tests: []string{"TestAdmissionModesServerSideDryRun", "TestServerSideDryRun"}},
}

type suite struct {
	name, pkg string
	tests     []string
	// listFlag, when set, is the flag of pkg's test binary that prints the
	// tests to run, one a line: they are the test functions of a _test.go
	// file, which this command cannot import (listTests).
	listFlag string
}

func main() {
	build := flag.Bool("build", true, "build a version's binaries when missing (cold: 12 to 23 minutes each on 2 cores); false skips it")
	fuzz := flag.Int("fuzz", 300, "POLICY_DIFF_N: fuzz objects of the policy's differential test")
	crds := flag.String("crds", string(localcluster.CRDsV163Standard), "the Gateway API CRD set (E2E_CRDS, POLICY_CRDS)")
	flag.Parse()
	root, err := localcluster.RepoRoot()
	if err != nil {
		fatal(err)
	}
	for i, s := range suites {
		if s.listFlag != "" {
			if suites[i].tests, err = listTests(root, s.pkg, s.listFlag); err != nil {
				fatal(err)
			}
		}
	}
	versions := flag.Args()
	if len(versions) == 0 {
		out, err := exec.Command("bash", filepath.Join(root, localcluster.BinariesScript), "versions").Output()
		if err != nil {
			fatal(fmt.Errorf("%s versions: %w", localcluster.BinariesScript, err))
		}
		versions = strings.Fields(string(out))
	}
	outDir := filepath.Join(root, ".run", "matrix")
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		fatal(err)
	}
	start := time.Now()
	var rows []row
	for _, v := range versions {
		r := runVersion(root, outDir, v, *build, *fuzz, *crds)
		fmt.Fprintf(os.Stderr, "[matrix %s] %s: %s in %s %s\n", time.Now().Format("15:04:05"), v, r.result, r.took.Round(time.Second), r.note)
		rows = append(rows, r)
	}
	var report bytes.Buffer
	writeReport(&report, rows, time.Since(start))
	os.Stdout.Write(report.Bytes())
	_ = os.WriteFile(filepath.Join(outDir, "report.txt"), report.Bytes(), 0o644)
	// A skipped row fails too under FAIL_ON_SKIP=1, as a skipped test does in
	// make test-all (.ci/run sets it: CI runs everything).
	failOnSkip := os.Getenv("FAIL_ON_SKIP") == "1"
	for _, r := range rows {
		if r.result == "fail" || (failOnSkip && r.result == "skipped") {
			os.Exit(1)
		}
	}
}

// listTests builds pkg's test binary and returns the test names it prints
// when run with listFlag.
func listTests(root, pkg, listFlag string) ([]string, error) {
	dir, err := os.MkdirTemp("", "matrix-list-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	bin := filepath.Join(dir, "pkg.test")
	build := exec.Command("go", "test", "-c", "-o", bin, pkg)
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("go test -c %s: %v: %s", pkg, err, out)
	}
	out, err := exec.Command(bin, listFlag).Output()
	if err != nil {
		return nil, fmt.Errorf("%s's test binary %s: %w", pkg, listFlag, err)
	}
	names := strings.Fields(string(out))
	if len(names) == 0 {
		return nil, fmt.Errorf("%s's test binary %s: no tests", pkg, listFlag)
	}
	return names, nil
}

// row is one version's outcome.
type row struct {
	version, result, note string
	suites                map[string]string // suite name: "7/7 passed", ...
	build, took           time.Duration
}

func runVersion(root, outDir, version string, build bool, fuzz int, crds string) (r row) {
	r = row{version: version, suites: map[string]string{}}
	start := time.Now()
	defer func() { r.took = time.Since(start) }()
	script := filepath.Join(root, localcluster.BinariesScript)
	env := append(os.Environ(), localcluster.KubeVersionEnv+"="+version)
	if !build {
		// NO_BUILD=1: links the version's binaries when the cache holds
		// them, exits 3 when it does not.
		cached := exec.Command("bash", script, "k8s")
		cached.Dir, cached.Env = root, append(env, "NO_BUILD=1")
		if err := cached.Run(); err != nil {
			r.result, r.note = "skipped", "binaries not built (-build=false; KUBE_VERSION="+version+" "+localcluster.BinariesScript+")"
			return r
		}
	}
	log, err := os.Create(filepath.Join(outDir, version+".log"))
	if err != nil {
		r.result, r.note = "fail", err.Error()
		return r
	}
	defer log.Close()
	buildStart := time.Now()
	cmd := exec.Command("bash", script, "k8s")
	cmd.Dir, cmd.Env = root, env
	var tail bytes.Buffer
	cmd.Stdout, cmd.Stderr = io.MultiWriter(log, &tail), io.MultiWriter(log, &tail)
	if err := cmd.Run(); err != nil {
		r.result, r.note = "skipped", "binaries do not build: "+lastLine(tail.String())+" (see .run/matrix/"+version+".log)"
		return r
	}
	r.build = time.Since(buildStart)

	var run []string
	var pkgs []string
	for _, s := range suites {
		run = append(run, s.tests...)
		pkgs = append(pkgs, s.pkg)
	}
	args := append([]string{"test", "-count=1", "-json", "-p", "1", "-timeout", "30m",
		"-run", "^(" + strings.Join(run, "|") + ")$"}, pkgs...)
	cmd = exec.Command("go", args...)
	cmd.Dir = root
	cmd.Env = append(env, "E2E_CRDS="+crds, "POLICY_CRDS="+crds, fmt.Sprintf("POLICY_DIFF_N=%d", fuzz))
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		r.result, r.note = "fail", err.Error()
		return r
	}
	cmd.Stderr = log
	if err := cmd.Start(); err != nil {
		r.result, r.note = "fail", err.Error()
		return r
	}
	res := readEvents(io.TeeReader(stdout, log))
	waitErr := cmd.Wait()

	r.result = "pass"
	var notes []string
	for _, s := range suites {
		var passed, failed, skipped []string
		for _, name := range s.tests {
			switch res.tests[s.pkg+" "+name] {
			case "pass":
				passed = append(passed, name)
			case "fail":
				failed = append(failed, name)
			case "skip":
				skipped = append(skipped, name+" ("+res.skipReason[s.pkg+" "+name]+")")
			default:
				if res.pkgFailed[s.pkg] != "" {
					failed = append(failed, name+" ("+res.pkgFailed[s.pkg]+")")
				} else {
					failed = append(failed, name+" (did not run)")
				}
			}
		}
		r.suites[s.name] = fmt.Sprintf("%d/%d", len(passed), len(s.tests))
		if len(failed) > 0 {
			r.result = "fail"
			notes = append(notes, s.name+" failed: "+strings.Join(failed, ", "))
		}
		if len(skipped) > 0 {
			if r.result == "pass" {
				r.result = "skipped"
			}
			notes = append(notes, s.name+" skipped: "+strings.Join(skipped, ", "))
		}
		if res.pkgFailed[s.pkg] != "" && len(failed) == 0 {
			r.result = "fail"
			notes = append(notes, s.name+": "+res.pkgFailed[s.pkg])
		}
	}
	if waitErr != nil && r.result != "fail" {
		r.result = "fail"
		notes = append(notes, "go test: "+waitErr.Error())
	}
	r.note = strings.Join(notes, "; ")
	return r
}

// events are what `go test -json` reported: each top-level test's outcome
// by "package test", the reason a skipped one gave, and why a package failed.
type events struct {
	tests, skipReason, pkgFailed map[string]string
}

func readEvents(r io.Reader) events {
	ev := events{tests: map[string]string{}, skipReason: map[string]string{}, pkgFailed: map[string]string{}}
	output := map[string][]string{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var e struct{ Action, Package, Test, Output, FailedBuild string }
		if json.Unmarshal(sc.Bytes(), &e) != nil {
			continue
		}
		pkg := "./" + strings.TrimPrefix(e.Package, localcluster.ModulePath+"/")
		if e.Test == "" {
			if e.Action == "fail" {
				ev.pkgFailed[pkg] = "package failed (see the log)"
				if e.FailedBuild != "" {
					ev.pkgFailed[pkg] = "build failed"
				}
			}
			continue
		}
		if strings.Contains(e.Test, "/") {
			continue
		}
		key := pkg + " " + e.Test
		switch e.Action {
		case "output":
			if len(output[key]) < 64 { // the skip reason is in the first lines
				output[key] = append(output[key], e.Output)
			}
		case "pass", "fail", "skip":
			ev.tests[key] = e.Action
			if e.Action == "skip" {
				ev.skipReason[key] = skipReason(output[key])
			}
		}
	}
	return ev
}

// skipReason is the message of t.Skip: the output line after "=== RUN" that
// is not the "--- SKIP" line.
func skipReason(lines []string) string {
	for _, l := range lines {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "=== ") || strings.HasPrefix(l, "--- ") {
			continue
		}
		if i := strings.Index(l, ".go:"); i >= 0 { // "x_test.go:12: reason"
			if j := strings.Index(l[i:], ": "); j >= 0 {
				l = l[i+j+2:]
			}
		}
		return l
	}
	return "no reason given"
}

func writeReport(w io.Writer, rows []row, took time.Duration) {
	fmt.Fprintf(w, "Kubernetes version matrix (%s):\n", took.Round(time.Second))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	var names []string
	for _, s := range suites {
		names = append(names, s.name)
	}
	fmt.Fprintf(tw, "version\tresult\t%s\tbuild\ttests\tnote\n", strings.Join(names, "\t"))
	for _, r := range rows {
		var cells []string
		for _, n := range names {
			c := r.suites[n]
			if c == "" {
				c = "-"
			}
			cells = append(cells, c)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", r.version, r.result, strings.Join(cells, "\t"),
			r.build.Round(time.Second), (r.took - r.build).Round(time.Second), r.note)
	}
	tw.Flush()
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "matrix:", err)
	os.Exit(2)
}
