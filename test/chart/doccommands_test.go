package chart

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/airlock/listenerset-webhook/test/testproc"
)

// A page's commands are run as the page shows them, not copied into a test,
// and every test that runs a page's commands runs them the same way (the
// node suite: the README's install, adoption.md, upgrade.md,
// tenancy-capsule.md, runbook.md's commands that read pods;
// TestRunbookCommands: runbook.md): readPage reads a page's fenced blocks
// and the code spans of its prose, docBlocks picks a section's ```sh
// blocks, pageScript gives the variables the page tells the user to set the
// test's values, and docShell runs the result with bash, as the user's
// shell would.

// pageBlock is one fenced block of a page.
type pageBlock struct {
	lang    string // the fence's language: sh, yaml, or "" (output)
	heading string // the text of the nearest heading above it, without the #s ("" before the first)
	text    string // its lines, each ending in a newline; a list item's block without its indentation
	line    int    // the page's line number of its first line
}

// docPage is a page's fenced blocks, in order, and the inline code spans of
// its prose (headings included, blocks not).
type docPage struct {
	path   string
	blocks []pageBlock
	spans  []string
}

// readPage reads page, a path under the repository root.
func readPage(t testing.TB, page string) docPage {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, page))
	require.NoError(t, err)
	p, err := parsePage(string(b))
	require.NoError(t, err, page)
	p.path = page
	return p
}

var (
	headingLine = regexp.MustCompile(`^#{1,6} +(.*?) *$`)
	codeSpan    = regexp.MustCompile("`([^`]+)`")
)

// parsePage splits a page's text into its fenced blocks and its prose's
// code spans. A block that is not closed is an error.
func parsePage(text string) (docPage, error) {
	var p docPage
	var cur *pageBlock
	heading, indent := "", ""
	for i, line := range strings.Split(text, "\n") {
		trimmed := strings.TrimLeft(line, " ")
		switch {
		case cur != nil && strings.HasPrefix(trimmed, "```"):
			p.blocks = append(p.blocks, *cur)
			cur = nil
		case cur != nil:
			cur.text += strings.TrimPrefix(line, indent) + "\n"
		case strings.HasPrefix(trimmed, "```"):
			indent = line[:len(line)-len(trimmed)]
			cur = &pageBlock{lang: strings.TrimSpace(strings.TrimPrefix(trimmed, "```")), heading: heading, line: i + 2}
		default:
			if m := headingLine.FindStringSubmatch(line); m != nil {
				heading = m[1]
			}
			for _, m := range codeSpan.FindAllStringSubmatch(line, -1) {
				p.spans = append(p.spans, m[1])
			}
		}
	}
	if cur != nil {
		return p, fmt.Errorf("the block opened on line %d is not closed", cur.line-1)
	}
	return p, nil
}

// ofLang is the page's blocks of lang, in order (only the language asked
// for: output and the like are not run).
func (p docPage) ofLang(lang string) []pageBlock {
	var out []pageBlock
	for _, b := range p.blocks {
		if b.lang == lang {
			out = append(out, b)
		}
	}
	return out
}

// section is the texts of the page's blocks of lang in the section headed
// heading (its text, without the #s): from that heading to the next heading
// of any level.
func (p docPage) section(heading, lang string) []string {
	var out []string
	for _, b := range p.ofLang(lang) {
		if b.heading == heading {
			out = append(out, b.text)
		}
	}
	return out
}

// docBlocks returns the ```sh blocks of the section of page (a path under the
// repository root) headed heading. It fails the test when there is none, so
// that a renamed heading or a removed block is noticed.
func docBlocks(t testing.TB, page, heading string) []string {
	t.Helper()
	return docBlocksOf(t, page, heading, "sh")
}

