package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/airlock/listenerset-webhook/hack/node"
	"github.com/airlock/listenerset-webhook/test/localcluster"
)

// make run NODE=1 (-node): the chart on a real single-node cluster instead of
// the webhook in this process.
var nodeFlag = flag.Bool("node", false, "a real single-node cluster (hack/node: kubelet, containerd, kube-proxy; needs root) "+
	"with the chart installed by helm in self-bootstrapped mode and the image imported, instead of the webhook in this process")

const (
	nodeRelease   = "listenerset-webhook"
	nodeNamespace = "listenerset-webhook"
)

// runNode brings up hack/node's cluster, installs the Gateway API CRDs and
// the chart (its webhooks registered by the chart and the webhook itself),
// applies the examples' Gateway, prints how to use it and waits for Ctrl-C;
// then it stops and cleans up the node.
func runNode(ctx context.Context, root string, logFile *os.File, o options) int {
	say("bringing up a single-node cluster with hack/node (first run: apt installs and builds, minutes; see README)")
	n, err := node.Start(ctx, node.Options{Root: root, SetupOutput: logFile, Progress: func(l string) { say("%s", l) }})
	if err != nil {
		if ctx.Err() != nil {
			say("interrupted")
			return 0
		}
		fmt.Fprintf(os.Stderr, "run: %v\n(more in %s)\n", err, shortPaths(root, logFile.Name()))
		return 1
	}
	defer func() {
		say("stopping the node and cleaning up (pods, mounts, network)")
		if err := n.Stop(); err != nil {
			fmt.Fprintf(os.Stderr, "run: stopping the node: %v\n", err)
		}
		say("stopped")
	}()
	if err := nodeInstall(ctx, root, n, o); err != nil {
		if ctx.Err() == nil {
			fmt.Fprintf(os.Stderr, "run: %v\n", err)
			return 1
		}
	}
	if ctx.Err() == nil {
		kubeconfig := filepath.Join(o.runDir, "kubeconfig")
		if b, err := os.ReadFile(n.Kubeconfig); err == nil {
			_ = os.WriteFile(kubeconfig, b, 0o600)
		}
		k := shortPaths(root, filepath.Join(n.BinDir, "kubectl")) + " --kubeconfig " + shortPaths(root, kubeconfig)
		fmt.Fprintf(os.Stdout, `
The chart runs on a real node (%s, %s): two webhook pods started by the kubelet
from the locally built image, registered by the chart, called by kube-apiserver
through the Service. Try:

  %[3]s -n %[4]s get pods -o wide
  %[3]s apply -f examples/valid/
  %[3]s apply -f examples/invalid/duplicate-names.yaml      # denied by the webhook
  %[3]s -n %[4]s logs deploy/%[5]s
  %[3]s -n %[4]s delete pod -l app.kubernetes.io/name=listenerset-webhook --wait=false   # replaced, no request fails

The node's logs (kubelet, containerd, ...) are in %[6]s until it stops.%[7]s
Ctrl-C stops the node and removes its pods, mounts and network.
`, node.NodeName, n.NodeIP, k, nodeNamespace, nodeRelease, n.Dir, classNote(o.examples))
		<-ctx.Done()
		if isTerminal(os.Stderr) {
			fmt.Fprintln(os.Stderr)
		}
		say("interrupted")
	}
	return 0
}

func nodeInstall(ctx context.Context, root string, n *node.Node, o options) error {
	crds, _, err := localcluster.GatewayAPICRDs(ctx, root, "")
	if err != nil {
		return err
	}
	say("installing the Gateway API CRDs from %s", shortPaths(root, crds))
	if out, err := n.Kubectl(ctx, "apply", "--server-side", "-f", crds); err != nil {
		return fmt.Errorf("%v\n%s", err, out)
	}
	if out, err := n.Kubectl(ctx, "wait", "--for=condition=Established", "--timeout=60s", "crd", "--all"); err != nil {
		return fmt.Errorf("%v\n%s", err, out)
	}
	args := []string{"upgrade", "--install", nodeRelease, filepath.Join(root, "charts", "listenerset-webhook"),
		"--namespace", nodeNamespace, "--create-namespace", "--set", "certManager.enabled=false",
		"--set", "image.preloaded=true", // setup.sh imported make image's image into the node's containerd
		"--wait", "--timeout", "4m"}
	if o.mode != modeWebhook {
		args = append(args, "--set", "admission.mode="+o.mode.String())
	}
	say("helm install of the chart (self-bootstrapped mode), waiting for both pods to be Ready")
	start := time.Now()
	cmd := exec.CommandContext(ctx, n.Helm, args...)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+n.Kubeconfig)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("helm %v: %w\n%s", args, err, out)
	}
	say("chart installed and Ready in %s", time.Since(start).Round(100*time.Millisecond))
	if o.examples {
		say("applying the example Gateway (examples/gateway.yaml)")
		if out, err := n.Kubectl(ctx, "apply", "-f", filepath.Join(root, "examples", "gateway.yaml")); err != nil {
			return fmt.Errorf("%v\n%s", err, out)
		}
		// The node runs no Gateway API controller: the class gets the
		// status one would write, or it stays Pending and every
		// ListenerSet under it gets that warning.
		return acceptClass(ctx, n)
	}
	return nil
}

// acceptClass writes the example GatewayClass the status a controller
// would (localcluster.ClassStatusPatch) through the status subresource.
func acceptClass(ctx context.Context, n *node.Node) error {
	class := "gatewayclass/" + localcluster.ExampleGatewayClass
	gen, err := n.Kubectl(ctx, "get", class, "-o", "jsonpath={.metadata.generation}")
	if err != nil {
		return fmt.Errorf("%v\n%s", err, gen)
	}
	generation, err := strconv.ParseInt(strings.TrimSpace(gen), 10, 64)
	if err != nil {
		return fmt.Errorf("the generation of %s: %w", class, err)
	}
	patch, err := localcluster.ClassStatusPatch(generation, localcluster.ControllerFeatures...)
	if err != nil {
		return err
	}
	if out, err := n.Kubectl(ctx, "patch", class, "--subresource=status", "--type=merge", "-p", string(patch)); err != nil {
		return fmt.Errorf("%v\n%s", err, out)
	}
	return nil
}
