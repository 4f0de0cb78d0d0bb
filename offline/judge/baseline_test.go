package judge_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/offline/judge"
	"github.com/airlock/listenerset-webhook/offline/read"
	"github.com/airlock/listenerset-webhook/validation"
	vt "github.com/airlock/listenerset-webhook/validation/validationtest"
)

// TestCompare: a finding the live set of the same name has is unchanged,
// one it lacks introduced (all of a set the cluster does not hold), one
// only the live set has is fixed; a cluster-only set is added only when
// its findings changed.
func TestCompare(t *testing.T) {
	e := func(field, msg string) judge.FieldError {
		return judge.FieldError{Field: field, Type: "FieldValueInvalid", Message: msg}
	}
	w := func(msg string) read.Warning {
		return read.Warning{Field: "spec", Kind: "ClusterFinding", Message: msg}
	}
	v := &judge.Verdict{Results: []judge.Result{
		{Namespace: "a", Name: "changed", Errors: []judge.FieldError{e("x", "kept"), e("y", "new")}, Warnings: []read.Warning{w("kept")}},
		{Namespace: "a", Name: "created", Errors: []judge.FieldError{e("x", "kept")}},
	}}
	live := &judge.Verdict{Results: []judge.Result{
		{Namespace: "a", Name: "changed", Errors: []judge.FieldError{e("x", "kept"), e("z", "gone")}, Warnings: []read.Warning{w("kept"), w("gone")}},
		{Namespace: "a", Name: "quiet", Warnings: []read.Warning{w("same")}},
		{Namespace: "a", Name: "hit"},
	}}
	others := &judge.Verdict{Results: []judge.Result{
		{Namespace: "a", Name: "quiet", Warnings: []read.Warning{w("same")}},
		{Namespace: "a", Name: "hit", Warnings: []read.Warning{w("conflict")}},
	}}
	judge.Compare(v, live, others)
	assert.True(t, v.Compared)
	require.Len(t, v.Results, 3, "the cluster-only set whose findings changed is added, the unchanged one not")
	c := v.Results[0]
	assert.Equal(t, []judge.Baseline{judge.Unchanged, judge.Introduced}, []judge.Baseline{c.Errors[0].Baseline, c.Errors[1].Baseline})
	assert.Equal(t, string(judge.Unchanged), c.Warnings[0].Baseline)
	require.NotNil(t, c.Fixed)
	assert.Equal(t, []judge.FieldError{{Field: "z", Type: "FieldValueInvalid", Message: "gone", Baseline: judge.Fixed}}, c.Fixed.Errors)
	assert.Equal(t, []read.Warning{{Field: "spec", Kind: "ClusterFinding", Message: "gone", Baseline: string(judge.Fixed)}}, c.Fixed.Warnings)
	assert.Equal(t, judge.Introduced, v.Results[1].Errors[0].Baseline, "no live object: everything is introduced")
	assert.Nil(t, v.Results[1].Fixed)
	assert.Equal(t, "hit", v.Results[2].Name)
	assert.Equal(t, string(judge.Introduced), v.Results[2].Warnings[0].Baseline)
}

// TestRunOverCluster: with Options.Cluster, the input's objects replace
// the cluster's of the same name; the cluster's other sets are rivals;
// an input set that replaces a stored one keeps its creation time, and so
// its place before a newer stored rival.
func TestRunOverCluster(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	stored := vt.TenantSet("team-a", "app", t0, vt.Listener("web", 8080, gwv1.HTTPProtocolType, "a.example.com"))
	newer := vt.TenantSet("team-b", "rival", t0.Add(time.Second), vt.Listener("web", 8080, gwv1.HTTPProtocolType, "a.example.com"))
	other := vt.TenantSet("team-b", "other", t0, vt.Listener("web", 9090, gwv1.HTTPProtocolType, "b.example.com"))
	cluster := &validation.Objects{Gateways: []*gwv1.Gateway{vt.SharedGateway()}, Sets: []*gwv1.ListenerSet{stored, newer, other},
		Namespaces: []*metav1.PartialObjectMetadata{}, Grants: []*gwv1.ReferenceGrant{}}

	input := setYAML("team-a", "app", 8080, "a.example.com") + "---\n" + setYAML("team-c", "new", 9090, "b.example.com")
	in := readString(t, input)
	v := judge.Run(in, judge.Options{Cluster: cluster, Strict: true})
	require.Len(t, v.Results, 2)
	assert.True(t, v.Results[0].Valid, "app keeps its creation time and wins over the newer stored rival: %+v", v.Results[0])
	assert.False(t, v.Results[1].Valid, "the new set loses 9090 to the stored team-b/other")
	assert.Equal(t, t0, v.Sets[0].CreationTimestamp.Time.UTC())
	names := []string{}
	for _, ls := range v.Objects.Sets {
		names = append(names, ls.Namespace+"/"+ls.Name)
	}
	assert.Equal(t, []string{"team-b/rival", "team-b/other", "team-a/app"}, names, "the stored sets the input does not replace, then the input's valid ones")

	// The input's Gateway replaces the cluster's: one that admits nothing.
	gw := "---\napiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: shared, namespace: gateway-infra}\nspec:\n  gatewayClassName: airlock\n  listeners:\n  - {name: http, port: 80, protocol: HTTP}\n"
	v = judge.Run(readString(t, input+gw), judge.Options{Cluster: cluster})
	require.Len(t, v.Objects.Gateways, 1)
	assert.Nil(t, v.Objects.Gateways[0].Spec.AllowedListeners)
	require.NotEmpty(t, v.Results[0].Warnings)
	assert.Contains(t, v.Results[0].Warnings[0].Message, "NotAllowed")
}

func readString(t *testing.T, s string) *read.Input {
	t.Helper()
	return read.Paths([]string{"-"}, strings.NewReader(s))
}

// setYAML is a ListenerSet of the shared Gateway with one HTTP listener.
func setYAML(namespace, name string, port int, hostname string) string {
	return fmt.Sprintf(`apiVersion: gateway.networking.k8s.io/v1
kind: ListenerSet
metadata: {name: %s, namespace: %s}
spec:
  parentRef: {name: shared, namespace: gateway-infra}
  listeners:
  - {name: web, port: %d, protocol: HTTP, hostname: %s}
`, name, namespace, port, hostname)
}
