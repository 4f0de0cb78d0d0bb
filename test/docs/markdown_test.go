package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/require"
)

// root is the repository root, where the pages' commands run and their
// relative links start from.
const root = "../.."

// linkText is a Markdown link or image, [text](target), with the text in
// group 1 and the target in group 2; the text may span lines.
var linkText = regexp.MustCompile(`!?\[([^\]]*)\]\(([^()\s]*)\)`)

// page is one Markdown file: its path from the repository root and its lines.
type page struct {
	path  string
	lines []string
}

// pages reads README.md and every docs/*.md.
func pages(t *testing.T) []page {
	t.Helper()
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	require.NoError(t, err)
	var out []page
	for _, file := range append([]string{filepath.Join(root, "README.md")}, docs...) {
		b, err := os.ReadFile(file)
		require.NoError(t, err)
		rel, err := filepath.Rel(root, file)
		require.NoError(t, err)
		out = append(out, page{path: filepath.ToSlash(rel), lines: strings.Split(string(b), "\n")})
	}
	require.NotEmpty(t, out)
	return out
}

// block is a fenced code block: the line number (1-based) of its first
// content line and its content lines.
type block struct {
	line  int
	lines []string
}

// split separates a page into its fenced code blocks and the prose around
// them (with the blocks' lines blanked, so that line numbers still hold).
func split(lines []string) (blocks []block, prose []string) {
	var fence string // the opening fence while inside a block
	var cur *block
	for i, l := range lines {
		trimmed := strings.TrimLeft(l, " ")
		switch {
		case fence == "" && (strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~")):
			fence = trimmed[:3]
			cur = &block{line: i + 2}
			prose = append(prose, "")
		case fence != "" && strings.HasPrefix(trimmed, fence):
			blocks = append(blocks, *cur)
			fence, cur = "", nil
			prose = append(prose, "")
		case fence != "":
			cur.lines = append(cur.lines, l)
			prose = append(prose, "")
		default:
			prose = append(prose, l)
		}
	}
	return blocks, prose
}

// anchors is the set of fragments a page's headings get, as GitHub makes
// them: the heading's text lowercased, every character but letters,
// digits, '-', '_' and spaces dropped, spaces turned into '-', and a
// repeated one suffixed -1, -2, ...
func anchors(lines []string) map[string]bool {
	_, prose := split(lines)
	seen := map[string]int{}
	out := map[string]bool{}
	for _, l := range prose {
		if !strings.HasPrefix(l, "#") {
			continue
		}
		text := strings.TrimLeft(l, "#")
		if text == "" || text[0] != ' ' {
			continue // not a heading: "#word"
		}
		text = linkText.ReplaceAllString(strings.TrimSpace(text), "$1")
		var b strings.Builder
		for _, r := range strings.ToLower(text) {
			switch {
			case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
				b.WriteRune(r)
			case r == ' ':
				b.WriteRune('-')
			}
		}
		slug := b.String()
		if n := seen[slug]; n > 0 {
			seen[slug]++
			slug += "-" + strconv.Itoa(n)
		} else {
			seen[slug] = 1
		}
		out[slug] = true
	}
	return out
}
