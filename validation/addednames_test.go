package validation

import (
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/airlock/listenerset-webhook/validation/internal/object"
)

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
