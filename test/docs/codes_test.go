package docs

import (
	"flag"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/airlock/listenerset-webhook/findings"
	"github.com/airlock/listenerset-webhook/offline/report"
	"github.com/airlock/listenerset-webhook/test/golden"
	"github.com/airlock/listenerset-webhook/validation"
	"github.com/airlock/listenerset-webhook/webhook/admission"
)

var update = flag.Bool("update", false, "rewrite docs/codes.md")

// codesPage is the page of every diagnostic code, generated from the
// catalog (report.Catalog: validation's codes and offline/judge's).
const codesPage = "docs/codes.md"

// TestCodesPageIsGenerated: docs/codes.md is exactly what the catalog
// says. It fails when a code, its path, cause or fix changed in Go and the
// page was not regenerated (`make docs-generate`, or this test with
// -update).
func TestCodesPageIsGenerated(t *testing.T) {
	golden.Generated(t, filepath.Join(root, codesPage), renderCodes(report.Catalog()), *update,
		"`make docs-generate` (go test ./test/docs -run TestCodesPageIsGenerated -update)")
}

func renderCodes(codes []findings.CodeDoc) []byte {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	p("# Diagnostic codes\n\n")
	p("<!-- Generated from validation/catalog.go and the codes.go of validation/internal/object, incluster and routes, the option table of validation/internal/object/names.go and offline/judge/codes.go\n")
	p("     by `make docs-generate`; test/docs' TestCodesPageIsGenerated fails while it is stale. Do not edit by hand. -->\n\n")
	p("Every error and warning the rules give has a stable code: the webhook's audit annotation, the offline\n")
	p("commands' JSON (`code`), JUnit (the failure's `type`), GitHub annotations (the title) and SARIF (`ruleId`,\n")
	p("with `helpUri` to its entry here) carry it. kubectl's text (the 422 message and the `Warning:` lines)\n")
	p("does not show it: that text is kube-apiserver's own.\n\n")
	p("**A code is stable.** Once given, a code keeps its meaning and is never given to another finding, even\n")
	p("after its rule is gone: a retired code stays listed here, marked retired. Suppressions, alerts and\n")
	p("dashboards may rely on it across versions. A new rule gets the next free code of its range.\n\n")
	p("| range | kind | what |\n|---|---|---|\n")
	p("| `LS0xx` | summary | a report's last entry, standing for the findings it does not show (it shows the first ones up to a budget) |\n")
	p("| `LS0xx` | offline | what the offline commands find besides the rules: the input, kube-apiserver's own checks, and the audit's comparison of a stored status with the prediction |\n")
	p("| `LS1xx` | error | the object's own rules: it is denied |\n")
	p("| `LS2xx` | warning | the object's own warnings: it is admitted |\n")
	p("| `LS3xx` | cluster | the cluster-aware rules: a conflict or a reference no ReferenceGrant permits is an error under `--strict`, a warning otherwise; the rest are warnings |\n\n")
	p("A warning that stands for an error carries the error's code: a ratcheted error (kind `%s`), an error\n", validation.KindRatcheted)
	p("under enforcement warn (`%s`) and a cluster-aware error outside strict mode (`%s`).\n", validation.KindWouldDeny, validation.KindClusterFinding)
	p("The webhook's audit annotation `%s` lists the distinct codes of a denial's errors, sorted (the audit\n", admission.AuditCodesKey)
	p("event records it as `%s/%s`); under enforcement warn,\n", admission.ValidatingWebhookName, admission.AuditCodesKey)
	p("`%s` lists those that would have denied it.\n\n", admission.AuditWouldDenyCodesKey)
	p("Paths write each list index and map key as `[*]`.\n\n")
	p("| code | kind | title |\n|---|---|---|\n")
	for _, d := range codes {
		p("| [%s](#%s) | %s | %s |\n", d.Code, strings.ToLower(string(d.Code)), d.Kind, d.Title)
	}
	for _, d := range codes {
		p("\n### %s\n\n", d.Code)
		p("**%s** (%s", d.Title, d.Kind)
		if d.WarningKind != "" {
			p(", warning kind `%s`", d.WarningKind)
		}
		p(")\n\n")
		if len(d.Paths) > 0 {
			paths := make([]string, len(d.Paths))
			for i, path := range d.Paths {
				paths[i] = "`" + path + "`"
			}
			p("- Path: %s\n", strings.Join(paths, ", "))
		}
		for _, r := range d.Rules {
			p("- Rule: %s\n", r)
		}
		if d.Retired != "" {
			p("- Retired: %s\n", d.Retired)
		}
		p("- Cause: %s\n", d.Cause)
		p("- Fix: %s\n", d.Fix)
	}
	return []byte(b.String())
}
