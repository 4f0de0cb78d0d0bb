# The two set-up commands are `make run` and `make test`; the test tiers: CONTRIBUTING.md. `make help`
# lists every target from its `## target: text` comment.
SHELL := /usr/bin/env bash
GO ?= go
BIN := bin
WEBHOOK := $(BIN)/listenerset-webhook
PLUGIN := $(BIN)/kubectl-listenerset

.PHONY: all help build image ociimage release release-check publish cosign cyclonedx-gomod krew chart-score run ci-tools node-setup gotestsum node-binaries matrix-binaries test test-all test-release test-matrix test-matrix-ends test-node test-node-stress bench bench-scale bench-audit fuzz vet k8s-binaries helm chart-lint chart-template chart-policy chart-generate docs-generate generate verify promtool clean clean-cache

all: build

## help: every .PHONY target that has a `## target: text` comment, with it, in the order of this file
## (test/repository's TestMakeHelp holds that every such comment is listed)
help:
	@awk '/^\.PHONY:/ { for (i = 2; i <= NF; i++) phony[$$i] = 1 } \
	  /^## [a-z][a-z0-9-]*: / && phony[substr($$2, 1, length($$2) - 1)] { printf "%-20s %s\n", substr($$2, 1, length($$2) - 1), substr($$0, length($$2) + 5); on = 1; next } \
	  on && /^## / { printf "%-20s %s\n", "", substr($$0, 4); next } { on = 0 }' $(firstword $(MAKEFILE_LIST))

## build: the server, bin/listenerset-webhook, and the kubectl plugin with the offline commands,
## bin/kubectl-listenerset, with kubectl's completion helper for it (bin/kubectl_complete-listenerset):
## with bin/ on PATH, `kubectl listenerset validate -f ...` runs the plugin and completes its arguments
build:
	@mkdir -p $(BIN)
	$(GO) build -trimpath -o $(WEBHOOK) ./cmd/listenerset-webhook
	$(GO) build -trimpath -o $(PLUGIN) ./cmd/kubectl-listenerset
	cp cmd/kubectl-listenerset/kubectl_complete-listenerset $(BIN)/

## image: the product image as an OCI tarball, without Docker: the static binaries on an empty base (the
## server, the entrypoint, and the kubectl plugin /kubectl-listenerset, which the chart's audit CronJob
## runs) and /LICENSE, the Dockerfile's user, entrypoint and ports (test/image compares the two), for this machine's platform.
## Named <the chart's default image.repository>:<appVersion>, localhost/listenerset-webhook:0.1.0, which
## containerd keeps as it is: imported with `ctr -n k8s.io images import bin/image/listenerset-webhook.tar`,
## the chart's default finds it and never pulls. The release's image is make release's.
IMAGE_TAG ?= $(shell sed -n 's/^appVersion: *"\{0,1\}\([^"]*\)"\{0,1\}/\1/p' charts/listenerset-webhook/Chart.yaml)
IMAGE_REPOSITORY ?= $(shell sed -n '/^image:/,/^[^ \#]/s/^  repository: *//p' charts/listenerset-webhook/values.yaml)
IMAGE_NAME ?= $(IMAGE_REPOSITORY):$(IMAGE_TAG)
IMAGE ?= $(CURDIR)/$(BIN)/image/listenerset-webhook.tar
# What the image is around its binary, the Dockerfile's final stage; make release's image is the same.
IMAGE_FLAGS = -passwd nonroot:65532 -user 65532:65532 -entrypoint /listenerset-webhook -cmd serve \
  -expose 9443/tcp -expose 8080/tcp -expose 8081/tcp
image: ociimage
	@mkdir -p $(BIN)/image $(dir $(IMAGE))
	for cmd in listenerset-webhook kubectl-listenerset; do \
	  CGO_ENABLED=0 $(GO) build -trimpath -ldflags="-s -w" -o $(BIN)/image/$$cmd ./cmd/$$cmd || exit 1; \
	done
	$(BIN)/ociimage -o $(IMAGE) -name $(IMAGE_NAME) -file /listenerset-webhook=$(BIN)/image/listenerset-webhook \
	  -file /kubectl-listenerset=$(BIN)/image/kubectl-listenerset -file /LICENSE=LICENSE $(IMAGE_FLAGS)

