package admission

import (
	"context"
	"net/http"

	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	cradmission "sigs.k8s.io/controller-runtime/pkg/webhook/admission"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
	gwscheme "sigs.k8s.io/gateway-api/pkg/client/clientset/versioned/scheme"

	"github.com/airlock/listenerset-webhook/defaults"
	"github.com/airlock/listenerset-webhook/validation"
)

// admissionScheme is what controller-runtime's admission decoder decodes
// request.object and request.oldObject with: gateway-api's own scheme of its
// kinds. A ListenerSet decodes; an object the decoder finds to be of another
// kind (it reads the kind case-insensitively, unlike the guard) is refused
// with a 400 (TestObjectCaseVariantKindIsRefused).
var admissionScheme = gwscheme.Scheme

// defaulting is the mutating webhook's handler: controller-runtime's
// decoder, defaults.Patch, and the answer as controller-runtime's
// WithDefaulter writes it (a DELETE allowed undecoded, a 400 for an object
// that does not decode, an allowed response with the patch, none when
// there is nothing to default). It stands in for WithDefaulter, which
// copies every object and compares the copy with reflect.DeepEqual after
// defaulting (a fifth of the mutating request's time for the 2.95 MB
// longest-selector object, BenchmarkHandlerWorst), where defaults.Needed
// decides without copying. WithDefaulter's patch can also remove a field
// the Go types lack, which defaults.Patch never does
// (defaults.WithoutRemovals).
type defaulting struct {
	decoder cradmission.Decoder
	scope   validation.Scope
	classes validation.Classes
}

func (h defaulting) Handle(ctx context.Context, req cradmission.Request) cradmission.Response {
	if req.Operation == admissionv1.Delete {
		return cradmission.Response{AdmissionResponse: admissionv1.AdmissionResponse{
			Allowed: true,
			Result:  &metav1.Status{Code: http.StatusOK},
		}}
	}
	ls := &gwv1.ListenerSet{}
	if err := h.decoder.Decode(req, ls); err != nil {
		return cradmission.Errored(http.StatusBadRequest, err)
	}
	d := h.scope.Decide(ls, h.classes)
	recordScope(webhookMutating, d)
	if !d.Judge {
		// Another implementation's ListenerSet: untouched. The note of an
		// unknown parent is the validating webhook's to give, once.
		return cradmission.Response{AdmissionResponse: admissionv1.AdmissionResponse{Allowed: true}}
	}
	if err := ctx.Err(); err != nil {
		// As Validator.respond: past the deadline no one reads the patch.
		return cradmission.Errored(http.StatusServiceUnavailable, abandoned(err))
	}
	ops, err := defaults.Patch(req.Object.Raw, ls)
	if err != nil {
		return cradmission.Errored(http.StatusInternalServerError, err)
	}
	// As PatchResponseFromRaw answers; Response.Complete sets the patch
	// type when there are patches.
	return cradmission.Response{Patches: ops, AdmissionResponse: admissionv1.AdmissionResponse{Allowed: true}}
}
