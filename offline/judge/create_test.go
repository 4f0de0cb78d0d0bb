package judge_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/airlock/listenerset-webhook/validation"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/offline/judge"
	vt "github.com/airlock/listenerset-webhook/validation/validationtest"
)

// withTimestamp is a set of setYAML whose manifest carries created.
func withTimestamp(namespace, name string, port int, hostname, created string) string {
	return strings.Replace(setYAML(namespace, name, port, hostname), "namespace: "+namespace+"}",
		"namespace: "+namespace+", creationTimestamp: \""+created+"\"}", 1)
}

// TestCreateTimestamp: an input set judged as a create has kube-apiserver's
// creationTimestamp (Options.Now), not its manifest's, which kube-apiserver
// overwrites; so a manifest dated 2020 is not the oldest holder. One that
// replaces a stored set is an update and keeps the stored one's, whatever
// its manifest says. Without a cluster, the input's sets are all created
// now and admitted by namespace/name.
func TestCreateTimestamp(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	now := time.Date(2026, 12, 7, 12, 0, 0, 500, time.UTC)
	clock := func() time.Time { return now }
	stored := vt.TenantSet("team-a", "app", t0, vt.Listener("web", 8080, gwv1.HTTPProtocolType, "a.example.com"))
	cluster := &validation.Objects{Gateways: []*gwv1.Gateway{vt.SharedGateway()}, Sets: []*gwv1.ListenerSet{stored},
		Namespaces: []*metav1.PartialObjectMetadata{}, Grants: []*gwv1.ReferenceGrant{}}

	input := withTimestamp("team-b", "squat", 8080, "a.example.com", "2020-01-01T00:00:00Z") + "---\n" +
		withTimestamp("team-a", "app", 8080, "a.example.com", "2030-01-01T00:00:00Z")
	v := judge.Run(readString(t, input), judge.Options{Cluster: cluster, Strict: true, Now: clock})
	require.Len(t, v.Results, 2)
	assert.Equal(t, now.Truncate(time.Second), v.Sets[0].CreationTimestamp.Time.UTC(), "a create is created now, to the second")
	assert.False(t, v.Results[0].Valid, "squat is newer than the stored app, whatever its manifest says: %+v", v.Results[0])
	assert.Equal(t, t0, v.Sets[1].CreationTimestamp.Time.UTC(), "an update keeps the stored creationTimestamp")
	assert.True(t, v.Results[1].Valid, "%+v", v.Results[1])

	// No cluster: both are creates, created now; a/app is admitted first
	// by namespace/name and holds the name against the manifest dated
	// 2020.
	offlineOnly := withTimestamp("z", "squat", 8080, "a.example.com", "2020-01-01T00:00:00Z") + "---\n" + setYAML("a", "app", 8080, "a.example.com") +
		"---\napiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: shared, namespace: gateway-infra}\nspec:\n  gatewayClassName: airlock\n" +
		"  allowedListeners: {namespaces: {from: All}}\n  listeners:\n  - {name: http, port: 80, protocol: HTTP}\n"
	v = judge.Run(readString(t, offlineOnly), judge.Options{Strict: true, Now: clock})
	require.Len(t, v.Results, 2)
	assert.False(t, v.Results[0].Valid, "z/squat's manifest date counts for nothing: %+v", v.Results[0])
	assert.True(t, v.Results[1].Valid, "%+v", v.Results[1])

	// The listeners command lists stored objects: their timestamps stand.
	v = judge.Run(readString(t, offlineOnly), judge.Options{Strict: true, Now: clock, KeepCreationTimestamps: true})
	assert.True(t, v.Results[0].Valid, "kept, z/squat's 2020 is the oldest: %+v", v.Results[0])
	assert.False(t, v.Results[1].Valid)
}

