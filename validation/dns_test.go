package validation

import (
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation"
)

var dnsCorpus = []string{
	"", "a", "A", "-", ".", "a.", ".a", "a..b", "a-", "-a", "a-b", "a--b", "a.b", "a.-b", "a-.b", "a.b-", "0", "9a",
	"example.com", "shop.example.com", "*.example.com", "exa_mple.com", "ex ample", "é.com", "a.b.c.d.e",
	"1.2.3.4", "::1", "[::1]", "1.2.3.4:80", "xn--bcher-kva.example", "UPPER.example.com",
	strings.Repeat("a", 63), strings.Repeat("a", 64), strings.Repeat("a", 253), strings.Repeat("a", 254),
	strings.Repeat("a.", 126) + "a", strings.Repeat("a.", 127) + "a", strings.Repeat("a", 63) + "." + strings.Repeat("b", 64),
}

// The fast paths must give apimachinery's answer, messages included.
func TestDNSFastPathsAgree(t *testing.T) {
	for _, s := range dnsCorpus {
		checkDNSFastPaths(t, s)
	}
}

// FuzzDNSFastPaths: for any string the fast paths answer as apimachinery
// does, and mayBeIP never rules out an IP address (isIP is skipped for what
// it rules out). testdata/fuzz adds the IP-like near misses.
func FuzzDNSFastPaths(f *testing.F) {
	for _, s := range dnsCorpus {
		f.Add(s)
	}
	f.Fuzz(checkDNSFastPaths)
}

func checkDNSFastPaths(t *testing.T, s string) {
	if got, want := isDNS1123Subdomain(s), validation.IsDNS1123Subdomain(s); !slices.Equal(got, want) {
		t.Errorf("isDNS1123Subdomain(%q) = %q, apimachinery says %q", s, got, want)
	}
	if got, want := isDNS1123Label(s), validation.IsDNS1123Label(s); !slices.Equal(got, want) {
		t.Errorf("isDNS1123Label(%q) = %q, apimachinery says %q", s, got, want)
	}
	if !mayBeIP(s) && isIP(s) {
		t.Errorf("mayBeIP(%q) is false, but it is an IP address", s)
	}
}
