package object

import (
	"slices"
	"strings"
	"testing"
)

func TestParseAddedNames(t *testing.T) {
	added, err := ParseAddedNames([]string{
		"ecdhCurves=SecP256r1MLKEM768,X25519",      // X25519 is built in: accepted once
		OptionPrefix + "ecdhCurves=X25519Kyber768", // the full key
		"ciphers=ECDHE-RSA-AES128-CCM",
		"ecdhCurves=SecP256r1MLKEM768", // repeated: once
	})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := added[OptionECDHCurves], []string{"SecP256r1MLKEM768", "X25519Kyber768"}; !slices.Equal(got, want) {
		t.Errorf("ecdhCurves added %q, want %q", got, want)
	}
	if got, want := added.Names(OptionECDHCurves), append(slices.Clone(ECDHCurves), "SecP256r1MLKEM768", "X25519Kyber768"); !slices.Equal(got, want) {
		t.Errorf("ecdhCurves accepts %q, want %q", got, want)
	}
	if got := added.Names(OptionALPNProtocols); !slices.Equal(got, ALPNProtocols) {
		t.Errorf("alpn-protocols accepts %q, want the built-in %q", got, ALPNProtocols)
	}
	// what one engine passes to the next reads back the same
	again, err := ParseAddedNames(added.Settings())
	if err != nil || len(again) != len(added) || !slices.Equal(again[OptionECDHCurves], added[OptionECDHCurves]) ||
		!slices.Equal(again[OptionCiphers], added[OptionCiphers]) {
		t.Errorf("Settings %q read back as %v (%v), want %v", added.Settings(), again, err, added)
	}

	for _, tc := range []struct{ setting, want string }{
		{"ecdhCurves", "want <option>=<name>"},
		{"minimumVersion=TLSv1_4", `"minimumVersion" is not a list-valued option; one of alpn-protocols, ciphers, ecdhCurves, signatureAlgorithms`},
		{"example.com/curves=a", "is not a list-valued option"},
		{"ecdhCurves=", "empty name"},
		{"ecdhCurves=a,,b", "empty name"},
		{"ecdhCurves=a b", `name "a b" may only hold letters, digits and "-_./+"`},
		{"ciphers=" + strings.Repeat("A", MaxAddedNameLen+1), "longer than 64 bytes"},
		{"ciphers=" + manyNames(MaxAddedNames+1), "more than 16 names added to ciphers"},
	} {
		if _, err := ParseAddedNames([]string{tc.setting}); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseAddedNames(%.40q) = %v, want an error containing %q", tc.setting, err, tc.want)
		}
	}
	if _, err := ParseAddedNames([]string{"ciphers=" + manyNames(MaxAddedNames)}); err != nil {
		t.Errorf("%d names: %v", MaxAddedNames, err)
	}
}

func manyNames(n int) string {
	names := make([]string, n)
	for i := range names {
		names[i] = "NAME" + strings.Repeat("X", i%10) + string(rune('a'+i%26)) + string(rune('a'+i/26))
	}
	return strings.Join(names, ",")
}
