package admission

import (
	"context"

	admissionv1 "k8s.io/api/admission/v1"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	cradmission "sigs.k8s.io/controller-runtime/pkg/webhook/admission"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/validation"
)

// DeletePath serves the deletion webhook: warnings for the HTTPRoutes a
// deletion detaches, never a denial.
const DeletePath = "/delete-gateway-networking-k8s-io-v1-listenerset"

// deletion answers a DELETE review: allowed, always, with the warnings of
// validation.JudgeDelete on the stored object kube-apiserver sends as
// oldObject. Whatever goes wrong (no oldObject, one that does not decode,
// a panic in judging) the answer is still allowed, without warnings: this
// webhook says what a deletion detaches, and must never be why one fails.
// Its registration adds failurePolicy Ignore and a short timeout, so that
// neither a slow nor an absent webhook holds a deletion up.
type deletion struct {
	v       Validator
	decoder cradmission.Decoder
}

// NewDeletionWebhook is the deletion webhook of v (its cluster view and
// scope): warnings only.
func NewDeletionWebhook(v Validator) *cradmission.Webhook {
	return &cradmission.Webhook{Handler: deletion{v: v, decoder: cradmission.NewDecoder(admissionScheme)}}
}

// Handle implements admission.Handler.
func (d deletion) Handle(ctx context.Context, req cradmission.Request) (resp cradmission.Response) {
	resp = cradmission.Allowed("")
	if req.Operation != admissionv1.Delete || len(req.OldObject.Raw) == 0 {
		return resp
	}
	defer func() {
		if p := recover(); p != nil {
			logf.FromContext(ctx).Info("Deletion allowed without warnings: judging it panicked", "panic", p)
			resp = cradmission.Allowed("")
		}
	}()
	var ls gwv1.ListenerSet
	if err := d.decoder.DecodeRaw(req.OldObject, &ls); err != nil {
		// Not a ListenerSet of this scheme's version, or not an object.
		logf.FromContext(ctx).V(1).Info("Deletion allowed without warnings: oldObject does not decode", "error", err.Error())
		return resp
	}
	r := validation.JudgeDelete(&ls, validation.Options{Cluster: d.v.Cluster, Routes: d.v.Routes, Scope: d.v.Scope, Classes: d.v.Classes})
	if ws := r.Warnings.List(); len(ws) > 0 {
		resp.Warnings = ws.Strings()
		logf.FromContext(ctx).V(1).Info("Deletion allowed with warnings", "warningCount", r.Warnings.Total())
	}
	return resp
}
