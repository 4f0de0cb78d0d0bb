package listing

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/airlock/listenerset-webhook/validation"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
	"sigs.k8s.io/yaml"

	"github.com/airlock/listenerset-webhook/test/golden"
)

func input(name string) string { return filepath.Join("testdata", name) }

// The golden files hold the exit code, stdout and stderr of one run, so a
// reviewer sees what a user would.
func TestListenersGolden(t *testing.T) {
	tests := []struct {
		golden  string
		paths   []string
		gateway string
		format  Format
		exit    int
		scope   validation.Scope
	}{
		{"table", []string{input("merged.yaml")}, "", Table, ExitOK, validation.Scope{}},
		{"wide", []string{input("merged.yaml")}, "", Wide, ExitOK, validation.Scope{}},
		{"json", []string{input("merged.yaml")}, "", JSON, ExitOK, validation.Scope{}},
		{"gateway", []string{input("merged.yaml"), input("offline-only.yaml")}, "infra/gw", Table, ExitOK, validation.Scope{}},
		{"gateway-not-found", []string{input("merged.yaml")}, "lst-infra/nope", Table, ExitNotFound, validation.Scope{}},
		{"offline-only", []string{input("offline-only.yaml")}, "", Wide, ExitOK, validation.Scope{}},
		{"offline-only-json", []string{input("offline-only.yaml")}, "", JSON, ExitOK, validation.Scope{}},
		{"missing-file", []string{input("missing.yaml"), input("offline-only.yaml")}, "", Table, ExitInputError, validation.Scope{}},
		{"no-gateways", []string{input("missing.yaml")}, "", Table, ExitInputError, validation.Scope{}},
		// Two implementations' GatewayClasses and a class the input does
		// not hold: another implementation's Gateway is left out; the
		// unknown class's follows --unknown-parent.
		{"scope", []string{scopeInput}, "", Table, ExitOK, airlockScope(validation.UnknownJudge)},
		{"scope-admit", []string{scopeInput}, "", Wide, ExitOK, airlockScope(validation.UnknownAdmit)},
		{"scope-json", []string{scopeInput}, "", JSON, ExitOK, airlockScope(validation.UnknownJudge)},
		{"scope-all", []string{scopeInput}, "", Table, ExitOK, validation.Scope{}},
		{"scope-gateway-left-out", []string{scopeInput}, "infra/envoy-gw", Table, ExitOK, airlockScope(validation.UnknownJudge)},
		// Each listener's attachedRoutes, where the input has routes.
		{"routes", []string{input("routes.yaml")}, "", Table, ExitOK, validation.Scope{}},
		{"routes-json", []string{input("routes.yaml")}, "", JSON, ExitOK, validation.Scope{}},
	}
	for _, tt := range tests {
		t.Run(tt.golden, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := Run(context.Background(), Options{Paths: tt.paths, Gateway: tt.gateway, Format: tt.format, Scope: tt.scope,
				Stdout: &stdout, Stderr: &stderr})
			got := fmt.Sprintf("paths: %s\ngateway: %q\nformat: %q\nexit: %d\n--- stdout\n%s--- stderr\n%s",
				strings.Join(tt.paths, " "), tt.gateway, tt.format, code, stdout.String(), stderr.String())
			golden.Assert(t, filepath.Join("testdata", "golden", tt.golden+".txt"), got)
			assert.Equal(t, tt.exit, code, "exit code")
			if tt.format == JSON {
				var l Listing
				require.NoError(t, json.Unmarshal(stdout.Bytes(), &l), "stdout is one JSON document")
				assert.Empty(t, stderr.String(), "nothing on stderr with -o json")
			}
		})
	}
}

// scopeInput holds Airlock's GatewayClass and Envoy Gateway's, a Gateway
// of each and one of a class it does not hold, each with the same set.
var scopeInput = filepath.Join("..", "cmd", "kubectl-listenerset", "testdata", "input", "scope.yaml")

// airlockScope is the command's default scope with unknown.
func airlockScope(unknown validation.UnknownParent) validation.Scope {
	return validation.Scope{ControllerNames: []gwv1.GatewayController{validation.AirlockControllerName}, Unknown: unknown}
}

// The fixture the golden files and the end-to-end test share has a listener
// in every state a cluster can show, and both conflict reasons.
func TestFixtureCoversEveryState(t *testing.T) {
	o, errs := FromManifests([]string{input("merged.yaml")}, nil, nil, validation.Scope{}, validation.Tenancy{})
	require.Empty(t, errs)
	l, found := Build(o, "lst-infra/shared")
	require.True(t, found)
	require.Len(t, l.Gateways, 1)
	seen := map[string]bool{}
	for _, r := range l.Gateways[0].Listeners {
		seen[r.State+" "+r.Reason] = true
		seen[r.State] = true
	}
	for _, want := range []validation.ListenerState{validation.ListenerAccepted, validation.ListenerConflicted,
		validation.ListenerNotAllowed, validation.ListenerInvalid, validation.ListenerUnsupportedProtocol} {
		assert.True(t, seen[string(want)], "no %s listener", want)
	}
	for _, reason := range []string{validation.ReasonHostnameConflict, validation.ReasonProtocolConflict} {
		assert.True(t, seen["Conflicted "+reason], "no %s", reason)
	}
	assert.True(t, seen["NotAllowed allowedListeners.namespaces.selector: gateway-access=yes"])
}

