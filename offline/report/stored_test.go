package report

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/airlock/listenerset-webhook/offline/judge"
	"github.com/airlock/listenerset-webhook/offline/read"
)

// TestStoredObjects: results without a file (the audit's stored objects)
// and an input error without one (a cluster that cannot be listed) in every
// format: kubectl's text without the " (at ...)" suffix, no file property
// in GitHub commands, a logical location only in SARIF, a testsuite per
// namespace in JUnit.
func TestStoredObjects(t *testing.T) {
	v := &judge.Verdict{Results: []judge.Result{
		{Namespace: "team-a", Name: "bad", Errors: []judge.FieldError{{Field: "spec.listeners[0].port", Type: "FieldValueInvalid", Code: "LS105",
			Message: "spec.listeners[0].port: Invalid value: 0: must be between 1 and 65535, inclusive"}},
			Warnings: []read.Warning{{Field: "spec.listeners[0].tls.options[example.com/x]", Kind: "ForeignOption", Code: "LS202", Message: "spec.listeners[0].tls.options[example.com/x]: foreign"}}},
		{Namespace: "team-b", Name: "good", Valid: true},
	}}
	r := New(v)
	write := func(f Format) (string, string) {
		var out, errOut bytes.Buffer
		require.NoError(t, r.Write(f, &out, &errOut, "/repo"))
		return out.String(), errOut.String()
	}

	out, errOut := write(Text)
	assert.Equal(t, `The ListenerSet "team-a/bad" is invalid: spec.listeners[0].port: Invalid value: 0: must be between 1 and 65535, inclusive`+"\n"+
		"listenerset.gateway.networking.k8s.io/team-b/good valid\n", out)
	assert.Equal(t, "Warning: spec.listeners[0].tls.options[example.com/x]: foreign\n", errOut)

	out, _ = write(GitHub)
	assert.Equal(t, "::error title=LS105 Invalid port::ListenerSet team-a/bad: spec.listeners[0].port: Invalid value: 0: must be between 1 and 65535, inclusive\n"+
		"::warning title=LS202 TLS option of another implementation::ListenerSet team-a/bad: spec.listeners[0].tls.options[example.com/x]: foreign\n", out)

	out, _ = write(SARIF)
	var log struct {
		Runs []struct {
			Results []struct {
				Locations []map[string]json.RawMessage `json:"locations"`
			} `json:"results"`
		} `json:"runs"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &log))
	require.Len(t, log.Runs[0].Results, 2)
	for _, res := range log.Runs[0].Results {
		require.Len(t, res.Locations, 1)
		assert.NotContains(t, res.Locations[0], "physicalLocation")
		assert.Contains(t, string(res.Locations[0]["logicalLocations"]), "ListenerSet team-a/bad spec.listeners[0]")
	}

	root := junitRoot(r)
	require.Len(t, root.Suites, 2)
	assert.Equal(t, "namespace team-a", root.Suites[0].Name)
	assert.Equal(t, "namespace team-b", root.Suites[1].Name)
	assert.Equal(t, "spec.listeners[0].port: Invalid value: 0: must be between 1 and 65535, inclusive", root.Suites[0].Cases[0].Failures[0].Content)

	unlisted := New(&judge.Verdict{Notes: []judge.Note{{InputError: &read.InputError{Message: "listing ListenerSets: forbidden"}}}})
	assert.Equal(t, ExitInputError, unlisted.Summary.ExitCode)
	var textErr bytes.Buffer
	require.NoError(t, unlisted.Write(Text, &bytes.Buffer{}, &textErr, ""))
	assert.Equal(t, "error: listing ListenerSets: forbidden\n", textErr.String())
	suites := junitRoot(unlisted).Suites
	require.Len(t, suites, 1)
	assert.Equal(t, clusterSuite, suites[0].Name)
	assert.Equal(t, clusterSuite, suites[0].Cases[0].Name)
}

// TestComparedExitCode: compared with a live cluster, only an introduced
// error exits 1, unless FailOnAnyError; SARIF carries each baselineState.
func TestComparedExitCode(t *testing.T) {
	unchanged := judge.FieldError{Field: "spec.x", Type: "FieldValueInvalid", Message: "spec.x: old", Baseline: judge.Unchanged}
	fixed := judge.FieldError{Field: "spec.y", Type: "FieldValueInvalid", Message: "spec.y: gone", Baseline: judge.Fixed}
	v := &judge.Verdict{Compared: true, Results: []judge.Result{{Namespace: "a", Name: "b", Errors: []judge.FieldError{unchanged},
		Fixed: &judge.Findings{Errors: []judge.FieldError{fixed}, Warnings: []read.Warning{}}}}}
	r := New(v)
	assert.Equal(t, ExitValid, r.Summary.ExitCode, "an unchanged error is the cluster's already")
	assert.Equal(t, &BaselineSummary{Unchanged: 1, Fixed: 1}, r.Summary.Baseline)
	r.FailOnAnyError()
	assert.Equal(t, ExitInvalid, r.Summary.ExitCode)

	v.Results[0].Errors = append(v.Results[0].Errors, judge.FieldError{Field: "spec.z", Type: "FieldValueInvalid", Message: "spec.z: new", Baseline: judge.Introduced})
	r = New(v)
	assert.Equal(t, ExitInvalid, r.Summary.ExitCode)
	assert.Equal(t, 1, r.Summary.Baseline.IntroducedErrors)

	var out bytes.Buffer
	require.NoError(t, r.Write(SARIF, &out, &bytes.Buffer{}, "/repo"))
	var log struct {
		Runs []struct {
			Results []struct {
				BaselineState string `json:"baselineState"`
			} `json:"results"`
		} `json:"runs"`
	}
	require.NoError(t, json.Unmarshal(out.Bytes(), &log))
	var states []string
	for _, res := range log.Runs[0].Results {
		states = append(states, res.BaselineState)
	}
	assert.Equal(t, []string{"unchanged", "new", "absent"}, states)
}

// TestFindingsExitZero: findings exit 0 (the audit's
// --exit-code-on-findings=false) and stay counted; an input error still
// exits 2.
func TestFindingsExitZero(t *testing.T) {
	invalid := &judge.Verdict{Results: []judge.Result{{Namespace: "a", Name: "b",
		Errors: []judge.FieldError{{Field: "spec.x", Type: "FieldValueInvalid", Message: "spec.x: bad"}}}}}
	r := New(invalid)
	require.Equal(t, ExitInvalid, r.Summary.ExitCode)
	r.FindingsExitZero()
	assert.Equal(t, Summary{Invalid: 1, ExitCode: ExitValid}, r.Summary)

	invalid.Notes = []judge.Note{{InputError: &read.InputError{Message: "listing ListenerSets: forbidden"}}}
	r = New(invalid)
	r.FindingsExitZero()
	assert.Equal(t, ExitInputError, r.Summary.ExitCode, "a run that failed")
}
