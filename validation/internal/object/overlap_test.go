package object

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"k8s.io/utils/ptr"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// The hostname rule of OverlappingTLSConfig, with the reference's example
// (A foo.example.com, B foo.example.org, C *.example.com: "Listeners A and
// C would have overlapping hostnames ..., but not B") and Gateway API's
// wildcard matching ("*.example.com" matches foo.bar.example.com and
// bar.example.com, not example.com).
func TestHostnamesOverlap(t *testing.T) {
	for _, tc := range []struct {
		a, b string // "" for no hostname
		want bool
	}{
		{"foo.example.com", "*.example.com", true},    // A and C
		{"foo.example.org", "*.example.com", false},   // B and C
		{"foo.example.com", "foo.example.org", false}, // A and B
		{"foo.bar.example.com", "*.example.com", true},
		{"bar.example.com", "*.example.com", true},
		{"example.com", "*.example.com", false},
		{"*.foo.example.com", "*.example.com", true}, // nested wildcards
		{"*.example.com", "*.example.org", false},
		{"*.example.com", "", true}, // a wildcard and no hostname
		{"foo.example.com", "", true},
		{"fooexample.com", "*.example.com", false},
		{"foo.example.com", "foo.example.com", false}, // equal: a HostnameConflict, not an overlap
	} {
		host := func(s string) *gwv1.Hostname {
			if s == "" {
				return nil
			}
			return ptr.To(gwv1.Hostname(s))
		}
		assert.Equal(t, tc.want, hostnamesOverlap(host(tc.a), host(tc.b)), "%q %q", tc.a, tc.b)
		assert.Equal(t, tc.want, hostnamesOverlap(host(tc.b), host(tc.a)), "%q %q", tc.b, tc.a)
	}
}
