package docs

import (
	"os"
	"path"
	"regexp"
	"strings"
	"testing"
)

// codeSpan is inline code, whose brackets are not links.
var codeSpan = regexp.MustCompile("`[^`\n]*`")

// TestLinks requires every relative link of README.md and docs/*.md to name
// an existing file or directory of the repository, and a #fragment to name a
// heading of the page it points at (the same page when the path is empty).
// Links with a scheme (https:, mailto:) are not followed: tests reach no
// network.
func TestLinks(t *testing.T) {
	all := pages(t)
	headings := map[string]map[string]bool{}
	for _, p := range all {
		headings[p.path] = anchors(p.lines)
	}
	checked := 0
	for _, p := range all {
		_, prose := split(p.lines)
		text := codeSpan.ReplaceAllString(strings.Join(prose, "\n"), "")
		for _, m := range linkText.FindAllStringSubmatchIndex(text, -1) {
			target := text[m[4]:m[5]]
			line := 1 + strings.Count(text[:m[0]], "\n")
			if target == "" || strings.Contains(target, ":") {
				continue // a scheme (https:, mailto:), or no target at all
			}
			checked++
			file, fragment, _ := strings.Cut(target, "#")
			resolved := p.path
			if file != "" {
				resolved = path.Join(path.Dir(p.path), file)
				if strings.HasPrefix(resolved, "../") {
					t.Errorf("%s:%d: %s leaves the repository", p.path, line, target)
					continue
				}
				if _, err := os.Stat(path.Join(root, resolved)); err != nil {
					t.Errorf("%s:%d: %s: no such file (%s)", p.path, line, target, resolved)
					continue
				}
			}
			if fragment == "" {
				continue
			}
			h, ok := headings[resolved]
			if !ok {
				if !strings.HasSuffix(resolved, ".md") {
					t.Errorf("%s:%d: %s: a fragment on a file that is not a page", p.path, line, target)
					continue
				}
				b, err := os.ReadFile(path.Join(root, resolved))
				if err != nil {
					t.Errorf("%s:%d: %s: %v", p.path, line, target, err)
					continue
				}
				h = anchors(strings.Split(string(b), "\n"))
				headings[resolved] = h
			}
			if !h[fragment] {
				t.Errorf("%s:%d: %s: %s has no heading #%s", p.path, line, target, resolved, fragment)
			}
		}
	}
	if checked == 0 {
		t.Fatal("no relative link found: the parser is broken")
	}
	t.Logf("%d relative links in %d pages", checked, len(all))
}
