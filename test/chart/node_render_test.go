package chart

import (
	"testing"

	"github.com/stretchr/testify/assert"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

// TestRenderHostNetwork: hostNetwork puts the pods on the node's network
// with the DNS policy that still resolves cluster names there, and is off
// by default.
func TestRenderHostNetwork(t *testing.T) {
	for _, mode := range [][]string{nil, {"--set", "certManager.enabled=false"}} {
		pod := typed[appsv1.Deployment](t, render(t, mode...).get(t, "Deployment", fullname)).Spec.Template.Spec
		assert.False(t, pod.HostNetwork, "%v: host network by default", mode)
		assert.Empty(t, pod.DNSPolicy, "%v: dnsPolicy by default", mode)

		pod = typed[appsv1.Deployment](t, render(t, append(mode, "--set", "hostNetwork=true")...).get(t, "Deployment", fullname)).Spec.Template.Spec
		assert.True(t, pod.HostNetwork, mode)
		assert.Equal(t, corev1.DNSClusterFirstWithHostNet, pod.DNSPolicy, mode)
	}
	_, err := renderErr(t, "--set", "hostNetwork=yes")
	assert.Error(t, err, "the schema takes a boolean only")
}