# The tools below and the Kubernetes binaries are built once per machine, into the user cache
# (hack/k8s-binaries.sh; CONTRIBUTING.md, "Built once per machine"); bin/ holds links to them.
TOOL = @hack/k8s-binaries.sh

## ociimage: bin/ociimage, the image tool (hack/tools/ociimage, go-containerregistry, its own module), which
## also pushes an image tarball to a registry (make publish), and bin/ociregistry, go-containerregistry's
## registry on a loopback address with TLS, which test/chart's TestNode/InstallFromRegistry publishes to (cached)
ociimage:
	$(TOOL) ociimage

## cosign: bin/cosign v2.6.5 from hack/tools/cosign, which make release signs with (cold: 15 minutes at load
## 11 to 21; cached)
cosign:
	$(TOOL) cosign

## cyclonedx-gomod: bin/cyclonedx-gomod from hack/tools/cyclonedx-gomod, which make release writes the
## SBOMs with (cold: 71 s at load 11 to 21; cached)
cyclonedx-gomod:
	$(TOOL) cyclonedx-gomod

## krew: bin/krew v0.4.3 from hack/tools/krew, the kubectl plugin manager, which test/release installs the
## release's plugin with from a local index, and bin/validate-krew-manifest, krew-index's check of a
## submitted manifest, from the same module (cold: 27 s at load 11, then 6 s; cached)
krew:
	$(TOOL) krew

## release: dist/ for VERSION=vX.Y.Z (hack/release.sh build; docs/release.md): the image for linux/amd64
## and linux/arm64 (one OCI image index, an OCI tarball), the chart pinned to its digest, kubectl-listenerset
## for linux and darwin on amd64 and arm64 (each binary and a .tar.gz of it for krew), the krew plugin
## manifest listenerset.yaml whose uris start with KREW_URI_BASE (default: the module's GitHub release
## downloads), CycloneDX SBOMs, SHA256SUMS, cosign signatures with COSIGN_KEY (and COSIGN_PASSWORD), and
## the release notes, CHANGELOG.md's section of VERSION.
## release-check: the release built twice from HEAD (the second from a clone elsewhere; RELEASE_CHECK_COLD=1
## with an empty Go build cache) with a throwaway key; every file but the signatures must be the same.
## RELEASE_TOOL_TARGETS are the tools both build first; the release tests, run once they are built, set it empty.
RELEASE_TOOLS = IMAGE_FLAGS='$(IMAGE_FLAGS)' HELM=$(HELM) COSIGN=$(CURDIR)/$(BIN)/cosign CYCLONEDX=$(CURDIR)/$(BIN)/cyclonedx-gomod OCIIMAGE=$(CURDIR)/$(BIN)/ociimage
RELEASE_TOOL_TARGETS = helm ociimage cosign cyclonedx-gomod
release: $(RELEASE_TOOL_TARGETS)
	VERSION=$(VERSION) KREW_URI_BASE=$(KREW_URI_BASE) $(RELEASE_TOOLS) hack/release.sh build
release-check: $(RELEASE_TOOL_TARGETS)
	VERSION=$(or $(VERSION),v0.0.0-check) $(RELEASE_TOOLS) hack/release.sh check

## publish: dist/ of VERSION (DIST=... for a release downloaded elsewhere) pushed to REGISTRY (host[:port]/path,
## any OCI registry) and signed there (hack/release.sh publish; docs/release.md): the release checked first
## against RELEASE_KEY (default its cosign.pub), the image index by digest and tagged VERSION, the chart to
## oci://REGISTRY/charts, both signed with COSIGN_KEY and verified; REGISTRY_CA for a registry of a private CA
publish: helm ociimage cosign
	VERSION=$(VERSION) REGISTRY=$(REGISTRY) REGISTRY_CA=$(REGISTRY_CA) RELEASE_KEY=$(RELEASE_KEY) $(RELEASE_TOOLS) hack/release.sh publish

