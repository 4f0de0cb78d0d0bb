package validationtest

import (
	"fmt"
	"os"
	"path/filepath"

	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
	"sigs.k8s.io/yaml"
)

// Example is one of the repository's examples/*/*.yaml.
type Example struct {
	// Path is the file, below the root Examples was given.
	Path        string
	ListenerSet *gwv1.ListenerSet
}

// Examples reads root's examples/*/*.yaml (one ListenerSet each), in the
// order of their paths: every engine must give Airlock's verdict on each.
// The files directly in examples/ are not among them: gateway.yaml holds
// no ListenerSet, and other-implementation.yaml is another
// implementation's set, valid only where the scope reads its Gateway's
// GatewayClass (the webhook, the offline commands), which the policy
// cannot; test/e2e and the offline tests read it with its Gateway.
func Examples(root string) ([]Example, error) {
	files, err := filepath.Glob(filepath.Join(root, "examples", "*", "*.yaml"))
	if err != nil {
		return nil, err
	}
	var out []Example
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		var ls gwv1.ListenerSet
		if err := yaml.Unmarshal(data, &ls); err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		out = append(out, Example{Path: f, ListenerSet: &ls})
	}
	return out, nil
}
