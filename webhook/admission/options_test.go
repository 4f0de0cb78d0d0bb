package admission_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionv1 "k8s.io/api/admission/v1"

	"github.com/airlock/listenerset-webhook/validation/validationtest"
	"github.com/airlock/listenerset-webhook/webhook/admission"
	"github.com/airlock/listenerset-webhook/webhook/internal/reviewtest"
)

// TestAirlockOptionsThroughTheWebhook posts every object of
// validationtest.OptionCases (a value each row of validation.AirlockOptions
// accepts, and one it does not) to the validating webhook as kube-apiserver
// would: the valid ones are allowed, the others denied with the row's code
// in the audit annotation.
func TestAirlockOptionsThroughTheWebhook(t *testing.T) {
	srv := handlers(t)
	for _, c := range validationtest.OptionCases() {
		obj, err := json.Marshal(c.ListenerSet)
		require.NoError(t, err)
		resp := reviewtest.Post(t, srv.Client(), srv.URL+admission.ValidatePath, reviewtest.Request(t, admissionv1.Create, obj, nil))
		if assert.Equal(t, c.Valid, resp.Allowed, "%s: %+v", c.Name, resp.Result) && !c.Valid {
			assert.Equal(t, map[string]string{admission.AuditCodesKey: string(c.Code)}, resp.AuditAnnotations, c.Name)
		}
	}
}