// docBlocksOf is docBlocks for the blocks of another language (yaml).
func docBlocksOf(t testing.TB, page, heading, lang string) []string {
	t.Helper()
	blocks := readPage(t, page).section(heading, lang)
	require.NotEmpty(t, blocks, "%s: no ```%s block under the heading %q", page, lang, heading)
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

// pageScript is docScript with vars set first too, as shell variables (not
// exported, as a user sets them), for the blocks that use them without
// setting them: the user's shell still has them from the page's first block.
func pageScript(t testing.TB, block string, vars map[string]string) string {
	t.Helper()
	var set []string
	for _, k := range slices.Sorted(maps.Keys(vars)) {
		set = append(set, k+"="+shellQuote(vars[k]))
	}
	return strings.Join(set, " ") + "\n" + docScript(t, block, vars)
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// docShell runs a page's commands with bash -e -o pipefail in dir: the
// first command that fails ends the script with its exit status, as a user
// would stop there. The environment is the shell's own, not this test
// process's: PATH is path, then /usr/bin and /bin; HOME and Helm's
// directories are empty ones of the test; env adds KUBECONFIG and whatever a
// test sets (a registry's CA).
type docShell struct {
	dir  string
	path []string
	env  []string
}

// newDocShell is a shell in a directory of its own for the cluster of
// kubeconfig, with the directories of path (kubectl's), the tests' helm and
// the built kubectl plugin first on PATH.
func newDocShell(t testing.TB, kubeconfig string, path ...string) docShell {
	t.Helper()
	plugin, err := testproc.PluginBinary()
	require.NoError(t, err)
	home := t.TempDir()
	return docShell{dir: t.TempDir(), path: append(slices.Clone(path), filepath.Dir(helm(t)), filepath.Dir(plugin)), env: []string{
		"HOME=" + home, "KUBECONFIG=" + kubeconfig,
		"HELM_CACHE_HOME=" + filepath.Join(home, "helm-cache"), "HELM_CONFIG_HOME=" + filepath.Join(home, "helm-config"),
		"HELM_DATA_HOME=" + filepath.Join(home, "helm-data"),
	}}
}

// shellRun is what a script did: its stdout, its stderr, both as a terminal
// shows them (output), and its exit status.
type shellRun struct {
	stdout, stderr, output string
	code                   int
}

// exec runs script; an error only when bash could not run. Safe outside the
// test's goroutine.
func (s docShell) exec(ctx context.Context, script string) (shellRun, error) {
	ctx, cancel := context.WithTimeout(ctx, 15*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-e", "-o", "pipefail", "-c", script)
	cmd.Dir = s.dir
	cmd.Env = append([]string{"PATH=" + strings.Join(append(slices.Clone(s.path), "/usr/bin", "/bin"), string(os.PathListSeparator))}, s.env...)
	var stdout, stderr bytes.Buffer
	var both lockedBuffer // exec copies stdout and stderr from two goroutines
	cmd.Stdout, cmd.Stderr = io.MultiWriter(&stdout, &both), io.MultiWriter(&stderr, &both)
	err := cmd.Run()
	r := shellRun{stdout: stdout.String(), stderr: stderr.String(), output: both.String()}
	if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
		r.code = ee.ExitCode()
		return r, nil
	}
	return r, err
}

// run is exec, logged, failing the test when bash could not run.
func (s docShell) run(ctx context.Context, t testing.TB, script string) shellRun {
	t.Helper()
	start := time.Now()
	r, err := s.exec(ctx, script)
	require.NoError(t, err)
	t.Logf("$ %s\n%s(exit %d, %s)", strings.ReplaceAll(strings.TrimSpace(script), "\n", "\n$ "), r.output, r.code,
		time.Since(start).Round(100*time.Millisecond))
	return r
}

// mustRun runs script and fails the test unless it exits 0; it returns the
// output.
func (s docShell) mustRun(ctx context.Context, t testing.TB, script string) string {
	t.Helper()
	r := s.run(ctx, t, script)
	require.Zero(t, r.code, "the page's commands failed:\n%s", r.output)
	return r.output
}

// TestDocBlocks: the extraction every page's commands are run with: a
// section's shell blocks only, indented ones too, each with its heading and
// line, the prose's code spans, an unclosed block refused, and the page's
// variables replaced by the test's (a variable the test does not know
// fails); and the shell runs them as a user's would: -e and pipefail, the
// variables set, the exit status and the two streams kept apart.
func TestDocBlocks(t *testing.T) {
	text := "# Title\n\n```sh\nNS=a RELEASE=b   # set these\nREGISTRY=r\n```\n\n## Before\n\n1. Item, `helm get values`:\n\n   ```sh\n   helm get values $RELEASE\n   ```\n\n" +
		"```yaml\nkind: X\n```\n\n```\nout\n```\n\n## Upgrade\n\n```sh\nhelm upgrade $RELEASE \\\n  --wait\n```\n"
	page, err := parsePage(text)
	require.NoError(t, err)
	assert.Equal(t, []string{"NS=a RELEASE=b   # set these\nREGISTRY=r\n"}, page.section("Title", "sh"))
	assert.Equal(t, []string{"helm get values $RELEASE\n"}, page.section("Before", "sh"))
	assert.Equal(t, []string{"kind: X\n"}, page.section("Before", "yaml"))
	assert.Equal(t, []string{"helm upgrade $RELEASE \\\n  --wait\n"}, page.section("Upgrade", "sh"))
	assert.Empty(t, page.section("Roll back", "sh"))
	assert.Equal(t, []pageBlock{{lang: "sh", heading: "Before", text: "helm get values $RELEASE\n", line: 13}}, page.ofLang("sh")[1:2])
	assert.Equal(t, []string{"helm get values"}, page.spans, "the prose's spans, not the blocks'")
	_, err = parsePage("# T\n\n```sh\nhelm list\n")
	assert.ErrorContains(t, err, "line 3 is not closed")

	got := docScript(t, page.section("Title", "sh")[0], map[string]string{"NS": "x", "RELEASE": "it's", "REGISTRY": "127.0.0.1:5000/p"})
	assert.Equal(t, "NS='x' RELEASE='it'\\''s'\nREGISTRY='127.0.0.1:5000/p'\n", got)
	assert.Equal(t, "NS='x' RELEASE='y'\nhelm get values $RELEASE\n",
		pageScript(t, page.section("Before", "sh")[0], map[string]string{"RELEASE": "y", "NS": "x"}), "the variables first, in order")

	sh := docShell{dir: t.TempDir()}
	r := sh.run(t.Context(), t, pageScript(t, "echo \"$RELEASE\"\necho warned >&2\nfalse | cat\necho not reached\n", map[string]string{"RELEASE": "it's"}))
	assert.Equal(t, 1, r.code, "pipefail and -e: the pipeline's failure ends the script")
	assert.Equal(t, "it's\n", r.stdout)
	assert.Equal(t, "warned\n", r.stderr)
	// Both streams, in an order the two pipes' copying decides.
	assert.ElementsMatch(t, []string{"it's", "warned"}, strings.Fields(r.output))

	// The pages the node suite runs have the sections it reads.
	for page, headings := range map[string][]string{
		"README.md":               {"Install with Helm"},
		"docs/upgrade.md":         {"Upgrading and rolling back", "Before", "Upgrade", "Roll back"},
		"docs/adoption.md":        {"1. Install with `webhook.enforcement=warn`", "4. Enforce"},
		"docs/tenancy-capsule.md": {"Recipe: Capsule tenants"},
	} {
		for _, h := range headings {
			docBlocks(t, page, h)
		}
	}
}
