package incluster

import (
	"fmt"
	"strings"
	"testing"

	utilvalidation "k8s.io/apimachinery/pkg/util/validation"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/utils/ptr"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/findings"
	"github.com/airlock/listenerset-webhook/validation/internal/object"
)

func TestParseAllowedHostnames(t *testing.T) {
	dns1123 := "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
	for _, tc := range []struct {
		value string
		want  []string // problems, as the error words them
	}{
		{"a.example.com,*.b.example.com,*", nil},
		{"", []string{DetailDeclarationEmpty}},
		{" ", []string{DetailDeclarationEmpty}},
		{"a.example.com,,b.example.com", []string{`entry 2 "": empty entry`}},
		{"a.example.com, b.example.com", []string{`entry 2 " b.example.com": ` + DetailEntryBlanks}},
		{"A.example.com", []string{`entry 1 "A.example.com": ` + dns1123}},
		{"10.0.0.1", []string{`entry 1 "10.0.0.1": ` + object.DetailHostnameIP}},
		{"[::1]", []string{`entry 1 "[::1]": ` + object.DetailHostnameIP}},
		{"a.*.example.com", []string{`entry 1 "a.*.example.com": ` + dns1123}},
		{"*a.example.com", []string{`entry 1 "*a.example.com": ` + dns1123}},
		{"a.example.com.", []string{`entry 1 "a.example.com.": ` + dns1123}},
		{"ok.example.com,Bad,\x1b[31m", []string{`entry 2 "Bad": ` + dns1123, `entry 3 "\x1b[31m": ` + dns1123}},
		{strings.Repeat("a.example.com,", MaxAllowedHostnames), []string{fmt.Sprintf(DetailDeclarationTooMany, MaxAllowedHostnames+1, MaxAllowedHostnames)}},
		// longer than a hostname: its length alone, the entry quoted cut
		{"fe80::1%" + strings.Repeat("z", 300), []string{fmt.Sprintf(`entry 1 %q: %s`, findings.CutValue("fe80::1%"+strings.Repeat("z", 300)), utilvalidation.MaxLenError(utilvalidation.DNS1123SubdomainMaxLength))}},
	} {
		t.Run(fmt.Sprintf("%q", tc.value), func(t *testing.T) {
			_, problems := ParseAllowedHostnames(tc.value)
			var got []string
			for _, p := range problems {
				got = append(got, p.String())
			}
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestAllowedHostnamesAllows(t *testing.T) {
	a, problems := ParseAllowedHostnames("shop.example.com,*.a.example.com")
	require.Empty(t, problems)
	for h, want := range map[string]bool{
		"shop.example.com":      true,
		"x.a.example.com":       true,
		"x.y.a.example.com":     true,
		"*.a.example.com":       true,
		"*.x.a.example.com":     true,
		"a.example.com":         false, // not under its own wildcard
		"*.example.com":         false, // a wildcard above the declared one
		"other.example.com":     false,
		"shop.example.com.evil": false,
		"evilshop.example.com":  false,
	} {
		assert.Equal(t, want, a.Allows(ptr.To(gwv1.Hostname(h))), h)
	}
	assert.False(t, a.Allows(nil), "no hostname needs *")
	all, _ := ParseAllowedHostnames("*")
	assert.True(t, all.Allows(nil))
	assert.True(t, all.Allows(ptr.To(gwv1.Hostname("any.example.org"))))
}
