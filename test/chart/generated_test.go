package chart

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/airlock/listenerset-webhook/validation"

	"github.com/stretchr/testify/assert"
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

// TestTenancySchemaIsTheFlags: values.schema.json's tenancy takes exactly
// the first-claim modes of validation.ClaimModes, and its key patterns
// accept and refuse what the webhook's flags do (validation.Tenancy.Check),
// values.yaml's defaults among the accepted.
func TestTenancySchemaIsTheFlags(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(root, chartPath, "values.schema.json"))
	require.NoError(t, err)
	var schema struct {
		Properties struct {
			Tenancy struct {
				Properties struct {
					TenantLabel, AllowedHostnamesAnnotation struct {
						Pattern string `json:"pattern"`
					}
					FirstClaim struct {
						Enum []validation.ClaimMode `json:"enum"`
					}
				} `json:"properties"`
			} `json:"tenancy"`
		} `json:"properties"`
	}
	require.NoError(t, json.Unmarshal(data, &schema))
	p := schema.Properties.Tenancy.Properties
	assert.Equal(t, validation.ClaimModes, p.FirstClaim.Enum, "tenancy.firstClaim")
	label, annotation := regexp.MustCompile(p.TenantLabel.Pattern), regexp.MustCompile(p.AllowedHostnamesAnnotation.Pattern)
	for _, key := range []string{"", "tenant", "capsule.clastix.io/tenant", validation.DefaultAllowedHostnamesAnnotation, "a_b.c-d",
		"Bad Label", "a/b/c", "-x", "x-", "example.com/", "/x", "UPPER.example.com/x", strings.Repeat("x", 64)} {
		flagsTake := validation.Tenancy{TenantLabel: key}.Check() == nil
		assert.Equal(t, flagsTake, label.MatchString(key), "tenancy.tenantLabel %q", key)
		if key != "" {
			flagsTake = validation.Tenancy{AllowedHostnamesAnnotation: key}.Check() == nil
			assert.Equal(t, flagsTake, annotation.MatchString(key), "tenancy.allowedHostnamesAnnotation %q", key)
		}
	}
	values, err := os.ReadFile(filepath.Join(root, chartPath, "values.yaml"))
	require.NoError(t, err)
	var v struct {
		Tenancy validation.Tenancy `json:"tenancy"`
	}
	require.NoError(t, yaml.Unmarshal(values, &v))
	assert.NoError(t, v.Tenancy.Check(), "values.yaml's tenancy defaults")
	assert.Equal(t, validation.DefaultAllowedHostnamesAnnotation, v.Tenancy.AllowedHostnamesAnnotation, "values.yaml's tenancy.allowedHostnamesAnnotation")
	assert.Equal(t, validation.ClaimModes[0], v.Tenancy.FirstClaim, "values.yaml's tenancy.firstClaim is the default mode")
}
