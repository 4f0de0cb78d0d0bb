package validation

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/validation/internal/fixture"
	"github.com/airlock/listenerset-webhook/validation/internal/incluster"
	"github.com/airlock/listenerset-webhook/validation/internal/object"
)

// overlapWarning is the warning of listener i (cluster_test.go has one
// written out).
func overlapWarning(i int, host, otherHost, other string, port int) string {
	return fmt.Sprintf("spec.listeners[%d].hostname: "+object.WarnOverlappingHostnames, i, host, otherHost, other, port)
}

// TestOverlapsWithinSet: the set's own rule (LS205, no cluster) warns on
// every listener of the set that overlaps another of it on the same port,
// naming the first such one; never an error.
func TestOverlapsWithinSet(t *testing.T) {
	for _, tc := range []struct {
		name      string
		listeners []gwv1.ListenerEntry
		want      []string
	}{{
		name: "A foo.example.com, B foo.example.org, C *.example.com: A and C, not B",
		listeners: []gwv1.ListenerEntry{
			fixture.WithCert(fixture.Entry("a", 443, "HTTPS", "foo.example.com"), "", "cert"),
			fixture.WithCert(fixture.Entry("b", 443, "HTTPS", "foo.example.org"), "", "cert"),
			fixture.WithCert(fixture.Entry("c", 443, "HTTPS", "*.example.com"), "", "cert"),
		},
		want: []string{
			overlapWarning(0, `"foo.example.com"`, `"*.example.com"`, "team-a/set listener c", 443),
			overlapWarning(2, `"*.example.com"`, `"foo.example.com"`, "team-a/set listener a", 443),
		},
	}, {
		name: "nested wildcards",
		listeners: []gwv1.ListenerEntry{
			fixture.WithCert(fixture.Entry("outer", 443, "HTTPS", "*.example.com"), "", "cert"),
			fixture.WithCert(fixture.Entry("inner", 443, "HTTPS", "*.foo.example.com"), "", "cert"),
		},
		want: []string{
			overlapWarning(0, `"*.example.com"`, `"*.foo.example.com"`, "team-a/set listener inner", 443),
			overlapWarning(1, `"*.foo.example.com"`, `"*.example.com"`, "team-a/set listener outer", 443),
		},
	}, {
		name: "a wildcard and no hostname, HTTP/3",
		listeners: []gwv1.ListenerEntry{
			fixture.WithCert(fixture.Entry("any", 443, object.ProtocolHTTP3, ""), "", "cert"),
			fixture.WithCert(fixture.Entry("wild", 443, object.ProtocolHTTP3, "*.example.com"), "", "cert"),
		},
		want: []string{
			overlapWarning(0, "(none)", `"*.example.com"`, "team-a/set listener wild", 443),
			overlapWarning(1, `"*.example.com"`, "(none)", "team-a/set listener any", 443),
		},
	}, {
		name: "no overlap on different ports, over cleartext HTTP, or with a Conflicted listener",
		listeners: []gwv1.ListenerEntry{
			fixture.WithCert(fixture.Entry("a", 443, "HTTPS", "foo.example.com"), "", "cert"),
			fixture.WithCert(fixture.Entry("c", 8443, "HTTPS", "*.example.com"), "", "cert"),
			fixture.Entry("plain", 80, "HTTP", ""),
			fixture.Entry("plain-foo", 80, "HTTP", "foo.example.com"),
			fixture.Entry("clash", 443, "HTTP", "*.example.com"), // ProtocolConflict: an error, no place
		},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			ls := fixture.Attached("team-a", "set", 1, tc.listeners...)
			errs, warnings := Validate(ls, nil, Options{})
			var got []string
			for _, w := range codedWarnings(t, warnings) {
				if w.Kind == object.KindOverlappingHostnames {
					assert.Equal(t, object.CodeOverlappingHostnames, w.Code)
					got = append(got, w.String())
				}
			}
			assert.Equal(t, tc.want, got)
			for _, e := range errs {
				assert.NotContains(t, e.Error(), object.ConditionOverlappingTLSConfig, "an overlap is never an error")
			}
		})
	}
}

