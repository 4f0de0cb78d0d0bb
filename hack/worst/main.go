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

	"sigs.k8s.io/yaml"

	"github.com/airlock/listenerset-webhook/validation"
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
		}{{".yaml", yaml.Marshal}, {".json", json.Marshal}} {
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
