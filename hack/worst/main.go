// Command worst writes the worst ListenerSets the CRD admits
// (validationtest.WorstShapes, at 64 listeners) as YAML files, one per
// shape, for measuring the offline command on them by hand:
//
//	go run ./hack/worst -o .run/worst
//	/usr/bin/time -v bin/listenerset-webhook validate -f .run/worst/most-selector-errors.yaml
//
// docs/performance.md gives the figures.
package main

import (
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
	for _, s := range validationtest.WorstShapes {
		if s.Update != nil {
			continue // an update's cost needs a stored object: the webhook's figure
		}
		data, err := yaml.Marshal(s.Build(*n))
		if err == nil {
			err = os.WriteFile(filepath.Join(*out, s.Name+".yaml"), data, 0o644)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Printf("%s/%s.yaml: %d bytes\n", *out, s.Name, len(data))
	}
}
