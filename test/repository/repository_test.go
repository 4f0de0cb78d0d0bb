package repository

import (
	"bytes"
	"encoding/binary"
	"errors"
	"go/parser"
	"go/token"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

const root = "../.."

// git runs git in the repository root and returns its stdout's
// NUL-separated records (-z).
func git(t *testing.T, stdin string, args ...string) []string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", root}, args...)...)
	cmd.Stdin = strings.NewReader(stdin)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var exit *exec.ExitError
	if args[0] == "check-ignore" && errors.As(err, &exit) && exit.ExitCode() == 1 {
		err = nil // check-ignore: none of the paths is ignored
	}
	require.NoError(t, err, "git %v: %s", args, stderr.String())
	return strings.FieldsFunc(string(out), func(r rune) bool { return r == 0 })
}

// workTree skips the tests outside a git work tree (a tarball of the
// sources), where nothing is tracked.
func workTree(t *testing.T) {
	t.Helper()
	if out, err := exec.Command("git", "-C", root, "rev-parse", "--is-inside-work-tree").Output(); err != nil || strings.TrimSpace(string(out)) != "true" {
		t.Skip("not a git work tree: nothing is tracked")
	}
}

// binaryKind names the executable format whose magic number file starts
// with (ELF, Mach-O, PE), or "".
func binaryKind(file string) (string, error) {
	f, err := os.Open(file)
	if err != nil {
		return "", err
	}
	defer f.Close()
	head := make([]byte, 64)
	n, err := io.ReadFull(f, head)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return "", err
	}
	head = head[:n]
	switch {
	case bytes.HasPrefix(head, []byte("\x7fELF")):
		return "ELF", nil
	case slices.ContainsFunc([][]byte{
		{0xfe, 0xed, 0xfa, 0xce}, {0xfe, 0xed, 0xfa, 0xcf}, // Mach-O, big-endian 32/64-bit
		{0xce, 0xfa, 0xed, 0xfe}, {0xcf, 0xfa, 0xed, 0xfe}, // little-endian
		{0xca, 0xfe, 0xba, 0xbe}, // universal (fat)
	}, func(m []byte) bool { return bytes.HasPrefix(head, m) }):
		return "Mach-O", nil
	case bytes.HasPrefix(head, []byte("MZ")) && len(head) == 64:
		// An MS-DOS stub whose e_lfanew points at the PE signature.
		sig := make([]byte, 4)
		if _, err := f.ReadAt(sig, int64(binary.LittleEndian.Uint32(head[0x3c:]))); err == nil && string(sig) == "PE\x00\x00" {
			return "PE", nil
		}
	}
	return "", nil
}

// TestNoTrackedBinary: no tracked file is an executable binary, and none
// has the executable bit but a script (a #! line).
func TestNoTrackedBinary(t *testing.T) {
	workTree(t)
	files := 0
	for _, rec := range git(t, "", "ls-files", "-z", "--stage") {
		meta, name, _ := strings.Cut(rec, "\t")
		mode := strings.Fields(meta)[0]
		if mode != "100644" && mode != "100755" {
			continue // a symlink or a submodule
		}
		file := filepath.Join(root, name)
		kind, err := binaryKind(file)
		if os.IsNotExist(err) {
			continue // deleted in the work tree
		}
		require.NoError(t, err)
		files++
		if kind != "" {
			t.Errorf("%s is tracked and an executable binary (%s): git rm --cached it and ignore it in .gitignore", name, kind)
			continue
		}
		if mode == "100755" {
			head := make([]byte, 2)
			f, err := os.Open(file)
			require.NoError(t, err)
			_, _ = io.ReadFull(f, head)
			f.Close()
			if string(head) != "#!" {
				t.Errorf("%s is tracked with the executable bit and is not a script (no #! line): git update-index --chmod=-x it", name)
			}
		}
	}
	require.Positive(t, files, "git ls-files listed no file")
}

// TestUntrackedBinariesIgnored: every executable binary in the work tree
// that git does not track is ignored (make has built its tools into
// bin/ by now), so that `git add .` does not take it.
func TestUntrackedBinariesIgnored(t *testing.T) {
	workTree(t)
	for _, name := range git(t, "", "ls-files", "-z", "--others", "--exclude-standard") {
		kind, err := binaryKind(filepath.Join(root, name))
		if err != nil {
			continue // gone meanwhile, or a socket
		}
		if kind != "" {
			t.Errorf("%s is an executable binary (%s) that .gitignore does not cover: add it there", name, kind)
		}
	}
}

var moduleLine = regexp.MustCompile(`(?m)^module\s+(\S+)`)

// TestGoBuildOutputsIgnored: `go build` in the directory of any main
// package, of this module or of a tools module (hack/tools), writes a
// binary named after its import path there; .gitignore covers each.
func TestGoBuildOutputsIgnored(t *testing.T) {
	workTree(t)
	var outputs []string
	seen := map[string]bool{}
	for _, name := range git(t, "", "ls-files", "-z", "*.go") {
		dir := path.Dir(name)
		if strings.HasSuffix(name, "_test.go") || seen[dir] || skippedByGo(dir) {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(root, name), nil, parser.PackageClauseOnly)
		require.NoError(t, err)
		if f.Name.Name != "main" {
			continue
		}
		seen[dir] = true
		outputs = append(outputs, path.Join(dir, path.Base(importPath(t, dir))))
	}
	require.Subset(t, outputs, []string{"cmd/listenerset-webhook/listenerset-webhook", "cmd/kubectl-listenerset/kubectl-listenerset"}, "the main packages found")
	ignored := git(t, strings.Join(outputs, "\x00"), "check-ignore", "-z", "--no-index", "--stdin")
	for _, out := range outputs {
		if !slices.Contains(ignored, out) {
			t.Errorf("go build in %s writes %s, which .gitignore does not cover: add /%s there", path.Dir(out), path.Base(out), out)
		}
	}
}

// skippedByGo: go ignores testdata and directories starting with . or _.
func skippedByGo(dir string) bool {
	for _, elem := range strings.Split(dir, "/") {
		if elem == "testdata" || strings.HasPrefix(elem, ".") || strings.HasPrefix(elem, "_") {
			return true
		}
	}
	return false
}

// importPath is dir's import path: its nearest go.mod's module path and
// the way from there.
func importPath(t *testing.T, dir string) string {
	t.Helper()
	for mod := dir; ; mod = path.Dir(mod) {
		data, err := os.ReadFile(filepath.Join(root, mod, "go.mod"))
		if err == nil {
			m := moduleLine.FindSubmatch(data)
			require.NotNil(t, m, "%s/go.mod has no module line", mod)
			rel := strings.TrimPrefix(strings.TrimPrefix(dir, mod), "/")
			return path.Join(string(m[1]), rel)
		}
		require.True(t, os.IsNotExist(err), "%v", err)
		require.NotEqual(t, ".", mod, "no go.mod above %s", dir)
	}
}
