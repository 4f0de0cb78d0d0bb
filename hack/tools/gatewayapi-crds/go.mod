// Fetches sigs.k8s.io/gateway-api v1.7.0 for its CRD files only
// (config/crd/standard and config/crd/experimental), which the end-to-end
// suite installs besides the v1.6.3 ones of the product's go.mod
// (localcluster.GatewayAPICRDs). The product keeps its v1.6.3 Go types.
//
// Nothing in this module is built, listed or tidied: v1.7.0's go.mod says
// go 1.27.0, and Go 1.26 refuses to load it. The only command run here is
// `go mod download -json sigs.k8s.io/gateway-api`, with GOTOOLCHAIN=local
// (no newer Go is fetched): it fetches the module, verifies it against the
// go.sum below and unpacks it into the module cache, and only then reports
// "requires go >= 1.27.0", which localcluster accepts. To move to another
// version, change the require below and replace go.sum's two lines with the
// "Sum" and "GoModSum" that the same command prints for it
// (GOFLAGS=-mod=mod writes them).
module github.com/airlock/listenerset-webhook/hack/tools/gatewayapi-crds

go 1.26.0

require sigs.k8s.io/gateway-api v1.7.0