## k8s-binaries: kube-apiserver, kubectl and etcd built from Go modules once per machine, linked into
## bin/k8s/<version>/ (cached)
k8s-binaries:
	hack/k8s-binaries.sh

## helm: helm v3 built from its Go module once per machine, linked into bin/helm/<version>/ (cached)
helm:
	$(TOOL) helm

HELM = $$(hack/k8s-binaries.sh helm-dir)/helm
CHART := charts/listenerset-webhook

## chart-lint: helm lint --strict of the chart in both certificate modes
chart-lint: helm
	$(HELM) lint --strict $(CHART) --set image.preloaded=true
	$(HELM) lint --strict $(CHART) --set image.preloaded=true --set certManager.enabled=false
	$(HELM) lint --strict $(CHART) --set image.preloaded=true --set admission.mode=both --kube-version 1.30.0

## chart-score: kube-score v1.20.0 (built from hack/tools/kube-score, cached) over the chart's render in each mode
## (hack/chart-score.sh); a finding fails, but for the ignores listed there, each answered in values.yaml
chart-score: helm
	$(TOOL) kube-score
	hack/chart-score.sh "$(HELM)" $(BIN)/kube-score

## chart-template: render the chart (cert-manager mode, the image make image builds; add ARGS='--set
## certManager.enabled=false' or ARGS='--set admission.mode=policy') for Kubernetes KUBE_VERSION (the chart's
## kubeVersion refuses helm's v1.20.0)
chart-template: helm
	@$(HELM) template listenerset-webhook $(CHART) --namespace listenerset-webhook --kube-version $(or $(KUBE_VERSION),1.37.2) --set image.preloaded=true $(ARGS)

## chart-policy: regenerate the chart's copy of the generated ValidatingAdmissionPolicy and binding,
## $(CHART)/files/policy.yaml: `kubectl listenerset policy --gateways infra/airlock`, its defaults with the scope (the
## chart puts admission.policy.gateways in that list's place, or removes the scope; test/chart fails while it is stale)
chart-policy:
	$(GO) generate ./policy

## chart-generate: regenerate every file the chart takes from the Go code: files/policy.yaml (chart-policy)
## and files/webhooks.yaml (the webhooks' names, paths, rules and match condition, admission.Registrations)
chart-generate: chart-policy
	$(GO) generate ./webhook/admission

## docs-generate: regenerate docs/codes.md, the page of every diagnostic code, from the catalog in the Go
## code (validation/catalog.go and the codes.go of validation/internal/object, incluster and routes, the option table in
## validation/internal/object/names.go, offline/judge/codes.go, each code's rules), and the table of docs/rules.md from the
## rules' definitions (object.Rules); test/docs' TestCodesPageIsGenerated and TestRulesTableIsGenerated fail
## while they are stale
docs-generate:
	$(GO) generate ./validation

## generate: every generated file, from the //go:generate lines beside its source (validation/doc.go:
## docs/codes.md, the table of docs/rules.md, the fuzz seeds; policy/doc.go: the chart's files/policy.yaml;
## webhook/admission/doc.go: the chart's files/webhooks.yaml; test/chart/main_test.go: docs/chart.md's value
## table and values.schema.json's Kubernetes definitions)
generate:
	$(GO) generate ./...

## verify: make generate, then fail when a generated file differs from the committed one (or is new)
GENERATED = docs/codes.md docs/rules.md docs/chart.md $(CHART)/files $(CHART)/values.schema.json validation/testdata/fuzz
verify: generate
	@if [ -n "$$(git status --porcelain -- $(GENERATED))" ]; then git status --short -- $(GENERATED); \
		echo "verify: generated files differ from the committed ones: commit what make generate wrote"; exit 1; fi