// The rows are MergedListeners', one to one: the listing adds no decision.
func TestRowsAreMergedListeners(t *testing.T) {
	in, _ := FromManifests([]string{input("merged.yaml")}, nil, nil, validation.Scope{}, validation.Tenancy{})
	l, _ := Build(in, "")
	o := in.Objects
	gw, _ := o.Gateway("lst-infra", "shared")
	sets, _ := o.ListenerSetsOf("lst-infra", "shared")
	rows := validation.MergedListeners(gw, sets, validation.MergeOptions{Cluster: o, JudgeSets: true})
	require.Len(t, l.Gateways[0].Listeners, len(rows))
	for i, r := range rows {
		got := l.Gateways[0].Listeners[i]
		assert.Equal(t, r.Precedence, got.Precedence)
		assert.Equal(t, string(r.State), got.State)
		assert.Equal(t, string(r.Listener), got.Name)
		assert.Equal(t, r.Source.Name, got.Source.Name)
	}
}

// TestReportedGolden: from a cluster's objects, which keep their status
// (Input.Reported, as FromCluster sets it), every row shows what its status
// reports and marks where it parts from the prediction: agreeing, another
// state, other attachedRoutes, nothing reported (no entry, the CRD's
// Pending, a status of an older generation); a controller's reason and
// message with control characters are escaped in the table. The same
// objects as manifests (FromManifests) show no status.
func TestReportedGolden(t *testing.T) {
	in := clusterInput(t, input("reported.yaml"))
	for _, f := range []Format{Table, Wide, JSON} {
		name := "reported"
		if f != Table {
			name += "-" + string(f)
		}
		t.Run(name, func(t *testing.T) {
			l, _ := Build(in, "")
			var stdout bytes.Buffer
			require.NoError(t, Write(&stdout, l, f))
			golden.Assert(t, filepath.Join("testdata", "golden", name+".txt"), stdout.String())
			assert.NotContains(t, stdout.String(), "\x1b", "a controller's escape sequence reaches the terminal")
		})
	}
	l, _ := Build(in, "")
	marks := map[string]string{}
	for _, r := range l.Gateways[0].Listeners {
		require.NotNil(t, r.Reported, "%s %s", r.Source, r.Name)
		if r.Difference != nil {
			marks[r.Source.Name+" "+r.Name] = string(r.Difference.Kind)
		}
	}
	assert.Equal(t, map[string]string{"gw admin": "NotReported", "differs api": "Differs", "differs docs": "Differs",
		"none web": "NotReported", "stale web": "NotReported", "hostile web": "Differs"}, marks)

	offline, errs := FromManifests([]string{input("reported.yaml")}, nil, nil, validation.Scope{}, validation.Tenancy{})
	require.Empty(t, errs)
	lo, _ := Build(offline, "")
	for _, r := range lo.Gateways[0].Listeners {
		assert.Nil(t, r.Reported, "manifests: %s %s", r.Source, r.Name)
		assert.Nil(t, r.Difference, "manifests: %s %s", r.Source, r.Name)
	}
	var table bytes.Buffer
	require.NoError(t, Write(&table, lo, Table))
	assert.NotContains(t, table.String(), "REPORTED")
}

// clusterInput is the Input FromCluster builds of the objects of path, as
// a cluster stores them (status included).
func clusterInput(t *testing.T, path string) *Input {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	o := &validation.Objects{Gateways: []*gwv1.Gateway{}, Sets: []*gwv1.ListenerSet{}, Routes: []*gwv1.HTTPRoute{}, Namespaces: []*metav1.PartialObjectMetadata{}}
	for _, doc := range strings.Split(string(data), "\n---\n") {
		var head metav1.TypeMeta
		require.NoError(t, yaml.Unmarshal([]byte(doc), &head))
		var obj any
		switch head.Kind {
		case "Gateway":
			gw := &gwv1.Gateway{}
			o.Gateways, obj = append(o.Gateways, gw), gw
		case "ListenerSet":
			ls := &gwv1.ListenerSet{}
			o.Sets, obj = append(o.Sets, ls), ls
		case "HTTPRoute":
			r := &gwv1.HTTPRoute{}
			o.Routes, obj = append(o.Routes, r), r
		default:
			t.Fatalf("%s: kind %q", path, head.Kind)
		}
		require.NoError(t, yaml.UnmarshalStrict([]byte(doc), obj))
	}
	in := judgedByOwnRules(o, nil)
	in.Reported = true
	return in
}
