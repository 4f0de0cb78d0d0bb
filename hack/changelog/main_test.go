package main

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

const sample = `# Changelog

Intro.

## [Unreleased]

### Added

- next

## [1.2.0] - 2026-12-02

### Added

- a thing

### Upgrade notes

- do this

## [1.1.0] - 2026-11-01

- older

[1.2.0]: https://example.invalid/compare/v1.1.0...v1.2.0
`

func TestSection(t *testing.T) {
	tests := []struct {
		name, text, section, want, err string
	}{
		{name: "a release", text: sample, section: "1.2.0",
			want: "### Added\n\n- a thing\n\n### Upgrade notes\n\n- do this\n"},
		{name: "unreleased", text: sample, section: "Unreleased", want: "### Added\n\n- next\n"},
		{name: "last, without link definitions", text: sample, section: "1.1.0", want: "- older\n"},
		{name: "missing", text: sample, section: "1.3.0", err: "no section ## [1.3.0]"},
		{name: "empty", text: "## [1.0.0] - 2026-01-01\n\n## [0.9.0]\n- x\n", section: "1.0.0", err: "section [1.0.0] is empty"},
		{name: "not a release heading", text: "## [1.0.0]\n- x\n## 0.9.0\n- y\n", section: "1.0.0", err: `line 3: "## 0.9.0" is not a release heading`},
		{name: "twice", text: "## [1.0.0]\n- x\n## [1.0.0]\n- y\n", section: "1.0.0", err: "line 3: a second section [1.0.0]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Section(strings.NewReader(tt.text), tt.section)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("Section = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestRepositoryChangelog: the repository's CHANGELOG.md is in the form
// Section reads, Unreleased first, and every release's section (and
// Unreleased's, when it has entries) has upgrade notes.
func TestRepositoryChangelog(t *testing.T) {
	raw, err := os.ReadFile("../../CHANGELOG.md")
	if err != nil {
		t.Fatal(err)
	}
	names, err := Names(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	if len(names) == 0 || names[0] != "Unreleased" {
		t.Fatalf("sections %q: want [Unreleased] first", names)
	}
	for _, name := range names {
		notes, err := Section(bytes.NewReader(raw), name)
		if name == "Unreleased" && err != nil && strings.HasSuffix(err.Error(), "is empty") {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(notes, "\n### Upgrade notes\n") {
			t.Errorf("section [%s] has no ### Upgrade notes:\n%s", name, notes)
		}
	}
}