## run: a local control plane with the webhook registered; Ctrl-C stops everything (exit 0).
## RUN_FLAGS go to hack/run (e.g. RUN_FLAGS=-strict; RUN_FLAGS=-h lists them).
## MODE=policy|both is the chart's admission.mode (RUN_FLAGS=-mode=...): the ValidatingAdmissionPolicies
## alone (no webhook), or the policies with the webhook failing open.
## hack/run builds or finds the k8s binaries itself, as one of its progress lines.
## NODE=1 (-node, hack/run/node.go): the chart on a real single-node cluster instead (hack/node; root).
MODE ?=
run:
	@printf '[run %s] compiling ./hack/run and the webhook\n' "$$(date +%H:%M:%S)"
	@$(GO) build -o $(BIN)/run ./hack/run
	@$(BIN)/run $(if $(MODE),-mode=$(MODE)) $(if $(NODE),-node) $(RUN_FLAGS)

## ci-tools: the SARIF multitool (npm, pinned, into bin/npm/) and pre-commit, for the validate command's
## format and hook tests, installed when missing and installable here: npm (when missing) and pre-commit
## come from Debian's packages, which needs root. What it cannot install it names; those tests skip.
ci-tools:
	@hack/ci-tools.sh install sarif-multitool pre-commit

## node-setup: what the node suite needs (hack/node/setup.sh: Debian's containerd, runc, CNI plugins,
## iptables and conntrack, the node's binaries and images), as root with apt-get; elsewhere the suite
## skips and says why
node-setup: k8s-binaries helm
	@if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then hack/node/setup.sh; fi

## promtool: bin/promtool, built from hack/tools/promtool (Prometheus v3), which test/chart runs as
## `promtool test rules` over the chart's alerts. Without Prometheus' service discovery plugins
## (remove_all_sd: `test rules` needs none): 266 s cold at load 3 to 4, where every plugin took over 20 minutes (cached).
promtool:
	$(TOOL) promtool

## gotestsum: bin/gotestsum, pinned in hack/tools/gotestsum (its own module), which runs make test's and
## make test-all's go test and prints one line a package, the failures' output and a summary (cached)
GOTESTSUM := $(BIN)/gotestsum
gotestsum:
	$(TOOL) gotestsum

# FAIL_ON_SKIP=1 (.ci/run): a skipped test fails the run, after the summary has listed each with its reason.
SKIP_CHECK = --post-run-command 'bash -c "[ $$TESTS_SKIPPED = 0 ] || { echo FAIL_ON_SKIP=1: $$TESTS_SKIPPED tests skipped; exit 1; }"'
GOTESTSUM_FLAGS = --format pkgname-and-test-fails --format-hide-empty-pkg
TESTSUM = $(GOTESTSUM) $(GOTESTSUM_FLAGS) $(if $(filter 1,$(FAIL_ON_SKIP)),$(SKIP_CHECK))
# The node suite: test/chart's TestNode on a real single-node cluster (test-node, test-all).
NODE_SUITE = -- -count=1 -timeout 30m -run '^TestNode$$' ./test/chart
# The release suite: test/release, a release built and installed as users install it (test-release, test-all,
# once the release tools and krew are built).
RELEASE_SUITE_PKG = ./test/release
RELEASE_SUITE = -- -count=1 -timeout 20m $(RELEASE_SUITE_PKG)

## test: what to run after a change: every package's tests with -short (what that covers and how long it
## takes: CONTRIBUTING.md, Test tiers). Tests that -short leaves to make test-all skip silently; builds only
## kube-apiserver, kubectl, etcd and helm.
test: k8s-binaries helm gotestsum
	$(GOTESTSUM) $(GOTESTSUM_FLAGS) --hide-summary=skipped -- -short -count=1 -timeout 20m ./...

