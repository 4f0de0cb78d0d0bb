package chart

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A page's commands are run as the page shows them, not copied into a test:
// docBlocks reads the fenced ```sh blocks of one section of a page,
// docScript sets the variables the page tells the user to set, and
// docShell runs the result with bash, as the user's shell would.

// docBlocks returns the ```sh blocks of the section of page (a path under the
// repository root) headed heading (its text, without the #s): from that
// heading to the next heading of any level. A list item's indented block is
// returned without its indentation. It fails the test when there is none, so
// that a renamed heading or a removed block is noticed.
func docBlocks(t testing.TB, page, heading string) []string {
	t.Helper()
	return docBlocksOf(t, page, heading, "sh")
}

// docBlocksOf is docBlocks for the blocks of another language (yaml).
func docBlocksOf(t testing.TB, page, heading, lang string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, page))
	require.NoError(t, err)
	blocks := sectionBlocksOf(string(b), heading, lang)
	require.NotEmpty(t, blocks, "%s: no ```%s block under the heading %q", page, lang, heading)
	return blocks
}

var headingLine = regexp.MustCompile(`^#{1,6} +(.*?) *$`)

func sectionBlocks(page, heading string) []string { return sectionBlocksOf(page, heading, "sh") }

func sectionBlocksOf(page, heading, lang string) []string {
	var blocks, cur []string
	in, inBlock, keep := false, false, false
	indent := ""
	for _, line := range strings.Split(page, "\n") {
		trimmed := strings.TrimLeft(line, " ")
		switch {
		case inBlock && strings.HasPrefix(trimmed, "```"):
			inBlock = false
			if keep {
				blocks = append(blocks, strings.Join(cur, "\n")+"\n")
			}
		case inBlock:
			cur = append(cur, strings.TrimPrefix(line, indent))
		case strings.HasPrefix(trimmed, "```"):
			// Only the language asked for: output and the like are not run.
			inBlock, cur = true, nil
			keep = in && strings.TrimSpace(strings.TrimPrefix(trimmed, "```")) == lang
			indent = line[:len(line)-len(trimmed)]
		default:
			if m := headingLine.FindStringSubmatch(line); m != nil {
				in = m[1] == heading
			}
		}
	}
	return blocks
}

// assignment is a line of a block that only sets shell variables, as the
// pages' first lines do (NAME=value NAME=value, maybe a comment).
var assignment = regexp.MustCompile(`^([A-Z_][A-Z0-9_]*=\S*)( +[A-Z_][A-Z0-9_]*=\S*)*( +#.*)?$`)

// docScript is block with the values of vars in place of those its
// assignment lines set: each variable a line assigns must be in vars (a
// new variable on the page fails the test until the test gives it a value).
func docScript(t testing.TB, block string, vars map[string]string) string {
	t.Helper()
	lines := strings.Split(block, "\n")
	for i, l := range lines {
		if !assignment.MatchString(l) {
			continue
		}
		code, _, _ := strings.Cut(l, " #")
		var out []string
		for _, a := range strings.Fields(code) {
			name, _, _ := strings.Cut(a, "=")
			v, ok := vars[name]
			require.True(t, ok, "the page sets %s, which the test does not give a value: %q", name, l)
			out = append(out, name+"="+shellQuote(v))
		}
		lines[i] = strings.Join(out, " ")
	}
	return strings.Join(lines, "\n")
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// docShell runs the pages' commands with bash in dir: -e, so that the
// first command that fails ends the script with its exit status, as a user
// would stop there; env is added to this process's, PATH first.
type docShell struct {
	dir  string
	path []string // directories put first on PATH (helm, kubectl, cosign)
	env  []string
}

// exec runs script and returns its output (stdout and stderr, interleaved
// as a terminal shows them) and its exit status; an error only when bash
// could not run. Safe outside the test's goroutine.
func (s docShell) exec(ctx context.Context, script string) (string, int, error) {
	ctx, cancel := context.WithTimeout(ctx, 15*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-e", "-o", "pipefail", "-c", script)
	cmd.Dir = s.dir
	cmd.Env = append(os.Environ(), "PATH="+strings.Join(append(s.path, os.Getenv("PATH")), ":"))
	cmd.Env = append(cmd.Env, s.env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
		return out.String(), ee.ExitCode(), nil
	}
	return out.String(), 0, err
}

// run is exec, logged, failing the test when bash could not run.
func (s docShell) run(ctx context.Context, t testing.TB, script string) (string, int) {
	t.Helper()
	start := time.Now()
	out, code, err := s.exec(ctx, script)
	require.NoError(t, err)
	t.Logf("$ %s\n%s(exit %d, %s)", strings.ReplaceAll(strings.TrimSpace(script), "\n", "\n$ "), out, code,
		time.Since(start).Round(100*time.Millisecond))
	return out, code
}

// mustRun runs script and fails the test unless it exits 0.
func (s docShell) mustRun(ctx context.Context, t testing.TB, script string) string {
	t.Helper()
	out, code := s.run(ctx, t, script)
	require.Zero(t, code, "the page's commands failed:\n%s", out)
	return out
}

// TestDocBlocks: the extraction the node suite runs the pages' commands
// with: a section's shell blocks only, indented ones too, and the page's
// variables replaced by the test's (a variable the test does not know
// fails).
func TestDocBlocks(t *testing.T) {
	page := "# Title\n\n```sh\nNS=a RELEASE=b   # set these\nREGISTRY=r\n```\n\n## Before\n\n1. Item:\n\n   ```sh\n   helm get values $RELEASE\n   ```\n\n" +
		"```yaml\nkind: X\n```\n\n```\nout\n```\n\n## Upgrade\n\n```sh\nhelm upgrade $RELEASE \\\n  --wait\n```\n"
	assert.Equal(t, []string{"NS=a RELEASE=b   # set these\nREGISTRY=r\n"}, sectionBlocks(page, "Title"))
	assert.Equal(t, []string{"helm get values $RELEASE\n"}, sectionBlocks(page, "Before"))
	assert.Equal(t, []string{"helm upgrade $RELEASE \\\n  --wait\n"}, sectionBlocks(page, "Upgrade"))
	assert.Empty(t, sectionBlocks(page, "Roll back"))

	got := docScript(t, sectionBlocks(page, "Title")[0], map[string]string{"NS": "x", "RELEASE": "it's", "REGISTRY": "127.0.0.1:5000/p"})
	assert.Equal(t, "NS='x' RELEASE='it'\\''s'\nREGISTRY='127.0.0.1:5000/p'\n", got)

	// The pages the node suite runs have the sections it reads.
	for page, headings := range map[string][]string{
		"README.md":        {"Install with Helm"},
		"docs/upgrade.md":  {"Upgrading and rolling back", "Before", "Upgrade", "Roll back"},
		"docs/adoption.md": {"1. Install with `webhook.enforcement=warn`", "4. Enforce"},
	} {
		for _, h := range headings {
			docBlocks(t, page, h)
		}
	}
}
