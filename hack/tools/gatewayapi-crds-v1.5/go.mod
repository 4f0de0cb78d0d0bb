// Fetches sigs.k8s.io/gateway-api v1.5.1 for its CRD files only
// (config/crd/standard: v1.5 is the first release with ListenerSet in the
// standard channel), which the end-to-end suite's CRD matrix installs besides
// the v1.6.3 ones of the product's go.mod and v1.7.0's of
// hack/tools/gatewayapi-crds (localcluster.GatewayAPICRDs). The product keeps
// its v1.6.3 Go types.
//
// Nothing in this module is built, listed or tidied; the only command run here
// is `go mod download -json sigs.k8s.io/gateway-api`, which fetches the module
// and verifies it against the go.sum below (its "Sum" and "GoModSum").
module github.com/airlock/listenerset-webhook/hack/tools/gatewayapi-crds-v1.5

go 1.26.0

require sigs.k8s.io/gateway-api v1.5.1
