// Command changelog prints one section of CHANGELOG.md, a release's notes:
// make release writes the release's section to dist/RELEASE_NOTES.md.
//
//	go run ./hack/changelog -section 1.2.3 CHANGELOG.md
//
// The file is in the form of Keep a Changelog: a level-2 heading per release,
// "## [1.2.3] - 2026-12-02" (the version without its v), and
// "## [Unreleased]" on top. The section is everything under its heading up
// to the next level-2 heading (link definitions at the end excluded); a
// missing or empty section is an error, so that a release never goes out
// with no notes.
package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
)

func main() {
	section := flag.String("section", "Unreleased", `the section: a version without its "v", or "Unreleased"`)
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: changelog -section VERSION CHANGELOG.md")
		os.Exit(2)
	}
	f, err := os.Open(flag.Arg(0))
	if err == nil {
		var notes string
		notes, err = Section(f, *section)
		f.Close()
		if err == nil {
			_, err = fmt.Print(notes)
		}
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "changelog: %s: %v\n", flag.Arg(0), err)
		os.Exit(1)
	}
}

// heading is a release's level-2 heading: "## [name]", optionally
// " - date".
var heading = regexp.MustCompile(`^## \[([^\]]+)\](?: - (\d{4}-\d{2}-\d{2}))?\s*$`)

// linkDefinition is a Markdown link reference definition, "[1.2.3]: URL",
// which Keep a Changelog puts at the end.
var linkDefinition = regexp.MustCompile(`^\[[^\]]+\]: \S+`)

// Names are the sections' names in their order, every level-2 heading
// checked as Section checks it.
func Names(r io.Reader) ([]string, error) {
	var names []string
	sc := bufio.NewScanner(r)
	for line := 1; sc.Scan(); line++ {
		name, ok, err := sectionHeading(sc.Text(), line)
		if err != nil {
			return nil, err
		}
		if ok {
			names = append(names, name)
		}
	}
	return names, sc.Err()
}

// sectionHeading reads a line: the section's name when it is a level-2
// heading, an error when that heading is not a release's.
func sectionHeading(text string, line int) (name string, ok bool, err error) {
	if !strings.HasPrefix(text, "## ") {
		return "", false, nil
	}
	m := heading.FindStringSubmatch(text)
	if m == nil {
		return "", false, fmt.Errorf("line %d: %q is not a release heading (## [1.2.3] - YYYY-MM-DD or ## [Unreleased])", line, text)
	}
	return m[1], true, nil
}

// Section is the body of the section named name, trimmed, ending in one
// newline. A level-2 heading that is not a release's is an error, so that a
// typo cannot end a section early or hide one.
func Section(r io.Reader, name string) (string, error) {
	var body []string
	in, found := false, false
	sc := bufio.NewScanner(r)
	for line := 1; sc.Scan(); line++ {
		text := sc.Text()
		s, ok, err := sectionHeading(text, line)
		if err != nil {
			return "", err
		}
		if ok {
			in = s == name
			if in && found {
				return "", fmt.Errorf("line %d: a second section [%s]", line, name)
			}
			found = found || in
			continue
		}
		if in && !linkDefinition.MatchString(text) {
			body = append(body, text)
		}
	}
	if err := sc.Err(); err != nil {
		return "", err
	}
	if !found {
		return "", fmt.Errorf("no section ## [%s]", name)
	}
	notes := strings.TrimSpace(strings.Join(body, "\n"))
	if notes == "" {
		return "", errors.New("section [" + name + "] is empty")
	}
	return notes + "\n", nil
}
