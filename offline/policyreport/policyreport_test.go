package policyreport

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/airlock/listenerset-webhook/validation"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/types"

	"github.com/airlock/listenerset-webhook/findings"
	"github.com/airlock/listenerset-webhook/offline/judge"
	"github.com/airlock/listenerset-webhook/offline/read"
)

// TestBuild: one report per namespace, also when the results do not come
// grouped; a fail result per error and a warn per warning, ruled by the
// code, with the set, its uid and the field; a pass for a set without
// findings; the summary counts them.
func TestBuild(t *testing.T) {
	now := time.Unix(1700000000, 5)
	results := []judge.Result{
		{Namespace: "a", Name: "bad", Errors: []judge.FieldError{{Field: "spec.listeners[1].name", Code: "LS104", Message: "dup"}},
			Warnings: []read.Warning{{Field: "spec.listeners[0].tls.options[x/y]", Code: "LS202", Message: "other"}}},
		{Namespace: "b", Name: "ok", Valid: true},
		{Namespace: "a", Name: "ok", Valid: true},
	}
	uids := map[types.NamespacedName]types.UID{{Namespace: "a", Name: "bad"}: "uid-1"}
	rs := Build(results, uids, now)
	require.Len(t, rs, 2)
	a, b := rs[0], rs[1]
	assert.Equal(t, Metadata{Name: ReportName, Namespace: "a", Labels: map[string]string{ManagedByLabel: ManagedBy}}, a.Metadata)
	assert.Equal(t, "wgpolicyk8s.io/v1alpha2", a.APIVersion)
	assert.Equal(t, Summary{Pass: 1, Fail: 1, Warn: 1}, a.Summary)
	require.Len(t, a.Results, 3)
	fail := a.Results[0]
	assert.Equal(t, ResultFail, fail.Result)
	assert.Equal(t, "LS104", fail.Rule)
	assert.Equal(t, "Duplicate listener name", fail.Category)
	assert.Equal(t, "dup", fail.Message)
	assert.Equal(t, "spec.listeners[1].name", fail.Properties["field"])
	assert.Equal(t, findings.Code("LS104").HelpURI(), fail.Properties["help"])
	assert.Equal(t, []ObjectReference{{APIVersion: "gateway.networking.k8s.io/v1", Kind: "ListenerSet", Namespace: "a", Name: "bad", UID: "uid-1"}}, fail.Resources)
	assert.Equal(t, Timestamp{Seconds: 1700000000, Nanos: 5}, fail.Timestamp)
	assert.Equal(t, ResultWarn, a.Results[1].Result)
	assert.Equal(t, "LS202", a.Results[1].Rule)
	assert.Equal(t, ResultPass, a.Results[2].Result)
	assert.Equal(t, "ok", a.Results[2].Resources[0].Name)
	assert.Equal(t, Summary{Pass: 1}, b.Summary)
	assert.Empty(t, Build(nil, nil, now))
}

// TestBuildCapped: a namespace with more findings than MaxBytes holds gets
// results up to the cap and one LS001 result that counts the rest; the
// summary counts every finding, and the object stays far under etcd's
// 1.5 MiB.
func TestBuildCapped(t *testing.T) {
	const sets = 3000
	results := make([]judge.Result, sets)
	long := strings.Repeat("x", 1000)
	for i := range results {
		results[i] = judge.Result{Namespace: "big", Name: "s", Errors: []judge.FieldError{{Code: "LS104", Field: "spec.listeners[1].name", Message: long}},
			Warnings: []read.Warning{{Code: "LS202", Message: long}}}
	}
	rs := Build(results, nil, time.Now())
	require.Len(t, rs, 1)
	r := rs[0]
	assert.Equal(t, Summary{Fail: sets, Warn: sets}, r.Summary)
	last := r.Results[len(r.Results)-1]
	assert.Equal(t, string(findings.CodeMoreErrors), last.Rule)
	assert.Equal(t, ResultFail, last.Result)
	shown := len(r.Results) - 1
	assert.Contains(t, last.Message, "more results")
	assert.Less(t, shown, 2*sets)
	enc, err := json.Marshal(r)
	require.NoError(t, err)
	assert.LessOrEqual(t, len(enc), MaxBytes+4096, "results within MaxBytes")
	assert.Greater(t, len(enc), MaxBytes/2, "filled up to the cap")
	t.Logf("%d of %d results shown, %d bytes", shown, 2*sets, len(enc))
}

// TestBuildRoutes: a route's findings go to the report of the route's
// namespace, as warn results on the HTTPRoute, without a ListenerSet's uid
// of the same name.
func TestBuildRoutes(t *testing.T) {
	results := []judge.Result{
		{Namespace: "a", Name: "shop", Valid: true},
		{Kind: judge.KindHTTPRoute, Namespace: "b", Name: "shop", Valid: true,
			Warnings: []read.Warning{{Field: "spec.parentRefs[0]", Code: string(validation.CodeRouteNoMatchingParent), Message: "no listener"}}},
	}
	rs := Build(results, map[types.NamespacedName]types.UID{{Namespace: "b", Name: "shop"}: "set-uid"}, time.Now())
	require.Len(t, rs, 2)
	b := rs[1]
	assert.Equal(t, "b", b.Metadata.Namespace)
	require.Len(t, b.Results, 1)
	assert.Equal(t, ResultWarn, b.Results[0].Result)
	assert.Equal(t, string(validation.CodeRouteNoMatchingParent), b.Results[0].Rule)
	assert.Equal(t, []ObjectReference{{APIVersion: "gateway.networking.k8s.io/v1", Kind: "HTTPRoute", Namespace: "b", Name: "shop"}}, b.Results[0].Resources)
}

// TestBuildStatusFindings: the audit's status findings (LS017, LS018) are
// warn results ruled by their codes, their categories the codes' titles,
// the listener's path as the field; the set has no pass result.
func TestBuildStatusFindings(t *testing.T) {
	results := []judge.Result{{Namespace: "a", Name: "shop", Valid: true, Warnings: []read.Warning{
		{Field: "spec.listeners[0]", Kind: judge.KindStatusDiffers, Code: string(judge.CodeStatusDiffers), Message: "spec.listeners[0]: differs"},
		{Field: "spec.listeners[1]", Kind: judge.KindStatusNotReported, Code: string(judge.CodeStatusNotReported), Message: "spec.listeners[1]: nothing"},
	}}}
	rs := Build(results, nil, time.Unix(1700000000, 0))
	require.Len(t, rs, 1)
	assert.Equal(t, Summary{Warn: 2}, rs[0].Summary)
	var got []string
	for _, r := range rs[0].Results {
		got = append(got, string(r.Result)+" "+r.Rule+" "+r.Category+" "+r.Properties["field"])
	}
	assert.Equal(t, []string{"warn LS017 Listener status differs from the prediction spec.listeners[0]",
		"warn LS018 Listener status not reported spec.listeners[1]"}, got)
}
