package admission

import (
	"context"

	cradmission "sigs.k8s.io/controller-runtime/pkg/webhook/admission"
	gwscheme "sigs.k8s.io/gateway-api/pkg/client/clientset/versioned/scheme"

	"github.com/airlock/listenerset-webhook/defaults"
)

// admissionScheme is what controller-runtime's admission decoder decodes
// request.object and request.oldObject with: gateway-api's own scheme of its
// kinds. A ListenerSet decodes; an object the decoder finds to be of another
// kind (it reads the kind case-insensitively, unlike the guard) is refused
// with a 400 (TestObjectCaseVariantKindIsRefused).
var admissionScheme = gwscheme.Scheme

// keepUnknownFields drops every "remove" operation from next's patches:
// defaulting only sets what is unset, so a removal can only come from what
// the Go types drop from the object as sent (a newer CRD's field, an explicit
// null or empty value they omit), and the patch must add defaults, never
// remove anything. controller-runtime's own filter (dropSchemeRemovals in
// admission.WithDefaulter) drops only the removals that a patch to the
// undefaulted object has as well; that misses a field inside an object the
// Go types omit whole ("spec": {"x": 1} without parentRef: that patch removes
// /spec, this one /spec/x, and x would be removed). Its other option,
// DefaulterRemoveUnknownOrOmitableFields, does the opposite of what is
// needed here.
func keepUnknownFields(next cradmission.Handler) cradmission.Handler {
	return cradmission.HandlerFunc(func(ctx context.Context, req cradmission.Request) cradmission.Response {
		r := next.Handle(ctx, req)
		if !r.Allowed || r.PatchType == nil {
			return r
		}
		r.Patches = defaults.WithoutRemovals(r.Patches)
		if len(r.Patches) == 0 {
			r.PatchType = nil
		}
		return r
	})
}