## test-all: everything, what .ci/run runs (CONTRIBUTING.md, Test tiers), in this order: vet, verify,
## chart-score, every Go test without -short (the longest packages first), the release suite (test-release),
## the node suite (test-node) and, beside it, test-matrix-ends but for the default Kubernetes version (its
## newest end), which every one of those Go tests has just run against (the node suite mostly waits for its
## pods; the matrix' output is .run/test-all-matrix.log, printed after it). The summary lists each skipped
## test with its reason; FAIL_ON_SKIP=1 (.ci/run) fails the run on a skip.
## What only the release and node suites and the matrix need (cosign, cyclonedx-gomod, krew, the oldest
## version's kube-apiserver and kubectl, the node's binaries) builds at nice 19 from the start, in the time
## the rest leaves a core idle (downloads, links, the tests' waits); its log is .run/test-all-tools.log.
## Everything is built with CGO_ENABLED=0 and -trimpath, as the image and the release are, so that the
## tests, vet, the image, the release and the load tool share one compile of the product's dependencies.
LATE_TOOLS = cosign cyclonedx-gomod krew matrix-binaries node-binaries
# go test runs two packages at a time here (-p, the cores), in the order given: the longest first, in the
# order of their elapsed time in a warm make test-all (gotestsum --jsonfile), so that the packages that
# start last are short ones and no long one runs alone at the end. The rest follow in go list order; a
# name that go list no longer lists is left out.
LONG_TEST_PKGS = policy test/e2e test/policy test/chart test/localcluster test/reliability webhook/admission \
  cmd/kubectl-listenerset test/image offline webhook test/docs
# test-all's go test packages: every package but the release suite's, LONG_TEST_PKGS first
TEST_ALL_PKGS = $$($(GO) list ./... | grep -v '/$(RELEASE_SUITE_PKG:./%=%)$$' | \
  awk -v mod=$$($(GO) list -m) -v long='$(LONG_TEST_PKGS)' '{ pkg[NR] = $$0 } END { n = split(long, l, " "); \
  for (i = 1; i <= n; i++) for (j = 1; j <= NR; j++) if (pkg[j] == mod "/" l[i]) { print pkg[j]; pkg[j] = "" } \
  for (j = 1; j <= NR; j++) if (pkg[j] != "") print pkg[j] }')
# test-all's matrix: test-matrix-ends' versions but the default one (hack/k8s-binaries.sh default-version,
# the newest end), whose row (test/e2e's quickTests, test/policy's differential test on a sample of one
# CRD set, test/chart's server-side dry runs) is a part of test-all's go test, which ran against it whole.
TEST_ALL_MATRIX = $$(hack/k8s-binaries.sh versions | \
  awk -v d=$$(hack/k8s-binaries.sh default-version) '{ if ($$1 != d) print $$1; if ($$NF != d) print $$NF }')
test-all: export CGO_ENABLED = 0
test-all: export GOFLAGS = -trimpath
test-all: gotestsum
	@mkdir -p .run; nice -n 19 $(MAKE) --no-print-directory $(LATE_TOOLS) > .run/test-all-tools.log 2>&1 & tools=$$!; \
	$(MAKE) --no-print-directory vet verify k8s-binaries helm chart-score promtool ociimage ci-tools || { kill $$tools; exit 1; }; \
	$(TESTSUM) -- -count=1 -timeout 30m -skip '^TestNode(Stress)?$$' $(TEST_ALL_PKGS); s=$$?; \
	if ! wait $$tools; then tail -40 .run/test-all-tools.log; echo "test-all: building $(LATE_TOOLS) failed (.run/test-all-tools.log)"; exit 1; fi; \
	$(TESTSUM) $(RELEASE_SUITE) || s=1; \
	$(GO) run ./hack/matrix $(MATRIX_FLAGS) $(TEST_ALL_MATRIX) > .run/test-all-matrix.log 2>&1 & matrix=$$!; \
	$(MAKE) --no-print-directory node-setup && NODE_TESTS=1 $(TESTSUM) $(NODE_SUITE) || s=1; \
	wait $$matrix || s=1; cat .run/test-all-matrix.log; exit $$s

