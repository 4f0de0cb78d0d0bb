package repository

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var (
	// makeComment is the first line of a target's comment, `## name: text`.
	makeComment = regexp.MustCompile(`^## ([a-z][a-z0-9-]*): `)
	// makeRule is a rule's first line, `name:` or `name: prerequisites`
	// (not a variable's `name := value`).
	makeRule = regexp.MustCompile(`^([a-z][a-z0-9-]*):([^=]|$)`)
)

// TestMakeHelp: `make help` lists, in the Makefile's order, every .PHONY
// target that has a `## target: text` comment, and a comment that names a
// rule is only of a .PHONY target (make help would leave it out). The
// Makefile is read here without make help's awk, so that the two disagree
// when either is wrong.
func TestMakeHelp(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(root, "Makefile"))
	require.NoError(t, err)
	lines := strings.Split(string(b), "\n")
	phony := map[string]bool{}
	rules := map[string]bool{}
	for _, l := range lines {
		if rest, ok := strings.CutPrefix(l, ".PHONY:"); ok {
			for _, name := range strings.Fields(rest) {
				phony[name] = true
			}
		}
		if m := makeRule.FindStringSubmatch(l); m != nil {
			rules[m[1]] = true
		}
	}
	require.NotEmpty(t, phony, "the Makefile's .PHONY line")
	var want []string
	for i, l := range lines {
		m := makeComment.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		switch name := m[1]; {
		case phony[name]:
			if !slices.Contains(want, name) {
				want = append(want, name)
			}
		case rules[name]:
			t.Errorf("Makefile:%d: the comment of target %s, which is not in .PHONY: make help leaves it out", i+1, name)
		}
	}
	require.NotEmpty(t, want, "commented .PHONY targets")

	cmd := exec.Command("make", "-s", "--no-print-directory", "-C", root, "help")
	out, err := cmd.Output()
	require.NoError(t, err, "make help")
	var listed []string
	for _, l := range strings.Split(string(out), "\n") {
		if f := strings.Fields(l); len(f) > 0 && !strings.HasPrefix(l, " ") {
			listed = append(listed, f[0])
		}
	}
	assert.Equal(t, want, listed, "make help's targets, in the Makefile's order")
}
