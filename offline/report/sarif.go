package report

import (
	"io"
	"net/url"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"

	"github.com/owenrumney/go-sarif/v2/sarif"

	"github.com/airlock/listenerset-webhook/offline/judge"
	"github.com/airlock/listenerset-webhook/offline/read"
)

// srcRoot is the uriBaseId of every file: GitHub code scanning resolves it to
// the repository root, and originalUriBaseIds says what it was here.
const srcRoot = "%SRCROOT%"

// toolURI is where the rules are explained.
const toolURI = "https://github.com/airlock/listenerset-webhook#offline-listenerset-webhook-validate"

// writeSARIF writes r as a SARIF 2.1.0 log: one run, a rule per check that
// gave a finding, a result per error (level error) and warning (level
// warning), each located at its field's line and column in a file named
// relative to workDir (the working directory when empty).
func writeSARIF(w io.Writer, r *Report, workDir string) error {
	if workDir == "" {
		var err error
		if workDir, err = os.Getwd(); err != nil {
			return err
		}
	}
	log, err := sarif.New(sarif.Version210)
	if err != nil {
		return err
	}
	run := sarif.NewRunWithInformationURI("listenerset-webhook", toolURI)
	version := toolVersion()
	run.Tool.Driver.Version = &version
	run.WithColumnKind("unicodeCodePoints") // what the position package counts
	run.WithOriginalUriBaseIds(map[string]*sarif.ArtifactLocation{
		srcRoot: sarif.NewArtifactLocation().WithUri(dirURI(workDir)),
	})
	for _, f := range r.findings() {
		if _, err := run.GetRuleById(f.Rule.ID); err != nil {
			run.AddRule(f.Rule.ID).WithShortDescription(sarif.NewMultiformatMessageString(f.Rule.Short)).
				WithHelp(sarif.NewMultiformatMessageString(f.Rule.Help)).WithHelpURI(f.Rule.HelpURI)
		}
		level := "warning"
		if f.Error {
			level = "error"
		}
		location := sarif.NewLocation()
		if f.File != "" {
			// A stored object (the audit's) has no file: only the logical
			// location below names it.
			loc := sarif.NewPhysicalLocation().WithArtifactLocation(artifact(f.File, workDir))
			if f.Line > 0 {
				region := sarif.NewRegion().WithStartLine(f.Line)
				if f.Column > 0 {
					region.WithStartColumn(f.Column)
				}
				loc.WithRegion(region)
			}
			location.WithPhysicalLocation(loc)
		}
		if f.Object != "" {
			// The object and field, for viewers that show logical locations.
			location.AddLogicalLocations(sarif.NewLogicalLocation().WithKind("member").
				WithFullyQualifiedName(f.Kind + " " + f.Object + " " + f.Field))
		}
		res := run.CreateResultForRule(f.Rule.ID).WithLevel(level).
			WithMessage(sarif.NewTextMessage(sarifText(f)))
		res.AddLocation(location)
		if state, ok := sarifBaseline[f.Baseline]; ok {
			res.WithBaselineState(state)
		}
	}
	run.Results = append(make([]*sarif.Result, 0, len(run.Results)), run.Results...) // "results": [] when valid
	log.AddRun(run)
	return log.PrettyWrite(w)
}

// sarifBaseline is SARIF's baselineState of each Baseline: the live
// cluster's findings are the baseline run.
var sarifBaseline = map[judge.Baseline]string{judge.Introduced: "new", judge.Unchanged: "unchanged", judge.Fixed: "absent"}

// sarifText is the message: kubectl's, which starts with the field path.
func sarifText(f finding) string {
	if f.Object == "" {
		return f.Message
	}
	return f.Kind + " " + f.Object + ": " + f.Message
}

// artifact names file relative to workDir under %SRCROOT% when it lies
// inside it; otherwise as an absolute file URI (a code scanning upload then
// cannot place it). Standard input is the relative name STDIN.
func artifact(file, workDir string) *sarif.ArtifactLocation {
	if file == read.StdinName {
		return sarif.NewSimpleArtifactLocation(read.StdinName).WithUriBaseId(srcRoot)
	}
	abs := file
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(workDir, file)
	}
	rel, err := filepath.Rel(workDir, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return sarif.NewSimpleArtifactLocation((&url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}).String())
	}
	return sarif.NewSimpleArtifactLocation((&url.URL{Path: filepath.ToSlash(rel)}).String()).WithUriBaseId(srcRoot)
}

// dirURI is dir as a file URI ending in "/", as SARIF wants a base.
func dirURI(dir string) string {
	p := filepath.ToSlash(dir)
	if !strings.HasSuffix(p, "/") {
		p += "/"
	}
	return (&url.URL{Scheme: "file", Path: p}).String()
}

// toolVersion is the module version the binary was built from without its
// "v" (SARIF viewers compare versions that start with a number), or
// 0.0.0-devel for a build without one, such as go test's.
func toolVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return strings.TrimPrefix(bi.Main.Version, "v")
	}
	return "0.0.0-devel"
}
