package chart

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"

	"github.com/airlock/listenerset-webhook/test/golden"
	"github.com/airlock/listenerset-webhook/validation"
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

// TestAddNamesSchemaIsTheListOptions: the chart's values.schema.json takes
// admission.addNames for exactly the list-valued options of
// validation.AirlockOptions, with the setting's bounds, and values.yaml's
// comment names the same options. A new list-valued option fails it until
// the chart takes names for it too.
func TestAddNamesSchemaIsTheListOptions(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(root, chartPath, "values.schema.json"))
	require.NoError(t, err)
	var schema struct {
		Properties struct {
			Admission struct {
				Properties struct {
					AddNames struct {
						Properties map[string]struct {
							MaxItems int `json:"maxItems"`
							Items    struct {
								Pattern string `json:"pattern"`
							} `json:"items"`
						} `json:"properties"`
					} `json:"addNames"`
				} `json:"properties"`
			} `json:"admission"`
		} `json:"properties"`
	}
	require.NoError(t, json.Unmarshal(data, &schema))
	props := schema.Properties.Admission.Properties.AddNames.Properties
	var want []string
	for _, k := range validation.ListOptions {
		name := strings.TrimPrefix(string(k), validation.OptionPrefix)
		want = append(want, name)
		if p, ok := props[name]; assert.True(t, ok, "values.schema.json: admission.addNames has no %s", name) {
			assert.Equal(t, validation.MaxAddedNames, p.MaxItems, name)
			assert.Equal(t, fmt.Sprintf("^[A-Za-z0-9._/+-]{1,%d}$", validation.MaxAddedNameLen), p.Items.Pattern, name)
		}
	}
	assert.ElementsMatch(t, want, slices.Collect(maps.Keys(props)), "values.schema.json: admission.addNames' options")
	values, err := os.ReadFile(filepath.Join(root, chartPath, "values.yaml"))
	require.NoError(t, err)
	assert.Contains(t, strings.Join(strings.Fields(string(values)), " "), "per option ("+validation.ListOptionNames()+")",
		"values.yaml: admission.addNames' comment names the list-valued options")
}