## test-release: the release suite alone (test/release, 30 s warm): make release for this machine's
## platform with a throwaway key, its kubectl plugin installed with krew from a local index and run as
## `kubectl listenerset version` (docs/release.md)
test-release: k8s-binaries $(RELEASE_TOOL_TARGETS) krew gotestsum
	$(TESTSUM) --format standard-verbose $(RELEASE_SUITE)

## node-binaries: kubelet, kube-controller-manager, kube-scheduler and kube-proxy (hack/k8s-binaries.sh node)
node-binaries:
	@hack/k8s-binaries.sh node

## matrix-binaries: kube-apiserver and kubectl of the matrix' oldest version (its newest is the default
## version, k8s-binaries'; test-matrix-ends builds what is missing)
matrix-binaries:
	@KUBE_VERSION=$$(hack/k8s-binaries.sh versions | awk '{print $$1}') hack/k8s-binaries.sh k8s

## test-node: the chart on a real single-node cluster (hack/node: kubelet, containerd, kube-proxy; test/chart
## TestNode with NODE_TESTS=1), about 4 minutes once built (236 s). Needs root on Debian: node-setup installs Debian's
## containerd, runc, CNI plugins, iptables and conntrack when missing and builds the node's binaries and images.
test-node: ociimage cosign cyclonedx-gomod node-setup gotestsum
	NODE_TESTS=1 $(TESTSUM) --format standard-verbose $(NODE_SUITE)

## test-node-stress: test/chart TestNodeStress on the real node (NODE_STRESS=1 NODE_TESTS=1, root, not part of
## make test-all): NODE_STRESS_COUNT (default 20) helm-upgrade rollouts in a row in each certificate mode, then as
## many pod deletions and evictions, all under load, 0 failed requests wanted; RESULT lines give the figures
## (docs/reliability.md). About an hour on the shared 2-core machine at the default count.
NODE_STRESS_COUNT ?= 20
test-node-stress: node-setup
	NODE_STRESS=1 NODE_TESTS=1 NODE_STRESS_COUNT=$(NODE_STRESS_COUNT) $(GO) test -count=1 -timeout 180m -run '^TestNodeStress$$' -v ./test/chart

## test-matrix: the Kubernetes version matrix (hack/matrix), one row per version of `hack/k8s-binaries.sh versions`
## (1.30 to 1.37): that version's kube-apiserver and kubectl (built when missing; cost: docs/kubernetes-versions.md) under the
## end-to-end behaviours, the policy's differential test on a sample and the chart's server-side dry-run.
## MATRIX_VERSIONS='1.30.14 1.33.13' picks versions; MATRIX_FLAGS=-build=false skips those not built yet.
test-matrix: helm
	$(GO) run ./hack/matrix $(MATRIX_FLAGS) $(MATRIX_VERSIONS)

## test-matrix-ends: test-matrix for the oldest supported version and the newest (make test-all runs the
## ends but the default version, the newest, which its other tests run against)
test-matrix-ends: helm
	$(GO) run ./hack/matrix $(MATRIX_FLAGS) $$(hack/k8s-binaries.sh versions | awk '{print $$1, $$NF}')

## bench: benchmarks, the load tool (ours vs floor at 1, 8, 32 clients) and the API server figure;
## results in .run/load (docs/performance.md). BENCH_FLAGS go to the load tool.
bench: k8s-binaries
	@mkdir -p .run/load
	$(GO) test -run '^$$' -bench . -benchmem -benchtime 200ms ./validation ./webhook/admission ./webhook/clusterview ./test/load | tee .run/load/benchmarks.txt
	$(GO) run ./test/load $(BENCH_FLAGS)

