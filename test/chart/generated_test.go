package chart

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"

	"github.com/airlock/listenerset-webhook/test/golden"
	"github.com/airlock/listenerset-webhook/webhook/admission"
)

// webhookFile is the chart's copy of admission.Registrations: the webhooks'
// names, paths, rules and the mutating webhook's matchConditions, which
// templates/webhooks.yaml reads instead of writing them a second time.
const webhookFile = chartPath + "/files/webhooks.yaml"

// webhookFileHeader says where the file comes from, for whoever opens it.
const webhookFileHeader = "# Generated from webhook/admission (Registrations) by `make chart-generate`: do not edit.\n" +
	"# templates/webhooks.yaml reads it; test/chart's TestWebhookFileIsGenerated fails while it is stale.\n"

// TestWebhookFileIsGenerated: files/webhooks.yaml is exactly
// admission.Registrations as YAML. It fails when a path, a webhook's name,
// the rules or the match condition changed in Go and the chart's copy was
// not regenerated (`make chart-generate`, or this test with -update).
func TestWebhookFileIsGenerated(t *testing.T) {
	body, err := yaml.Marshal(admission.Registrations())
	require.NoError(t, err)
	golden.Generated(t, filepath.Join(root, webhookFile), append([]byte(webhookFileHeader), body...), *update,
		"`make chart-generate` (go test ./test/chart -run TestWebhookFileIsGenerated -update)")
}
