package main

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// servedForbidden are packages the served binary must not link, each with
// those under it:
// the offline machinery (apiextensions-apiserver's schema, defaulting and CEL
// validation; CEL itself) and the product's offline packages, which are the
// kubectl plugin's (cmd/kubectl-listenerset).
var servedForbidden = []string{
	"k8s.io/apiextensions-apiserver",
	"github.com/google/cel-go",
	modulePath + "/offline",
	modulePath + "/policy",
	modulePath + "/listing",
	modulePath + "/cmd/kubectl-listenerset",
}

// servedAllowed are the exceptions, each with its reason: cert-manager's API
// types (webhook/certs uses cert-manager's DynamicAuthority for the
// self-bootstrapped CA, whose package imports
// github.com/cert-manager/cert-manager/pkg/apis/certmanager/v1, whose ACME
// issuer types hold an apiextensionsv1.JSON) reach apiextensions' two API
// types packages: Go types and their generated code, no schema, no CEL.
var servedAllowed = map[string]string{
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions":    "cert-manager's ACME types",
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1": "cert-manager's ACME types",
}

// TestServedDependencies: `go list -deps` of this command, the binary the
// image holds, names none of servedForbidden but servedAllowed.
func TestServedDependencies(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	require.NoError(t, err, "go list -deps .")
	deps := strings.Fields(string(out))
	require.Contains(t, deps, "github.com/airlock/listenerset-webhook/webhook", "go list listed the server's packages")
	for _, dep := range deps {
		if _, ok := servedAllowed[dep]; ok {
			continue
		}
		for _, bad := range servedForbidden {
			if dep == bad || strings.HasPrefix(dep, bad+"/") {
				t.Errorf("the served binary links %s (%s): the offline commands belong to cmd/kubectl-listenerset", dep, bad)
			}
		}
	}
	for dep, why := range servedAllowed {
		assert.Contains(t, deps, dep, "%s is allowed for %s; drop the exception once it is gone", dep, why)
	}
}
