package validation

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"k8s.io/apimachinery/pkg/util/validation/field"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/validation/internal/fixture"
	"github.com/airlock/listenerset-webhook/validation/internal/incluster"
	"github.com/airlock/listenerset-webhook/validation/internal/object"
)

// mergedRow is a merged listener as the tables below write it: its source
// and name, state, reason and winner ("namespace/name listener").
type mergedRow struct {
	listener string
	state    incluster.ListenerState
	reason   string
	winner   string
}

func mergedRowsOf(rows []incluster.MergedListener) []mergedRow {
	var out []mergedRow
	for _, r := range rows {
		g := mergedRow{listener: r.Source.String() + " " + string(r.Listener), state: r.State, reason: r.Reason}
		if r.Winner != nil {
			g.winner = r.Winner.Source.String() + " " + string(r.Winner.Listener)
		}
		out = append(out, g)
	}
	return out
}

// TestMergedListSpecExamples: the merged list follows Gateway API's text
// where the first-wins rule does not say it all (docs/listeners.md quotes
// it): a listener of a protocol Airlock does not serve "will never
// generate any data plane config", so it holds no port and blames no other;
// among a Gateway's own indistinct listeners "The implementation MUST NOT
// pick one conflicting Listener as the winner", and they still come before
// every ListenerSet.
func TestMergedListSpecExamples(t *testing.T) {
	const gw = "gateway-ns/gw "
	for _, tc := range []struct {
		name string
		gw   []gwv1.Listener
		sets []*gwv1.ListenerSet
		want []mergedRow
	}{{
		// the example: {first, 81, SCTP}, {second, 81, HTTP}
		name: "a set's SCTP listener holds no port",
		sets: []*gwv1.ListenerSet{fixture.Attached("team-a", "set", 1, fixture.Entry("first", 81, "SCTP", ""), fixture.Entry("second", 81, "HTTP", ""))},
		want: []mergedRow{
			{"team-a/set first", incluster.ListenerUnsupportedProtocol, incluster.ReasonServedProtocols, ""},
			{"team-a/set second", incluster.ListenerAccepted, "", ""},
		},
	}, {
		name: "a Gateway's SCTP listener holds no port",
		gw:   []gwv1.Listener{fixture.GatewayListener("first", 81, "SCTP", "")},
		sets: []*gwv1.ListenerSet{fixture.Attached("team-a", "set", 1, fixture.Entry("second", 81, "HTTP", ""))},
		want: []mergedRow{
			{gw + "first", incluster.ListenerUnsupportedProtocol, incluster.ReasonServedProtocols, ""},
			{"team-a/set second", incluster.ListenerAccepted, "", ""},
		},
	}, {
		name: "an older set's TCP listener holds no port against a later set",
		sets: []*gwv1.ListenerSet{
			fixture.Attached("team-a", "tcp", 1, fixture.Entry("db", 443, "TCP", "")),
			fixture.Attached("team-b", "web", 2, fixture.WithCert(fixture.Entry("https", 443, "HTTPS", ""), "", "cert")),
		},
		want: []mergedRow{
			{"team-a/tcp db", incluster.ListenerUnsupportedProtocol, incluster.ReasonServedProtocols, ""},
			{"team-b/web https", incluster.ListenerAccepted, "", ""},
		},
	}, {
		name: "the first set on a port with a protocol Airlock serves holds it, not an older TCP one",
		sets: []*gwv1.ListenerSet{
			fixture.Attached("team-a", "tcp", 1, fixture.Entry("db", 443, "TCP", "")),
			fixture.Attached("team-b", "plain", 2, fixture.Entry("http", 443, "HTTP", "")),
			fixture.Attached("team-c", "web", 3, fixture.WithCert(fixture.Entry("https", 443, "HTTPS", "x.example.com"), "", "cert")),
		},
		want: []mergedRow{
			{"team-a/tcp db", incluster.ListenerUnsupportedProtocol, incluster.ReasonServedProtocols, ""},
			{"team-b/plain http", incluster.ListenerAccepted, "", ""},
			{"team-c/web https", incluster.ListenerConflicted, object.ReasonProtocolConflict, "team-b/plain http"},
		},
	}, {
		name: "a Gateway's two indistinct listeners: no winner, both hold 443 against the sets",
		gw:   []gwv1.Listener{fixture.GatewayListener("https", 443, "HTTPS", "shop.example.com"), fixture.GatewayListener("plain-443", 443, "HTTP", "")},
		sets: []*gwv1.ListenerSet{fixture.Attached("team-a", "set", 1,
			fixture.WithCert(fixture.Entry("other", 443, "HTTPS", "other.example.com"), "", "cert"),
			fixture.WithCert(fixture.Entry("shop", 443, "HTTPS", "shop.example.com"), "", "cert"),
			fixture.Entry("plain", 443, "HTTP", "plain.example.com"),
			fixture.WithCert(fixture.Entry("alt", 8443, "HTTPS", ""), "", "cert"))},
		want: []mergedRow{
			{gw + "https", incluster.ListenerConflicted, object.ReasonProtocolConflict, ""},
			{gw + "plain-443", incluster.ListenerConflicted, object.ReasonProtocolConflict, ""},
			// HTTPS like the Gateway's first on 443, but indistinct from plain-443
			{"team-a/set other", incluster.ListenerConflicted, object.ReasonProtocolConflict, gw + "plain-443"},
			{"team-a/set shop", incluster.ListenerConflicted, object.ReasonHostnameConflict, gw + "https"},
			{"team-a/set plain", incluster.ListenerConflicted, object.ReasonProtocolConflict, gw + "https"},
			{"team-a/set alt", incluster.ListenerAccepted, "", ""},
		},
	}, {
		name: "a Gateway's two listeners at one endpoint: both Conflicted, a set's other hostname Accepted",
		gw:   []gwv1.Listener{fixture.GatewayListener("a", 80, "HTTP", "a.example.com"), fixture.GatewayListener("b", 80, "HTTP", "a.example.com")},
		sets: []*gwv1.ListenerSet{fixture.Attached("team-a", "set", 1, fixture.Entry("a", 80, "HTTP", "a.example.com"), fixture.Entry("c", 80, "HTTP", "c.example.com"))},
		want: []mergedRow{
			{gw + "a", incluster.ListenerConflicted, object.ReasonHostnameConflict, ""},
			{gw + "b", incluster.ListenerConflicted, object.ReasonHostnameConflict, ""},
			{"team-a/set a", incluster.ListenerConflicted, object.ReasonHostnameConflict, gw + "a"},
			{"team-a/set c", incluster.ListenerAccepted, "", ""},
		},
	}, {
		name: "a Gateway's SCTP listener makes no other of its listeners indistinct",
		gw:   []gwv1.Listener{fixture.GatewayListener("sctp", 443, "SCTP", ""), fixture.GatewayListener("https", 443, "HTTPS", "")},
		sets: []*gwv1.ListenerSet{fixture.Attached("team-a", "set", 1, fixture.Entry("plain", 443, "HTTP", ""))},
		want: []mergedRow{
			{gw + "sctp", incluster.ListenerUnsupportedProtocol, incluster.ReasonServedProtocols, ""},
			{gw + "https", incluster.ListenerAccepted, "", ""},
			{"team-a/set plain", incluster.ListenerConflicted, object.ReasonProtocolConflict, gw + "https"},
		},
	}, {
		name: "the precedence still orders the sets: first wins among them",
		sets: []*gwv1.ListenerSet{
			fixture.Attached("team-b", "late", 2, fixture.Entry("web", 80, "HTTP", "")),
			fixture.Attached("team-a", "early", 1, fixture.WithCert(fixture.Entry("web", 80, "HTTPS", ""), "", "cert")),
		},
		want: []mergedRow{
			{"team-a/early web", incluster.ListenerAccepted, "", ""},
			{"team-b/late web", incluster.ListenerConflicted, object.ReasonProtocolConflict, "team-a/early web"},
		},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			g := fixture.Gateway(gwv1.NamespacesFromAll, tc.gw...)
			o := &incluster.Objects{Gateways: []*gwv1.Gateway{g}, Sets: tc.sets}
			rows := incluster.MergedListeners(g, tc.sets, incluster.MergeOptions{Cluster: o})
			assert.Equal(t, tc.want, mergedRowsOf(rows))

			// The webhook's verdict on each set is its rows' conflicts
			// with the others (strict), nothing about listeners that
			// hold no port.
			for _, ls := range tc.sets {
				var want field.ErrorList
				for _, r := range rows {
					if r.Source.Kind == object.SourceListenerSet && r.Source.Name == ls.Name && r.Source.Namespace == ls.Namespace &&
						r.State == incluster.ListenerConflicted && r.Winner.Source.Name != ls.Name {
						want = append(want, r.Errors...)
					}
				}
				own, _ := Validate(ls, nil, Options{})
				errs, _ := Validate(ls, nil, Options{Cluster: o, Strict: true})
				assert.Equal(t, append(field.ErrorList{}, want...), append(field.ErrorList{}, errs[len(own):]...), "%s/%s", ls.Namespace, ls.Name)
			}
		})
	}
}

// The set's own conflict rule skips a listener of a protocol Airlock does
// not serve: the issue's {first, 81, SCTP}, {second, 81, HTTP} has the one
// error of the SCTP listener, none on the HTTP one.
func TestUnsupportedProtocolBlamesNoOtherListener(t *testing.T) {
	ls := fixture.Attached("team-a", "set", 1, fixture.Entry("first", 81, "SCTP", ""), fixture.Entry("second", 81, "HTTP", ""),
		fixture.Entry("third", 81, "TCP", ""), fixture.Entry("fourth", 81, "HTTP", ""))
	errs, _ := Validate(ls, nil, Options{})
	p := field.NewPath("spec", "listeners")
	assert.Equal(t, field.ErrorList{
		field.NotSupported(p.Index(0).Child("protocol"), "SCTP", object.SupportedProtocols),
		field.NotSupported(p.Index(2).Child("protocol"), "TCP", object.SupportedProtocols),
		// HTTP on 81 twice, both without a hostname: the one real conflict
		field.Invalid(p.Index(3).Child("hostname"), "", "same port, protocol and hostname as team-a/set listener second; this listener would be Conflicted (HostnameConflict)"),
	}, coded(t, errs))
}
