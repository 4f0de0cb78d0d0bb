package validation

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"k8s.io/apimachinery/pkg/util/validation/field"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/validation/internal/fixture"
	"github.com/airlock/listenerset-webhook/validation/internal/incluster"
)

func TestValidateListenerSetUpdateInCluster(t *testing.T) {
	listenersPath := field.NewPath("spec", "listeners")
	// The Gateway holds HTTPS on 443; the stored team-a/mine was created at fixture.T0+10m.
	cluster := &incluster.Objects{
		Gateways: []*gwv1.Gateway{fixture.Gateway(gwv1.NamespacesFromAll, fixture.GatewayListener("https", 443, "HTTPS", ""))},
		Grants:   []*gwv1.ReferenceGrant{},
	}
	conflict := field.Invalid(listenersPath.Index(0).Child("protocol"), "HTTP",
		"port 443 already uses protocol HTTPS in gateway-ns/gw listener https; this listener would be Conflicted (ProtocolConflict)")
	refNotPermitted := field.Forbidden(listenersPath.Index(1).Child("tls", "certificateRefs").Index(0).Child("namespace"),
		`no ReferenceGrant in namespace "certs" allows ListenerSets from "team-a" to use this Secret (RefNotPermitted)`)
	crossRef := fixture.WithCert(fixture.Entry("tls", 8443, "HTTPS", ""), "certs", "wildcard")

	tests := []struct {
		rule     string
		old, new *gwv1.ListenerSet
		want     field.ErrorList
		warnings []string
	}{
		{
			rule: "a stored conflict, unchanged, is let through with a warning (label edit)",
			old:  fixture.Attached("team-a", "mine", 10, fixture.Entry("web", 443, "HTTP", "")),
			new: func() *gwv1.ListenerSet {
				ls := fixture.Attached("team-a", "mine", 10, fixture.Entry("web", 443, "HTTP", ""))
				ls.Labels = map[string]string{"team": "blue"}
				return ls
			}(),
			warnings: []string{ratcheted(conflict)},
		},
		{
			rule:     "a stored RefNotPermitted, unchanged, is let through next to an edited listener",
			old:      fixture.Attached("team-a", "mine", 10, fixture.Entry("web", 8080, "HTTP", ""), crossRef),
			new:      fixture.Attached("team-a", "mine", 10, fixture.Entry("web", 8081, "HTTP", ""), crossRef),
			warnings: []string{ratcheted(refNotPermitted)},
		},
		{
			rule: "by value: a stored conflict ratchets when only a field it does not involve changes (the hostname of a ProtocolConflict)",
			old:  fixture.Attached("team-a", "mine", 10, fixture.Entry("web", 443, "HTTP", "")),
			new:  fixture.Attached("team-a", "mine", 10, fixture.Entry("web", 443, "HTTP", "web.example.com")),
			warnings: []string{ratcheted(field.Invalid(listenersPath.Index(0).Child("protocol"), "HTTP",
				"port 443 already uses protocol HTTPS in gateway-ns/gw listener https; this listener would be Conflicted (ProtocolConflict)"))},
		},
		{
			rule: "by value: a stored RefNotPermitted is judged again when the certificateRefs change (an atomic list)",
			old:  fixture.Attached("team-a", "mine", 10, crossRef),
			new:  fixture.Attached("team-a", "mine", 10, fixture.WithCert(fixture.Entry("tls", 8443, "HTTPS", ""), "certs", "other")),
			want: field.ErrorList{field.Forbidden(listenersPath.Index(0).Child("tls", "certificateRefs").Index(0).Child("namespace"), refNotPermitted.Detail)},
		},
		{
			rule:     "by value: a stored RefNotPermitted ratchets when another field of its listener changes",
			old:      fixture.Attached("team-a", "mine", 10, crossRef),
			new:      fixture.Attached("team-a", "mine", 10, fixture.WithCert(fixture.Entry("tls", 8444, "HTTPS", ""), "certs", "wildcard")),
			warnings: []string{ratcheted(field.Forbidden(listenersPath.Index(0).Child("tls", "certificateRefs").Index(0).Child("namespace"), refNotPermitted.Detail))},
		},
		{
			rule: "a new conflict is denied",
			old:  fixture.Attached("team-a", "mine", 10, fixture.Entry("web", 8080, "HTTP", "")),
			new:  fixture.Attached("team-a", "mine", 10, fixture.Entry("web", 443, "HTTP", "")),
			want: field.ErrorList{conflict},
		},
		{
			rule:     "a new cross-namespace reference nobody granted is denied, the stored conflict kept",
			old:      fixture.Attached("team-a", "mine", 10, fixture.Entry("web", 443, "HTTP", "")),
			new:      fixture.Attached("team-a", "mine", 10, fixture.Entry("web", 443, "HTTP", ""), crossRef),
			want:     field.ErrorList{refNotPermitted},
			warnings: []string{ratcheted(conflict)},
		},
		{
			rule: "by name: a listener inserted before a stored conflict does not block",
			old:  fixture.Attached("team-a", "mine", 10, fixture.Entry("web", 443, "HTTP", "")),
			new:  fixture.Attached("team-a", "mine", 10, fixture.Entry("extra", 8080, "HTTP", ""), fixture.Entry("web", 443, "HTTP", "")),
			warnings: []string{ratcheted(field.Invalid(listenersPath.Index(1).Child("protocol"), "HTTP",
				"port 443 already uses protocol HTTPS in gateway-ns/gw listener https; this listener would be Conflicted (ProtocolConflict)"))},
		},
		{
			rule:     "by name: reordering around a stored RefNotPermitted does not block",
			old:      fixture.Attached("team-a", "mine", 10, fixture.Entry("web", 8080, "HTTP", ""), crossRef),
			new:      fixture.Attached("team-a", "mine", 10, crossRef, fixture.Entry("web", 8080, "HTTP", "")),
			warnings: []string{ratcheted(field.Forbidden(listenersPath.Index(0).Child("tls", "certificateRefs").Index(0).Child("namespace"), refNotPermitted.Detail))},
		},
		{
			rule: "by name: renaming the conflicting listener makes it a new one",
			old:  fixture.Attached("team-a", "mine", 10, fixture.Entry("web", 443, "HTTP", "")),
			new:  fixture.Attached("team-a", "mine", 10, fixture.Entry("www", 443, "HTTP", "")),
			want: field.ErrorList{conflict},
		},
		{
			rule: "a clean update has nothing to ratchet",
			old:  fixture.Attached("team-a", "mine", 10, fixture.Entry("web", 443, "HTTP", "")),
			new:  fixture.Attached("team-a", "mine", 10, fixture.Entry("web", 8080, "HTTP", "")),
		},
	}
	for _, tc := range tests {
		t.Run(tc.rule, func(t *testing.T) {
			errs, warnings := Validate(tc.new, tc.old, Options{Cluster: cluster, Strict: true})
			assert.Equal(t, tc.want, coded(t, errs))
			assert.Equal(t, tc.warnings, codedWarnings(t, warnings).Strings())
		})
	}
}
