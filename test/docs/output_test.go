package docs

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/airlock/listenerset-webhook/test/testproc"
)

func TestMain(m *testing.M) {
	code := m.Run()
	testproc.RemoveBinaries()
	os.Exit(code)
}

// plugin is how a page invokes the offline commands.
const plugin = "kubectl listenerset "

// shell holds the characters that make a command line need a shell (pipes,
// redirections, quoting, expansions, several commands).
const shell = "|&;<>()$`'\"\\*?~"

// session is one `$ command` line of a fenced block and the lines shown
// after it, up to the next `$ ` line or the end of the block.
type session struct {
	page, command string
	line          int
	output        []string
}

// sessions finds every `$ ` line of every fenced block of the pages.
func sessions(all []page) []session {
	var out []session
	for _, p := range all {
		blocks, _ := split(p.lines)
		for _, b := range blocks {
			var cur *session
			for i, l := range b.lines {
				if cmd, ok := strings.CutPrefix(l, "$ "); ok {
					out = append(out, session{page: p.path, command: cmd, line: b.line + i})
					cur = &out[len(out)-1]
					continue
				}
				if cur != nil {
					cur.output = append(cur.output, l)
				}
			}
		}
	}
	return out
}

// offline returns the plugin's arguments when a session is one the test runs:
// `kubectl listenerset ARGS` with a trailing `# comment` dropped, and no
// character of shell. Any other command (kubectl apply and the like, which
// need a cluster; a pipe into one; a command needing a shell) is skipped,
// with why.
func offline(command string) (args []string, skip string) {
	if before, _, found := strings.Cut(command, " #"); found {
		command = before
	}
	rest, ok := strings.CutPrefix(strings.TrimSpace(command)+" ", plugin)
	switch {
	case !ok:
		return nil, "not the plugin: needs a cluster or another tool"
	case strings.ContainsAny(rest, shell):
		return nil, "needs a shell (pipe, redirection, quoting or expansion)"
	}
	return strings.Fields(rest), ""
}

// TestShownOutput runs every offline session the pages show with the built
// plugin, from the repository root as the pages say, and requires its
// output, stdout and stderr together in the order written, to be exactly the
// lines the page shows (the exit code is not shown, so not compared). A
// page's output is made true by running the command, never by leaving it
// out of this test.
func TestShownOutput(t *testing.T) {
	all := sessions(pages(t))
	var run []session
	for _, s := range all {
		if _, skip := offline(s.command); skip != "" {
			t.Logf("%s:%d: skipped (%s): $ %s", s.page, s.line, skip, s.command)
			continue
		}
		run = append(run, s)
	}
	if len(run) == 0 {
		t.Fatalf("no offline session among %d: the parser is broken", len(all))
	}
	bin, err := testproc.PluginBinary()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range run {
		args, _ := offline(s.command)
		t.Run(s.page+":"+strconv.Itoa(s.line), func(t *testing.T) {
			cmd := exec.Command(bin, args...)
			cmd.Dir = root
			// No cluster: a kubeconfig that is not there, and a home of its own.
			cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "KUBECONFIG=" + t.TempDir() + "/none"}
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			var exit *exec.ExitError
			if err := cmd.Run(); err != nil && !errors.As(err, &exit) {
				t.Fatalf("$ %s: %v", s.command, err)
			}
			got := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
			if diff := lineDiff(s.output, got); diff != "" {
				t.Errorf("%s:%d: $ %s\nshown output differs from the plugin's (- shown, + printed):\n%s", s.page, s.line, s.command, diff)
			}
		})
	}
}

// lineDiff lists, line by line, where shown and printed differ: each
// differing position as "-" the shown line and "+" the printed one; "" when
// they are equal.
func lineDiff(shown, printed []string) string {
	var b strings.Builder
	for i := 0; i < max(len(shown), len(printed)); i++ {
		var want, got string
		if i < len(shown) {
			want = shown[i]
		}
		if i < len(printed) {
			got = printed[i]
		}
		if i >= len(shown) || i >= len(printed) || want != got {
			if i < len(shown) {
				b.WriteString("-" + strconv.Itoa(i+1) + ": " + want + "\n")
			}
			if i < len(printed) {
				b.WriteString("+" + strconv.Itoa(i+1) + ": " + got + "\n")
			}
		}
	}
	return b.String()
}