// TestCreateNamespace: a namespaced object without a namespace is in
// Options.Namespace (kubectl's -n, or its context's), else "default": its
// Namespace's declaration applies, and its parentRef without a namespace
// finds a Gateway without one.
func TestCreateNamespace(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("testdata", "no-namespace.yaml"))
	require.NoError(t, err)
	input := string(raw)
	v := judge.Run(readString(t, input), judge.Options{Namespace: "team-b"})
	require.Len(t, v.Results, 1)
	require.NotNil(t, v.Sets[0])
	assert.Equal(t, "team-b", v.Sets[0].Namespace)
	require.False(t, v.Results[0].Valid, "team-b's declaration applies")
	assert.Contains(t, v.Results[0].Errors[0].Message, `Namespace "team-b" declares`)
	assert.Empty(t, v.Results[0].Warnings, "its Gateway, in team-b too, is found and admits it")

	v = judge.Run(readString(t, input), judge.Options{})
	assert.Equal(t, "default", v.Sets[0].Namespace)
	assert.True(t, v.Results[0].Valid, "Namespace default declares nothing: %+v", v.Results[0])
	assert.Empty(t, v.Results[0].Warnings)
}

// TestUpdateOverCluster: an input set that replaces a stored one is judged
// as the webhook judges the update: a hostname its Namespace's declaration
// (made after it was stored) leaves out is ratcheted while the set stays on
// its Gateway, and denied when the input moves it there from another
// Gateway (attaching is claiming: nothing held elsewhere is grandfathered);
// a squatter's stored claim over an older owner is ratcheted under deny,
// and the older owner's unchanged set is not blamed for it.
func TestUpdateOverCluster(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	declared := &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Name: "team-b",
		Annotations: map[string]string{validation.DefaultAllowedHostnamesAnnotation: "*.b.example.com"}}}
	cluster := func(storedB *gwv1.ListenerSet) *validation.Objects {
		return &validation.Objects{Gateways: []*gwv1.Gateway{vt.SharedGateway()},
			Sets: []*gwv1.ListenerSet{
				vt.TenantSet("team-a", "app", t0, vt.Listener("web", 8080, gwv1.HTTPProtocolType, "*.a.example.com")), storedB},
			Namespaces: []*metav1.PartialObjectMetadata{{ObjectMeta: metav1.ObjectMeta{Name: "team-a"}}, declared}, Grants: []*gwv1.ReferenceGrant{}}
	}
	squat := vt.TenantSet("team-b", "squat", t0.Add(time.Minute), vt.Listener("web", 8080, gwv1.HTTPProtocolType, "login.a.example.com"))
	opts := func(c *validation.Objects) judge.Options {
		return judge.Options{Cluster: c, Tenancy: validation.Tenancy{FirstClaim: validation.ClaimDeny}}
	}

	v := judge.Run(readString(t, setYAML("team-b", "squat", 8080, "login.a.example.com")), opts(cluster(squat)))
	require.Len(t, v.Results, 1, "%+v", v.Notes)
	assert.True(t, v.Results[0].Valid, "staying: ratcheted: %+v", v.Results[0])

	elsewhere := squat.DeepCopy()
	elsewhere.Spec.ParentRef.Name = "parked"
	v = judge.Run(readString(t, setYAML("team-b", "squat", 8080, "login.a.example.com")), opts(cluster(elsewhere)))
	require.Len(t, v.Results, 1)
	assert.False(t, v.Results[0].Valid, "moved here: judged as a create")
	var codes []string
	for _, e := range v.Results[0].Errors {
		codes = append(codes, e.Code)
	}
	assert.ElementsMatch(t, []string{string(validation.CodeHostnameNotDeclared), string(validation.CodeHostnameClaimed)}, codes, "%+v", v.Results[0])

	v = judge.Run(readString(t, setYAML("team-a", "app", 8080, `"*.a.example.com"`)), opts(cluster(squat)))
	require.Len(t, v.Results, 1)
	assert.True(t, v.Results[0].Valid, "the older owner is not blamed: %+v", v.Results[0])
	assert.Empty(t, v.Results[0].Warnings, "%+v", v.Results[0])
}