## bench-scale: the cluster-aware checks with 0, 1 000 and 10 000 ListenerSets in the local cluster: creates
## through kube-apiserver (p50/p99), the webhook's CPU and allocations per request, RSS and time to ready, in a
## few minutes per shape; results in .run/load/scale.json (docs/performance.md). BENCH_FLAGS go to the load tool
## (-sizes=0,200 is quick). SCALE_SHAPES: gateways (spread over 100 Gateways), one-gateway (every
## ListenerSet on one Gateway: .run/load/scale-one-gateway.json), owners (one Gateway, 1 000 owner
## namespaces declaring their hostnames: .run/load/scale-owners.json) and route-creates (as owners, with as
## many HTTPRoutes holding claims; times HTTPRoute creates, target 1.2 x the CPU at 0, and sends the worst
## route: .run/load/scale-route-creates.json). Then the routes shape: 100 sets of one Gateway with no
## HTTPRoutes and with SCALE_ROUTES attached, timing label updates of one set (.run/load/routes-0 and
## routes-$(SCALE_ROUTES)).
SCALE_SHAPES ?= gateways one-gateway owners route-creates
SCALE_ROUTES ?= 10000
bench-scale: k8s-binaries
	@set -e; for shape in $(SCALE_SHAPES); do $(GO) run ./test/load -scale -scale-shape=$$shape $(BENCH_FLAGS); done; \
	for routes in 0 $(SCALE_ROUTES); do $(GO) run ./test/load -scale -scale-shape=one-gateway -sizes=100 -scale-routes=$$routes \
		-scale-updates -out .run/load/routes-$$routes $(BENCH_FLAGS); done

## bench-audit: kubectl listenerset audit of the local cluster holding 1 000 and 10 000 ListenerSets in each of
## SCALE_SHAPES but route-creates (bench-scale's shapes, populated as it populates them), timed with the lists
## from kube-apiserver: wall time, CPU, peak RSS; results in .run/load/audit*.json (docs/performance.md).
## BENCH_FLAGS go to the load tool (-audit-sizes=200 is quick).
bench-audit: k8s-binaries
	@set -e; for shape in $(filter-out route-creates,$(SCALE_SHAPES)); do $(GO) run ./test/load -audit-scale -scale-shape=$$shape $(BENCH_FLAGS); done

## vet: go vet, staticcheck (built from hack/tools/staticcheck, its own module; cached) and gofmt
FUZZTIME ?= 60s
FUZZ_TARGETS ?= validation:FuzzValidateListenerSet webhook/admission:FuzzAdmissionReview webhook/admission:FuzzReadReview

## fuzz: each fuzz target (FUZZ_TARGETS, package:Target) for FUZZTIME, one after another; FUZZTIME=10000000x
## runs that many executions instead. FUZZFLAGS go to go test (e.g. -parallel 2). Only this module and
## the JSON decoders carry coverage counters (hack/fuzz-toolexec.sh, FUZZ_INSTRUMENT): the fuzzer scans
## all of them after every execution. Findings land in <package>/testdata/fuzz/<Target>/ and fail the run.
fuzz:
	@set -e; for t in $(FUZZ_TARGETS); do \
	  echo "== $${t#*:} ($(FUZZTIME))"; \
	  $(GO) test -toolexec $(CURDIR)/hack/fuzz-toolexec.sh -run '^$$' -fuzz "^$${t#*:}\$$" \
	    -fuzztime $(FUZZTIME) $(FUZZFLAGS) ./$${t%%:*}; \
	done

vet:
	$(GO) vet ./...
	$(TOOL) staticcheck
	$(BIN)/staticcheck ./...
	@unformatted=$$(gofmt -l $$(git ls-files '*.go')); \
	  if [ -n "$$unformatted" ]; then echo "gofmt needed: $$unformatted"; exit 1; fi

## clean: what the builds wrote in the clone; the Kubernetes binaries and the tools stay in the user cache
clean:
	rm -rf $(WEBHOOK) $(PLUGIN) $(BIN)/kubectl_complete-listenerset .run dist

## clean-cache: remove the binaries every clone shares, the user cache (hack/k8s-binaries.sh cache-dir); the
## next build builds them again (cold, CPU-bound: the Kubernetes binaries take 12 to 23 minutes on 2 cores)
clean-cache:
	hack/k8s-binaries.sh clean-cache
