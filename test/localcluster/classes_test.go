package localcluster

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/gateway-api/pkg/features"
	"sigs.k8s.io/yaml"
)

// TestExampleGatewayClass: ExampleGatewayClass is the GatewayClass
// examples/gateway.yaml holds, so that make run and the end-to-end tests
// accept the class the examples' Gateway names.
func TestExampleGatewayClass(t *testing.T) {
	root, err := RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(root, "examples", "gateway.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var classes []string
	for _, doc := range strings.Split(string(data), "\n---") {
		var obj struct {
			Kind     string
			Metadata struct{ Name string }
		}
		if err := yaml.Unmarshal([]byte(doc), &obj); err != nil {
			t.Fatal(err)
		}
		if obj.Kind == "GatewayClass" {
			classes = append(classes, obj.Metadata.Name)
		}
	}
	if len(classes) != 1 || classes[0] != ExampleGatewayClass {
		t.Errorf("examples/gateway.yaml's GatewayClasses are %v, want [%s]", classes, ExampleGatewayClass)
	}
}

// TestAcceptedClassStatus: the features are sorted by name and listed once,
// as the CRD asks, and Accepted is True at the generation given.
func TestAcceptedClassStatus(t *testing.T) {
	s := AcceptedClassStatus(4, features.SupportListenerSet, features.SupportGateway, features.SupportListenerSet)
	if len(s.Conditions) != 1 || s.Conditions[0].Type != "Accepted" || s.Conditions[0].Status != "True" || s.Conditions[0].ObservedGeneration != 4 {
		t.Errorf("conditions %+v, want Accepted True at generation 4", s.Conditions)
	}
	var names []string
	for _, f := range s.SupportedFeatures {
		names = append(names, string(f.Name))
	}
	if strings.Join(names, ",") != "Gateway,ListenerSet" {
		t.Errorf("supportedFeatures %v, want [Gateway ListenerSet]", names)
	}
}
