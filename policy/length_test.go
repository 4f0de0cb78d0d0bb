package policy_test

import (
	"fmt"
	"strings"
	"testing"

	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/validation"
	"github.com/airlock/listenerset-webhook/validation/validationtest"
)

// An option's value is limited in characters, as the CRD's maxLength counts
// them and CEL's size() of a string does (code points): values at and one
// past the limit, of one- to four-byte characters, get the same verdict
// from the policy, from validation and from the CRD's own validator.
func TestOptionValueLengthCountsCharacters(t *testing.T) {
	e := evaluator(t)
	var st diffStats
	for _, c := range []string{"a", "é", "漢", "😀"} {
		for _, n := range []int{validation.MaxOptionValueLen, validation.MaxOptionValueLen + 1} {
			ls := validationtest.MostWarnings(1)
			ls.Name = "length"
			ls.Spec.Listeners[0].TLS.Options["example.com/o00"] = gwv1.AnnotationValue(strings.Repeat(c, n))
			name := fmt.Sprintf("%d × %q", n, c)
			compare(t, e, name, ls, nil, &st)
			_, _, crdAdmits := throughCRD(t, ls)
			errs, _ := validation.Validate(ls, nil, validation.Options{})
			if crdAdmits != (len(errs) == 0) || crdAdmits != (n == validation.MaxOptionValueLen) {
				t.Errorf("%s: the CRD admits: %v; validation's errors: %v", name, crdAdmits, errs)
			}
		}
	}
}
