package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestScopeFlagsOnEveryJudgingCommand: validate, listeners, audit and why take
// the webhook's --scope, --controller-names and --unknown-parent, refuse
// the same bad values, and complete the values of the two enums.
func TestScopeFlagsOnEveryJudgingCommand(t *testing.T) {
	for _, command := range []string{"validate", "listeners", "audit", "why"} {
		t.Run(command, func(t *testing.T) {
			var out, errOut bytes.Buffer
			require.Equal(t, exitOK, run([]string{command, "-h"}, strings.NewReader(""), &out, &errOut))
			for _, flag := range []string{"--scope string", "--controller-names strings", "--unknown-parent string",
				`(default "class")`, "(default microgateway.airlock.com/gatewayclass-controller)", `(default "judge")`} {
				assert.Contains(t, out.String(), flag)
			}
			for flag, want := range map[string][]string{"--scope": {"class", "all", ":4"}, "--unknown-parent": {"judge", "admit", ":4"}} {
				out.Reset()
				require.Equal(t, exitOK, run([]string{"__complete", command, flag, ""}, strings.NewReader(""), &out, &errOut))
				assert.Equal(t, want, completionLines(out.String()), flag)
			}
			assertRun(t, []string{command, "--scope=mine"}, exitUsage, nil,
				[]string{`error: invalid argument "mine" for "--scope" flag: must be "class" or "all"`})
			assertRun(t, []string{command, "--unknown-parent=deny"}, exitUsage, nil,
				[]string{`error: invalid argument "deny" for "--unknown-parent" flag: must be "judge" or "admit"`})
			assertRun(t, []string{command, "--controller-names="}, exitUsage, nil,
				[]string{`names no controller: to judge every ListenerSet, use --scope=all`})
		})
	}
}
