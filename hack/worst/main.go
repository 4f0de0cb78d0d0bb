// Command worst writes the worst ListenerSets the CRD admits
// (validationtest.WorstShapes, and the shapes of text,
// validationtest.TextShapes, at 64 listeners) as YAML and JSON files, one
// of each per shape, for measuring the offline command on them by hand (the
// two readers differ: YAML is converted by sigs.k8s.io/yaml and parsed again
// for positions, JSON is scanned):
//
//	go run ./hack/worst -o .run/worst
//	/usr/bin/time -v bin/kubectl-listenerset validate -f .run/worst/most-selector-errors.yaml
//
// docs/performance.md gives the figures.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/airlock/listenerset-webhook/validation"

	"go.yaml.in/yaml/v3"

	"github.com/airlock/listenerset-webhook/validation/validationtest"
)

func main() {
	out := flag.String("o", ".run/worst", "directory to write the files to")
	n := flag.Int("listeners", validation.MaxListeners, "listeners of each object")
	flag.Parse()
	if err := os.MkdirAll(*out, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	for _, s := range append(validationtest.WorstShapes, validationtest.TextShapes...) {
		if s.Update != nil {
			continue // an update's cost needs a stored object: the webhook's figure
		}
		ls := s.Build(*n)
		for _, f := range []struct {
			ext     string
			marshal func(any) ([]byte, error)
		}{{".yaml", toYAML}, {".json", json.Marshal}} {
			data, err := f.marshal(ls)
			path := filepath.Join(*out, s.Name+f.ext)
			if err == nil {
				err = os.WriteFile(path, data, 0o644)
			}
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
			fmt.Printf("%s: %d bytes\n", path, len(data))
		}
	}
}

// toYAML is v as YAML, emitted from the decoded JSON rather than through
// sigs.k8s.io/yaml.Marshal, whose YAML parser reads the JSON it converts:
// it refuses a key of more than 1 024 characters in JSON's flow style and
// a C1 control character, both of which the text shapes hold. The emitter
// writes a long key as an explicit key ("? ") and escapes what YAML must.
func toYAML(v any) ([]byte, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var obj any
	if err := json.Unmarshal(data, &obj); err != nil {
		return nil, err
	}
	return yaml.Marshal(obj)
}