// TestOverlapsInMergedList: in the Gateway's merged list every Accepted
// HTTPS or HTTP/3 listener whose hostname overlaps another's on its port
// names the first such listener (of another object, if there is one), both
// listeners of each pair; the cluster-aware rule warns a set (LS307, never
// an error, not even under strict) about those of other objects.
func TestOverlapsInMergedList(t *testing.T) {
	const gwName = "gateway-ns/gw "
	type overlapRow struct{ listener, overlaps string }
	for _, tc := range []struct {
		name string
		gw   []gwv1.Listener
		sets []*gwv1.ListenerSet
		want []overlapRow
		// the warnings the cluster-aware rule gives the set "team-x/new"
		warnings []string
	}{{
		name: "A foo.example.com on the Gateway, B foo.example.org and C *.example.com in sets",
		gw:   []gwv1.Listener{fixture.GatewayListener("a", 443, "HTTPS", "foo.example.com")},
		sets: []*gwv1.ListenerSet{
			fixture.Attached("team-b", "b", 1, fixture.WithCert(fixture.Entry("b", 443, "HTTPS", "foo.example.org"), "", "cert")),
			fixture.Attached("team-x", "new", 2, fixture.WithCert(fixture.Entry("c", 443, "HTTPS", "*.example.com"), "", "cert")),
		},
		want:     []overlapRow{{gwName + "a", "team-x/new c"}, {"team-b/b b", ""}, {"team-x/new c", gwName + "a"}},
		warnings: []string{overlapWarning(0, `"*.example.com"`, `"foo.example.com"`, gwName+"listener a", 443)},
	}, {
		name: "nested wildcards across sets, a later set overlapping an earlier one",
		sets: []*gwv1.ListenerSet{
			fixture.Attached("team-x", "new", 1, fixture.WithCert(fixture.Entry("inner", 443, "HTTPS", "*.foo.example.com"), "", "cert")),
			fixture.Attached("team-b", "outer", 2, fixture.WithCert(fixture.Entry("outer", 443, "HTTPS", "*.example.com"), "", "cert")),
		},
		want:     []overlapRow{{"team-x/new inner", "team-b/outer outer"}, {"team-b/outer outer", "team-x/new inner"}},
		warnings: []string{overlapWarning(0, `"*.foo.example.com"`, `"*.example.com"`, "team-b/outer listener outer", 443)},
	}, {
		name: "a name under the set's wildcard in a later set (found on the port, not by key)",
		sets: []*gwv1.ListenerSet{
			fixture.Attached("team-x", "new", 1, fixture.WithCert(fixture.Entry("wild", 443, "HTTPS", "*.example.com"), "", "cert")),
			fixture.Attached("team-b", "foo", 2, fixture.WithCert(fixture.Entry("foo", 443, "HTTPS", "foo.bar.example.com"), "", "cert")),
		},
		want:     []overlapRow{{"team-x/new wild", "team-b/foo foo"}, {"team-b/foo foo", "team-x/new wild"}},
		warnings: []string{overlapWarning(0, `"*.example.com"`, `"foo.bar.example.com"`, "team-b/foo listener foo", 443)},
	}, {
		name: "a wildcard and no hostname; the other object's first, before the set's own",
		gw:   []gwv1.Listener{fixture.GatewayListener("any", 443, "HTTPS", "")},
		sets: []*gwv1.ListenerSet{fixture.Attached("team-x", "new", 1,
			fixture.WithCert(fixture.Entry("wild", 443, "HTTPS", "*.example.com"), "", "cert"),
			fixture.WithCert(fixture.Entry("foo", 443, "HTTPS", "foo.example.com"), "", "cert"))},
		want: []overlapRow{{gwName + "any", "team-x/new wild"}, {"team-x/new wild", gwName + "any"}, {"team-x/new foo", gwName + "any"}},
		warnings: []string{
			overlapWarning(0, `"*.example.com"`, `"foo.example.com"`, "team-x/new listener foo", 443), // the set's own (LS205)
			overlapWarning(1, `"foo.example.com"`, `"*.example.com"`, "team-x/new listener wild", 443),
			overlapWarning(0, `"*.example.com"`, "(none)", gwName+"listener any", 443), // with the Gateway (LS307)
			overlapWarning(1, `"foo.example.com"`, "(none)", gwName+"listener any", 443),
		},
	}, {
		name: "Conflicted and cleartext listeners have none; other ports none",
		gw:   []gwv1.Listener{fixture.GatewayListener("plain", 80, "HTTP", "")},
		sets: []*gwv1.ListenerSet{
			fixture.Attached("team-b", "old", 1, fixture.WithCert(fixture.Entry("foo", 443, "HTTPS", "foo.example.com"), "", "cert")),
			fixture.Attached("team-x", "new", 2,
				fixture.Entry("web", 80, "HTTP", "foo.example.com"),
				fixture.WithCert(fixture.Entry("h3", 443, object.ProtocolHTTP3, "*.example.com"), "", "cert"), // ProtocolConflict
				fixture.WithCert(fixture.Entry("alt", 8443, "HTTPS", "*.example.com"), "", "cert")),
		},
		want: []overlapRow{{gwName + "plain", ""}, {"team-b/old foo", ""}, {"team-x/new web", ""}, {"team-x/new h3", ""}, {"team-x/new alt", ""}},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			g := fixture.Gateway(gwv1.NamespacesFromAll, tc.gw...)
			o := &incluster.Objects{Gateways: []*gwv1.Gateway{g}, Sets: tc.sets}
			var got []overlapRow
			for _, r := range incluster.MergedListeners(g, tc.sets, incluster.MergeOptions{Cluster: o}) {
				row := overlapRow{listener: r.Source.String() + " " + string(r.Listener)}
				if r.Overlaps != nil {
					row.overlaps = r.Overlaps.Source.String() + " " + string(r.Overlaps.Listener)
				}
				got = append(got, row)
			}
			assert.Equal(t, tc.want, got)

			var ls *gwv1.ListenerSet
			for _, s := range tc.sets {
				if s.Name == "new" {
					ls = s
				}
			}
			errs, warnings := Validate(ls, nil, Options{Cluster: o, Strict: true})
			for _, e := range errs {
				assert.NotContains(t, e.Error(), object.ConditionOverlappingTLSConfig, "an overlap is never an error, not even under strict")
			}
			var overlaps []string
			for _, w := range codedWarnings(t, warnings) {
				switch w.Kind {
				case object.KindOverlappingHostnames, object.KindMergedOverlappingHostnames:
					overlaps = append(overlaps, w.String())
				}
			}
			assert.Equal(t, tc.warnings, overlaps)
		})
	}
}
