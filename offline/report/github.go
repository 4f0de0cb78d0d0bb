package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/airlock/listenerset-webhook/offline/judge"
)

// writeGitHub writes one GitHub Actions workflow command per finding:
//
//	::error file=a.yaml,line=7,col=5,title=LS104 Duplicate listener name::ListenerSet ns/x: spec.listeners[1].name: Duplicate value: "web"
//
// Errors are ::error, warnings ::warning, so the run's annotations show them
// on the file and line; the title is the code and its title.
func writeGitHub(w io.Writer, r *Report) error {
	for _, f := range r.findings() {
		cmd := "warning"
		switch {
		case f.Baseline == judge.Fixed:
			cmd = "notice" // the live object's; the input no longer has it
		case f.Error:
			cmd = "error"
		}
		var props []string // a stored object (the audit's) has no file: the run's annotation
		if f.File != "" {
			props = append(props, "file="+escapeProperty(f.File))
		}
		if f.Line > 0 {
			props = append(props, fmt.Sprintf("line=%d", f.Line))
			if f.Column > 0 {
				props = append(props, fmt.Sprintf("col=%d", f.Column))
			}
		}
		props = append(props, "title="+escapeProperty(f.Rule.ID+" "+f.Rule.Short))
		if _, err := fmt.Fprintf(w, "::%s %s::%s%s\n", cmd, strings.Join(props, ","), baselinePrefix(f.Baseline), escapeData(sarifText(f))); err != nil {
			return err
		}
	}
	return nil
}

// escapeData escapes a command's message as the Actions runner unescapes it
// (actions/toolkit's command.ts): %, CR and LF.
func escapeData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// escapeProperty escapes a property value: as data, and also ":" and ",",
// which would end the value.
func escapeProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}

// baselinePrefix marks a message compared with a live cluster's findings:
// "introduced: ", "unchanged: ", "fixed: "; nothing when not compared.
func baselinePrefix(b judge.Baseline) string {
	if b == "" {
		return ""
	}
	return string(b) + ": "
}
