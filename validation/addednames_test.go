package validation

import (
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/airlock/listenerset-webhook/validation/internal/object"
)

func TestParseAddedNames(t *testing.T) {
	added, err := object.ParseAddedNames([]string{
		"ecdhCurves=SecP256r1MLKEM768,X25519",             // X25519 is built in: accepted once
		object.OptionPrefix + "ecdhCurves=X25519Kyber768", // the full key
		"ciphers=ECDHE-RSA-AES128-CCM",
		"ecdhCurves=SecP256r1MLKEM768", // repeated: once
	})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := added[object.OptionECDHCurves], []string{"SecP256r1MLKEM768", "X25519Kyber768"}; !slices.Equal(got, want) {
		t.Errorf("ecdhCurves added %q, want %q", got, want)
	}
	if got, want := added.Names(object.OptionECDHCurves), append(slices.Clone(object.ECDHCurves), "SecP256r1MLKEM768", "X25519Kyber768"); !slices.Equal(got, want) {
		t.Errorf("ecdhCurves accepts %q, want %q", got, want)
	}
	if got := added.Names(object.OptionALPNProtocols); !slices.Equal(got, object.ALPNProtocols) {
		t.Errorf("alpn-protocols accepts %q, want the built-in %q", got, object.ALPNProtocols)
	}
	// what one engine passes to the next reads back the same
	again, err := object.ParseAddedNames(added.Settings())
	if err != nil || len(again) != len(added) || !slices.Equal(again[object.OptionECDHCurves], added[object.OptionECDHCurves]) ||
		!slices.Equal(again[object.OptionCiphers], added[object.OptionCiphers]) {
		t.Errorf("Settings %q read back as %v (%v), want %v", added.Settings(), again, err, added)
	}

	for _, tc := range []struct{ setting, want string }{
		{"ecdhCurves", "want <option>=<name>"},
		{"minimumVersion=TLSv1_4", `"minimumVersion" is not a list-valued option; one of alpn-protocols, ciphers, ecdhCurves, signatureAlgorithms`},
		{"example.com/curves=a", "is not a list-valued option"},
		{"ecdhCurves=", "empty name"},
		{"ecdhCurves=a,,b", "empty name"},
		{"ecdhCurves=a b", `name "a b" may only hold letters, digits and "-_./+"`},
		{"ciphers=" + strings.Repeat("A", object.MaxAddedNameLen+1), "longer than 64 bytes"},
		{"ciphers=" + manyNames(object.MaxAddedNames+1), "more than 16 names added to ciphers"},
	} {
		if _, err := object.ParseAddedNames([]string{tc.setting}); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseAddedNames(%.40q) = %v, want an error containing %q", tc.setting, err, tc.want)
		}
	}
	if _, err := object.ParseAddedNames([]string{"ciphers=" + manyNames(object.MaxAddedNames)}); err != nil {
		t.Errorf("%d names: %v", object.MaxAddedNames, err)
	}
}

func manyNames(n int) string {
	names := make([]string, n)
	for i := range names {
		names[i] = "NAME" + strings.Repeat("X", i%10) + string(rune('a'+i%26)) + string(rune('a'+i/26))
	}
	return strings.Join(names, ",")
}

// An added name is accepted by the rules; an unknown one is still an error,
// whose message lists the added names among the supported ones.
func TestAddedNamesAreAccepted(t *testing.T) {
	added, err := object.ParseAddedNames([]string{"ecdhCurves=SecP256r1MLKEM768", "signatureAlgorithms=mldsa65"})
	if err != nil {
		t.Fatal(err)
	}
	ls := validListenerSet()
	setOption(ls, 2, object.OptionECDHCurves, "SecP256r1MLKEM768,X25519")
	setOption(ls, 1, object.OptionSignatureAlgorithms, "mldsa65,ed25519")
	if errs, _ := Validate(ls, nil, Options{AddedNames: added}); len(errs) != 0 {
		t.Errorf("added names: %v, want none", errs)
	}
	errs, _ := Validate(ls, nil, Options{})
	want := field.ErrorList{
		field.NotSupported(optionPath(1, object.OptionSignatureAlgorithms), "mldsa65", object.SignatureAlgorithms),
		field.NotSupported(optionPath(2, object.OptionECDHCurves), "SecP256r1MLKEM768", object.ECDHCurves),
	}
	if errs.ToAggregate().Error() != want.ToAggregate().Error() {
		t.Errorf("without the setting:\n got %v\nwant %v", errs, want)
	}

	setOption(ls, 2, object.OptionECDHCurves, "SecP256r1MLKEM768,X25519Kyber768")
	errs, _ = Validate(ls, nil, Options{AddedNames: added})
	want = field.ErrorList{field.NotSupported(optionPath(2, object.OptionECDHCurves), "X25519Kyber768",
		append(slices.Clone(object.ECDHCurves), "SecP256r1MLKEM768"))}
	if errs.ToAggregate().Error() != want.ToAggregate().Error() {
		t.Errorf("an unknown curve beside an added one:\n got %v\nwant %v", errs, want)
	}
}
