package chart

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	cmapi "github.com/cert-manager/cert-manager/pkg/apis/certmanager/v1"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/airlock/listenerset-webhook/test/localcluster"
	"github.com/airlock/listenerset-webhook/webhook/admission"
	"github.com/airlock/listenerset-webhook/webhook/certs"
	"github.com/airlock/listenerset-webhook/webhook/inflight"
	"github.com/airlock/listenerset-webhook/webhook/serving"
)

// Names the chart gives the release's objects (fullname = release name,
// since it contains the chart name).
const (
	fullname     = release
	svcName      = fullname
	servingCert  = fullname + "-serving"
	servingTLS   = fullname + "-tls"
	caSecret     = fullname + "-ca"
	configName   = fullname
	certDirInPod = "/etc/listenerset-webhook/tls"
)

// typed converts a rendered object into its Go type, rejecting fields the
// type does not have (a misspelt field would otherwise vanish silently).
func typed[T any](t testing.TB, u *unstructured.Unstructured) *T {
	t.Helper()
	data, err := json.Marshal(u.Object)
	require.NoError(t, err)
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	v := new(T)
	require.NoError(t, dec.Decode(v), "%s/%s", u.GetKind(), u.GetName())
	return v
}

func TestHelmLint(t *testing.T) {
	for _, args := range [][]string{
		nil,
		{"--set", "certManager.enabled=false"},
		{"--set", "certManager.enabled=false,selfBootstrapped.precreateSecret=false,networkPolicy.enabled=true,metrics.serviceMonitor.enabled=true"},
		{"--set", "autoscaling.enabled=true,autoscaling.targetMemoryUtilizationPercentage=80"},
	} {
		out, err := runHelm(t.Context(), t, "", append([]string{"lint", "--strict", chartPath}, args...)...)
		require.NoError(t, err, out)
		assert.Contains(t, out, "0 chart(s) failed")
	}
}

// TestSchemaRejectsBadValues: values.schema.json makes `helm install` fail
// on values that would otherwise render a broken or surprising release.
func TestSchemaRejectsBadValues(t *testing.T) {
	for _, tc := range []struct{ set, want string }{
		{"webhook.failurePolicy=Sometimes", "value must be one of 'Fail', 'Ignore'"},
		{"webhook.timeoutSeconds=31", "maximum: got 31, want 30"},
		{"webhook.timeoutSeconds=0", "minimum: got 0, want 1"},
		{"webhook.maxInFlightBytes=lots", "/webhook/maxInFlightBytes"},
		{"webhook.maxInFlightBytes=100", "minimum: got 100, want 2.228224"},
		{"replicaCount=0", "minimum: got 0, want 1"},
		{"unknownKey=1", "additional properties 'unknownKey' not allowed"},
		{"webhook.tlsMinVersion=1.1", "value must be one of '1.2', '1.3'"},
		{"certManager.duration=90days", "/certManager/duration"},
		{"certManager.issuerRef.kind=Vault", "/certManager/issuerRef/kind"},
		{"image.repository=", "/image/repository"},
		{"selfBootstrapped.leafDuration=1d", "/selfBootstrapped/leafDuration"},
		{"service.port=70000", "maximum: got 70,000, want 65,535"},
		{"autoscaling.enabled=yes", "/autoscaling/enabled"},
		{"autoscaling.minReplicas=0", "minimum: got 0, want 1"},
		{"autoscaling.maxReplicas=0", "minimum: got 0, want 1"},
		{"autoscaling.targetCPUUtilizationPercentage=0", "/autoscaling/targetCPUUtilizationPercentage"},
		{"autoscaling.targetMemoryUtilizationPercentage=high", "/autoscaling/targetMemoryUtilizationPercentage"},
		{"autoscaling.minReplica=2", "additional properties 'minReplica' not allowed"},
		{"autoscaling.behavior.scaledown.stabilizationWindowSeconds=60", "additional properties 'scaledown' not allowed"},
		{"autoscaling.behavior.scaleDown.selectPolicy=Sometimes", "value must be one of 'Max', 'Min', 'Disabled'"},
		{"autoscaling.behavior.scaleUp.stabilizationWindowSeconds=3601", "maximum: got 3,601, want 3,600"},
		{"autoscaling.behavior.scaleUp.policies[0].type=Pods", "/autoscaling/behavior/scaleUp/policies/0"},
		// A misspelt field of an object checked against Kubernetes' schema (kubeSchemas).
		{"securityContext.readOnlyRootFileSystem=true", "/securityContext"},
		{"securityContext.capabilities.dorp={ALL}", "/securityContext/capabilities"},
		{"podSecurityContext.runAsNonroot=true", "/podSecurityContext"},
		{"securityContext.privileged=yes", "/securityContext/privileged"},
		{"podSecurityContext.seccompProfile.typ=RuntimeDefault", "/podSecurityContext/seccompProfile"},
		{"resources.limit.memory=1Gi", "/resources"},
		{"audit.resources.request.cpu=1", "/audit/resources"},
		{"networkPolicy.metricsFrom[0].namespaceSelctor.matchLabels.a=b", "/networkPolicy/metricsFrom/0"},
		{"networkPolicy.egress[0].port[0].port=443", "/networkPolicy/egress/0"},
		{"tolerations[0].operater=Exists", "/tolerations/0"},
		{"updateStrategy.rollingUpdate.maxSurg=1", "/updateStrategy/rollingUpdate"},
	} {
		t.Run(tc.set, func(t *testing.T) {
			out, err := renderErr(t, "--set", tc.set)
			require.Error(t, err, "rendered:\n%s", out)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

// TestRenderCertManagerMode: the default values, cert-manager mode.
func TestRenderCertManagerMode(t *testing.T) {
	objs := render(t)
	assert.ElementsMatch(t, []string{
		"ServiceAccount/" + fullname, "Service/" + svcName, "Deployment/" + fullname,
		"PodDisruptionBudget/" + fullname, "NetworkPolicy/" + fullname,
		"Issuer/" + fullname + "-selfsigned", "Certificate/" + fullname + "-ca", "Issuer/" + fullname + "-ca",
		"Certificate/" + servingCert,
		"ClusterRole/" + fullname + "-cluster-view", "ClusterRoleBinding/" + fullname + "-cluster-view",
		"MutatingWebhookConfiguration/" + configName, "ValidatingWebhookConfiguration/" + configName,
	}, objs.ids(), "no RBAC but the scope's read-only view, no Secret or ServiceMonitor by default; the NetworkPolicy that closes the metrics port")

	dep := typed[appsv1.Deployment](t, objs.get(t, "Deployment", fullname))
	checkHardenedDeployment(t, objs, dep)
	pod := dep.Spec.Template.Spec
	args := pod.Containers[0].Args
	assert.Subset(t, args, []string{"--cert-mode=dir", "--cert-dir=" + certDirInPod})
	assert.True(t, *pod.AutomountServiceAccountToken, "the scope reads Gateways and GatewayClasses: a token")
	off := typed[appsv1.Deployment](t, render(t, "--set", "scope.enabled=false").get(t, "Deployment", fullname))
	assert.False(t, *off.Spec.Template.Spec.AutomountServiceAccountToken, "cert-manager mode without the scope never talks to the API: no token")
	require.Len(t, pod.Volumes, 1)
	assert.Equal(t, servingTLS, pod.Volumes[0].Secret.SecretName)
	require.Len(t, pod.Containers[0].VolumeMounts, 1)
	assert.Equal(t, corev1.VolumeMount{Name: pod.Volumes[0].Name, MountPath: certDirInPod, ReadOnly: true},
		pod.Containers[0].VolumeMounts[0])

	// The chain: self-signed Issuer -> CA Certificate -> CA Issuer -> serving Certificate.
	selfSigned := typed[cmapi.Issuer](t, objs.get(t, "Issuer", fullname+"-selfsigned"))
	assert.NotNil(t, selfSigned.Spec.SelfSigned)
	ca := typed[cmapi.Certificate](t, objs.get(t, "Certificate", fullname+"-ca"))
	assert.True(t, ca.Spec.IsCA)
	assert.Equal(t, selfSigned.Name, ca.Spec.IssuerRef.Name)
	assert.Equal(t, "Issuer", ca.Spec.IssuerRef.Kind)
	caIssuer := typed[cmapi.Issuer](t, objs.get(t, "Issuer", fullname+"-ca"))
	require.NotNil(t, caIssuer.Spec.CA)
	assert.Equal(t, ca.Spec.SecretName, caIssuer.Spec.CA.SecretName)
	serving := typed[cmapi.Certificate](t, objs.get(t, "Certificate", servingCert))
	assert.Equal(t, caIssuer.Name, serving.Spec.IssuerRef.Name)
	assert.Equal(t, "Issuer", serving.Spec.IssuerRef.Kind)
	assert.Equal(t, servingTLS, serving.Spec.SecretName, "the Secret the Deployment mounts")
	assert.False(t, serving.Spec.IsCA)
	assert.Equal(t, []string{svcName, svcName + "." + namespace, svcName + "." + namespace + ".svc",
		svcName + "." + namespace + ".svc.cluster.local"}, serving.Spec.DNSNames)
	assert.Empty(t, serving.Spec.CommonName, "SANs only: <svc>.<ns>.svc may exceed the 64 characters of a commonName")
	assert.Contains(t, serving.Spec.Usages, cmapi.UsageServerAuth)
	assert.Equal(t, cmapi.RotationPolicyAlways, serving.Spec.PrivateKey.RotationPolicy)
	assert.Less(t, serving.Spec.RenewBefore.Duration, serving.Spec.Duration.Duration)

	m, v := webhookConfigs(t, objs)
	for _, meta := range []metav1.ObjectMeta{m.ObjectMeta, v.ObjectMeta} {
		assert.Equal(t, namespace+"/"+servingCert, meta.Annotations["cert-manager.io/inject-ca-from"])
	}
	checkWebhooks(t, objs, m, v, admissionv1.Fail, 10)
}

// TestRenderSelfBootstrappedMode: certManager.enabled=false.
func TestRenderSelfBootstrappedMode(t *testing.T) {
	objs := render(t, "--set", "certManager.enabled=false")
	assert.ElementsMatch(t, []string{
		"ServiceAccount/" + fullname, "Service/" + svcName, "Deployment/" + fullname,
		"PodDisruptionBudget/" + fullname, "NetworkPolicy/" + fullname, "Secret/" + caSecret,
		"Role/" + fullname, "RoleBinding/" + fullname,
		"ClusterRole/" + fullname + "-cabundle", "ClusterRoleBinding/" + fullname + "-cabundle",
		"ClusterRole/" + fullname + "-cluster-view", "ClusterRoleBinding/" + fullname + "-cluster-view",
		"MutatingWebhookConfiguration/" + configName, "ValidatingWebhookConfiguration/" + configName,
		"ValidatingAdmissionPolicy/" + fullname + "-cabundle-only", "ValidatingAdmissionPolicyBinding/" + fullname + "-cabundle-only",
	}, objs.ids(), "no cert-manager objects")

	dep := typed[appsv1.Deployment](t, objs.get(t, "Deployment", fullname))
	checkHardenedDeployment(t, objs, dep)
	pod := dep.Spec.Template.Spec
	assert.True(t, *pod.AutomountServiceAccountToken, "the webhook keeps its CA and caBundle through the API")
	assert.Empty(t, pod.Volumes)
	fs := parseServe(t, pod.Containers[0].Args)
	assert.Equal(t, certs.ModeSelfBootstrapped, fs["cert-mode"])
	assert.Equal(t, namespace, fs["ca-secret-namespace"])
	assert.Equal(t, caSecret, fs["ca-secret-name"])
	assert.Equal(t, strings.Join([]string{svcName, svcName + "." + namespace, svcName + "." + namespace + ".svc",
		svcName + "." + namespace + ".svc.cluster.local"}, ","), fs["dns-names"])
	assert.Equal(t, configName, fs["mutating-webhook-config-name"])
	assert.Equal(t, configName, fs["validating-webhook-config-name"])
	assert.Equal(t, "8760h", fs["ca-duration"])
	assert.Equal(t, "24h", fs["leaf-duration"])

	secret := typed[corev1.Secret](t, objs.get(t, "Secret", caSecret))
	assert.Empty(t, secret.Data, "the webhook fills the CA in; Helm never holds key material")

	m, v := webhookConfigs(t, objs)
	for _, meta := range []metav1.ObjectMeta{m.ObjectMeta, v.ObjectMeta} {
		assert.NotContains(t, meta.Annotations, "cert-manager.io/inject-ca-from")
	}
	checkWebhooks(t, objs, m, v, admissionv1.Fail, 10)

	// Least privilege: every rule names its objects; no create on Secrets,
	// since the release creates the CA Secret.
	role := typed[rbacv1.Role](t, objs.get(t, "Role", fullname))
	assert.Equal(t, []rbacv1.PolicyRule{{
		APIGroups: []string{""}, Resources: []string{"secrets"}, ResourceNames: []string{caSecret},
		Verbs: []string{"get", "list", "watch", "update"},
	}}, role.Rules)
	cr := typed[rbacv1.ClusterRole](t, objs.get(t, "ClusterRole", fullname+"-cabundle"))
	assert.Equal(t, []rbacv1.PolicyRule{{
		APIGroups:     []string{"admissionregistration.k8s.io"},
		Resources:     []string{"mutatingwebhookconfigurations", "validatingwebhookconfigurations"},
		ResourceNames: []string{configName}, Verbs: []string{"get", "list", "watch", "update"},
	}}, cr.Rules)
	sa := rbacv1.Subject{Kind: "ServiceAccount", Name: pod.ServiceAccountName, Namespace: namespace}
	rb := typed[rbacv1.RoleBinding](t, objs.get(t, "RoleBinding", fullname))
	assert.Equal(t, []rbacv1.Subject{sa}, rb.Subjects)
	assert.Equal(t, rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: role.Name}, rb.RoleRef)
	crb := typed[rbacv1.ClusterRoleBinding](t, objs.get(t, "ClusterRoleBinding", fullname+"-cabundle"))
	assert.Equal(t, []rbacv1.Subject{sa}, crb.Subjects)
	assert.Equal(t, rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: cr.Name}, crb.RoleRef)

	// Without the pre-created Secret, the webhook creates it: create is the
	// one rule that cannot be limited by name.
	objs = render(t, "--set", "certManager.enabled=false,selfBootstrapped.precreateSecret=false,selfBootstrapped.caSecretName=my-ca")
	assert.NotContains(t, objs.ids(), "Secret/my-ca")
	role = typed[rbacv1.Role](t, objs.get(t, "Role", fullname))
	assert.Equal(t, []rbacv1.PolicyRule{
		{APIGroups: []string{""}, Resources: []string{"secrets"}, ResourceNames: []string{"my-ca"}, Verbs: []string{"get", "list", "watch", "update"}},
		{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"create"}},
	}, role.Rules)
	assert.Equal(t, "my-ca", parseServe(t, typed[appsv1.Deployment](t, objs.get(t, "Deployment", fullname)).Spec.Template.Spec.Containers[0].Args)["ca-secret-name"])

	// rbac.create=false leaves RBAC to the operator.
	objs = render(t, "--set", "certManager.enabled=false,rbac.create=false")
	assert.Empty(t, append(objs.ofKind("Role"), objs.ofKind("ClusterRole")...))
}

// TestRenderPlatformAssignsUID: platformAssignsUID=true leaves the user and
// groups to the platform (OpenShift's restricted-v2 SCC refuses a fixed UID)
// and keeps the rest of the hardening; the default pins them.
func TestRenderPlatformAssignsUID(t *testing.T) {
	for _, certManager := range []string{"true", "false"} {
		dep := typed[appsv1.Deployment](t, render(t, "--set", "platformAssignsUID=true,certManager.enabled="+certManager).get(t, "Deployment", fullname))
		sc := dep.Spec.Template.Spec.SecurityContext
		assert.Nil(t, sc.RunAsUser, "runAsUser")
		assert.Nil(t, sc.RunAsGroup, "runAsGroup")
		assert.Nil(t, sc.FSGroup, "fsGroup")
		assert.True(t, *sc.RunAsNonRoot)
		assert.Equal(t, corev1.SeccompProfileTypeRuntimeDefault, sc.SeccompProfile.Type)
		assert.True(t, *dep.Spec.Template.Spec.Containers[0].SecurityContext.ReadOnlyRootFilesystem)
	}
	sc := typed[appsv1.Deployment](t, render(t).get(t, "Deployment", fullname)).Spec.Template.Spec.SecurityContext
	assert.Equal(t, int64(65532), *sc.RunAsGroup)
	assert.Equal(t, int64(65532), *sc.FSGroup)
}

// TestRenderEnforcement: webhook.enforcement is the server's --enforcement,
// deny unless set; helm refuses anything but deny and warn (values.schema.json).
func TestRenderEnforcement(t *testing.T) {
	for value, want := range map[string]string{"": "deny", "warn": "warn", "deny": "deny"} {
		var args []string
		if value != "" {
			args = []string{"--set", "webhook.enforcement=" + value}
		}
		c := typed[appsv1.Deployment](t, render(t, args...).get(t, "Deployment", fullname)).Spec.Template.Spec.Containers[0]
		assert.Equal(t, want, parseServe(t, c.Args)["enforcement"], "webhook.enforcement=%q", value)
	}
	out, err := runHelm(t.Context(), t, "", "template", "x", chartPath, "--kube-version", renderKubeVersion, "--set", "webhook.enforcement=audit")
	require.Error(t, err)
	assert.Contains(t, out, "value must be one of 'deny', 'warn'")
}

// TestRenderWebhookPort: webhook.port moves the port the server binds and the
// container declares, which the Service targets by name: 10250 is the port a
// GKE private cluster's control plane reaches without a firewall rule (docs/chart.md).
func TestRenderWebhookPort(t *testing.T) {
	for _, certManager := range []string{"true", "false"} {
		objs := render(t, "--set", "webhook.port=10250,certManager.enabled="+certManager)
		c := typed[appsv1.Deployment](t, objs.get(t, "Deployment", fullname)).Spec.Template.Spec.Containers[0]
		assert.Equal(t, "10250", parseServe(t, c.Args)["port"])
		var port int32
		for _, p := range c.Ports {
			if p.Name == "webhook" {
				port = p.ContainerPort
			}
		}
		assert.Equal(t, int32(10250), port)
		svc := typed[corev1.Service](t, objs.get(t, "Service", svcName))
		assert.Contains(t, svc.Spec.Ports, corev1.ServicePort{Name: "https", Port: 443, TargetPort: intstr.FromString("webhook"), Protocol: corev1.ProtocolTCP})
	}
}

// checkHardenedDeployment: what both modes share.
func checkHardenedDeployment(t *testing.T, objs objects, dep *appsv1.Deployment) {
	t.Helper()
	assert.Equal(t, int32(2), *dep.Spec.Replicas)
	assert.Equal(t, appsv1.RollingUpdateDeploymentStrategyType, dep.Spec.Strategy.Type)
	assert.Equal(t, intstr.FromInt32(0), *dep.Spec.Strategy.RollingUpdate.MaxUnavailable)
	pod := dep.Spec.Template.Spec
	sc := pod.SecurityContext
	assert.True(t, *sc.RunAsNonRoot)
	assert.Equal(t, int64(65532), *sc.RunAsUser)
	assert.Equal(t, corev1.SeccompProfileTypeRuntimeDefault, sc.SeccompProfile.Type)
	assert.Empty(t, pod.PriorityClassName)
	require.Len(t, pod.Containers, 1)
	c := pod.Containers[0]
	csc := c.SecurityContext
	assert.True(t, *csc.ReadOnlyRootFilesystem)
	assert.False(t, *csc.AllowPrivilegeEscalation)
	assert.False(t, *csc.Privileged)
	assert.Equal(t, []corev1.Capability{"ALL"}, csc.Capabilities.Drop)
	assert.Empty(t, csc.Capabilities.Add)
	assert.False(t, c.Resources.Requests.Cpu().IsZero())
	assert.False(t, c.Resources.Requests.Memory().IsZero())
	assert.False(t, c.Resources.Limits.Memory().IsZero())

	// Ports as the server binds them; probes on the health port.
	fs := parseServe(t, c.Args)
	ports := map[string]int32{}
	for _, p := range c.Ports {
		ports[p.Name] = p.ContainerPort
	}
	assert.Equal(t, map[string]int32{"webhook": 9443, "health": 8081, "metrics": 8080}, ports)
	assert.Equal(t, "9443", fs["port"])
	assert.Equal(t, ":8081", fs["health-probe-bind-address"])
	assert.Equal(t, ":8080", fs["metrics-bind-address"])
	assert.Equal(t, "/healthz", c.LivenessProbe.HTTPGet.Path)
	assert.Equal(t, "/readyz", c.ReadinessProbe.HTTPGet.Path)
	assert.Equal(t, intstr.FromString("health"), c.LivenessProbe.HTTPGet.Port)
	assert.Equal(t, intstr.FromString("health"), c.ReadinessProbe.HTTPGet.Port)

	// Spread across nodes, hard, not counting tainted nodes.
	require.NotEmpty(t, pod.TopologySpreadConstraints)
	host := pod.TopologySpreadConstraints[0]
	assert.Equal(t, "kubernetes.io/hostname", host.TopologyKey)
	assert.Equal(t, corev1.DoNotSchedule, host.WhenUnsatisfiable)
	assert.Equal(t, corev1.NodeInclusionPolicyHonor, *host.NodeTaintsPolicy)
	assert.Equal(t, dep.Spec.Selector.MatchLabels, host.LabelSelector.MatchLabels)

	// The PDB and the Service select exactly these pods.
	pdb := typed[policyv1.PodDisruptionBudget](t, objs.get(t, "PodDisruptionBudget", fullname))
	assert.Equal(t, intstr.FromInt32(1), *pdb.Spec.MinAvailable)
	assert.Equal(t, dep.Spec.Selector.MatchLabels, pdb.Spec.Selector.MatchLabels)
	svc := typed[corev1.Service](t, objs.get(t, "Service", svcName))
	assert.Equal(t, dep.Spec.Selector.MatchLabels, svc.Spec.Selector)
	for k, v := range dep.Spec.Selector.MatchLabels {
		assert.Equal(t, v, dep.Spec.Template.Labels[k])
	}
	sa := typed[corev1.ServiceAccount](t, objs.get(t, "ServiceAccount", pod.ServiceAccountName))
	assert.False(t, *sa.AutomountServiceAccountToken)

	delay, drain := checkTermination(t, objs, pod)
	// By default the drain also outlasts kube-apiserver's 90s keep-alive,
	// counted from SIGTERM at the latest (a connection used during the delay
	// is closed by its answer), so that kube-apiserver closes every idle
	// connection itself (serving's drain).
	assert.GreaterOrEqual(t, delay+drain, 95*time.Second, "delay %s + drain %s outlast kube-apiserver's keep-alive", delay, drain)
	assert.Equal(t, serving.DefaultShutdownTimeout, drain, "the chart's drain is the binary's default (one value)")
	checkLimits(t, objs, c, inflight.DefaultMaxBytes)
}

// checkLimits: the server's in-flight limit is maxBytes, its default timeout
// the webhooks' timeoutSeconds (one value), and GOMEMLIMIT is about 95% of
// the container's memory limit, as the kubelet expands it.
func checkLimits(t *testing.T, objs objects, c corev1.Container, maxBytes int64) {
	t.Helper()
	fs := parseServe(t, c.Args)
	q, err := resource.ParseQuantity(fs["max-in-flight-bytes"])
	require.NoError(t, err)
	assert.Equal(t, maxBytes, q.Value())
	timeout, err := time.ParseDuration(fs["default-timeout"])
	require.NoError(t, err)
	m, v := webhookConfigs(t, objs)
	for _, s := range []*int32{m.Webhooks[0].TimeoutSeconds, v.Webhooks[0].TimeoutSeconds} {
		assert.Equal(t, time.Duration(*s)*time.Second, timeout, "the server's default timeout is the webhooks' timeoutSeconds")
	}

	env := map[string]corev1.EnvVar{}
	for _, e := range c.Env {
		env[e.Name] = e
	}
	mib := env["MEMORY_LIMIT_MIB"].ValueFrom
	require.NotNil(t, mib, "MEMORY_LIMIT_MIB from the downward API")
	require.NotNil(t, mib.ResourceFieldRef)
	assert.Equal(t, "limits.memory", mib.ResourceFieldRef.Resource)
	assert.Empty(t, mib.ResourceFieldRef.ContainerName, "this container's")
	// What the kubelet puts there: the limit divided by the divisor,
	// rounded up (k8s.io/kubernetes pkg/api/v1/resource, ExtractContainerResourceValue).
	limit := c.Resources.Limits.Memory().Value()
	n := (limit + mib.ResourceFieldRef.Divisor.Value() - 1) / mib.ResourceFieldRef.Divisor.Value()
	goMemLimit := strings.ReplaceAll(env["GOMEMLIMIT"].Value, "$(MEMORY_LIMIT_MIB)", strconv.FormatInt(n, 10))
	goBytes, err := strconv.ParseInt(strings.TrimSuffix(goMemLimit, "B"), 10, 64)
	require.NoError(t, err, "GOMEMLIMIT=%s as the Go runtime reads it (a number of bytes, B optional)", goMemLimit)
	ratio := float64(goBytes) / float64(limit)
	assert.True(t, ratio > 0.93 && ratio < 0.97, "GOMEMLIMIT %s is %.1f%% of the memory limit %d, want about 95%%", goMemLimit, 100*ratio, limit)
}

// checkTermination: the binary keeps serving for --shutdown-delay while
// the pod leaves the endpoints (no preStop hook adds to it), drains for up to
// --shutdown-timeout, at least as long as kube-apiserver waits for a call,
// and the kubelet's grace period covers both with 5s to spare. It returns
// the delay and the drain's timeout.
func checkTermination(t *testing.T, objs objects, pod corev1.PodSpec) (delay, drain time.Duration) {
	t.Helper()
	c := pod.Containers[0]
	assert.Nil(t, c.Lifecycle, "no preStop hook: --shutdown-delay keeps serving while the pod leaves the endpoints")
	fs := parseServe(t, c.Args)
	delay, err := time.ParseDuration(fs["shutdown-delay"])
	require.NoError(t, err)
	drain, err = time.ParseDuration(fs["shutdown-timeout"])
	require.NoError(t, err)
	grace := time.Duration(*pod.TerminationGracePeriodSeconds) * time.Second
	assert.Positive(t, delay, "the pod keeps serving while it leaves the endpoints")
	assert.LessOrEqual(t, delay+drain+5*time.Second, grace, "delay %s + drain %s + 5s fit the grace period %s", delay, drain, grace)
	m, v := webhookConfigs(t, objs)
	for _, timeout := range []*int32{m.Webhooks[0].TimeoutSeconds, v.Webhooks[0].TimeoutSeconds} {
		assert.GreaterOrEqual(t, drain, time.Duration(*timeout)*time.Second, "the drain outlasts kube-apiserver's wait for a call")
	}
	return delay, drain
}

func webhookConfigs(t *testing.T, objs objects) (*admissionv1.MutatingWebhookConfiguration, *admissionv1.ValidatingWebhookConfiguration) {
	t.Helper()
	return typed[admissionv1.MutatingWebhookConfiguration](t, objs.get(t, "MutatingWebhookConfiguration", configName)),
		typed[admissionv1.ValidatingWebhookConfiguration](t, objs.get(t, "ValidatingWebhookConfiguration", configName))
}

// checkWebhooks: both configurations call the Service at the paths the
// webhook serves, for CREATE/UPDATE of listenersets only, with the settings
// the issue asks for.
func checkWebhooks(t *testing.T, objs objects, m *admissionv1.MutatingWebhookConfiguration, v *admissionv1.ValidatingWebhookConfiguration,
	failure admissionv1.FailurePolicyType, timeout int32) {
	t.Helper()
	require.Len(t, m.Webhooks, 1)
	require.Len(t, v.Webhooks, 2, "the validating webhook and its warn twin")
	checkWarnTwin(t, v.Webhooks[0], v.Webhooks[1], admission.Registrations().Validating.Warn, enforcementLabel)
	svc := typed[corev1.Service](t, objs.get(t, "Service", svcName))
	dep := typed[appsv1.Deployment](t, objs.get(t, "Deployment", fullname))
	var svcPort *corev1.ServicePort
	for i := range svc.Spec.Ports {
		if svc.Spec.Ports[i].Name == "https" {
			svcPort = &svc.Spec.Ports[i]
		}
	}
	require.NotNil(t, svcPort)
	assert.Equal(t, intstr.FromString("webhook"), svcPort.TargetPort, "the container's webhook port")

	wantRules := []admissionv1.RuleWithOperations{{
		Operations: []admissionv1.OperationType{admissionv1.Create, admissionv1.Update},
		Rule: admissionv1.Rule{APIGroups: []string{"gateway.networking.k8s.io"}, APIVersions: []string{"v1"},
			Resources: []string{"listenersets"}, Scope: ptrTo(admissionv1.NamespacedScope)},
	}}
	type common struct {
		name    string
		cc      admissionv1.WebhookClientConfig
		rules   []admissionv1.RuleWithOperations
		fail    *admissionv1.FailurePolicyType
		match   *admissionv1.MatchPolicyType
		side    *admissionv1.SideEffectClass
		timeout *int32
		arv     []string
		ns, obj *metav1.LabelSelector
	}
	mw, vw := m.Webhooks[0], v.Webhooks[0]
	for _, c := range []struct {
		common
		path string
	}{
		{common{mw.Name, mw.ClientConfig, mw.Rules, mw.FailurePolicy, mw.MatchPolicy, mw.SideEffects, mw.TimeoutSeconds,
			mw.AdmissionReviewVersions, mw.NamespaceSelector, mw.ObjectSelector}, admission.MutatePath},
		{common{vw.Name, vw.ClientConfig, vw.Rules, vw.FailurePolicy, vw.MatchPolicy, vw.SideEffects, vw.TimeoutSeconds,
			vw.AdmissionReviewVersions, vw.NamespaceSelector, vw.ObjectSelector}, admission.ValidatePath},
	} {
		assert.Nil(t, c.cc.URL)
		require.NotNil(t, c.cc.Service)
		assert.Equal(t, admissionv1.ServiceReference{Name: svcName, Namespace: namespace, Path: &c.path, Port: &svcPort.Port}, *c.cc.Service)
		assert.Empty(t, c.cc.CABundle, "injected at run time")
		assert.Equal(t, wantRules, c.rules)
		assert.Equal(t, failure, *c.fail)
		assert.Equal(t, admissionv1.Equivalent, *c.match)
		assert.Equal(t, admissionv1.SideEffectClassNone, *c.side)
		assert.Equal(t, timeout, *c.timeout)
		assert.Equal(t, []string{"v1"}, c.arv)
		require.NotNil(t, c.ns)
		require.NotEmpty(t, c.ns.MatchExpressions)
		assert.Equal(t, metav1.LabelSelectorRequirement{Key: "kubernetes.io/metadata.name", Operator: metav1.LabelSelectorOpNotIn,
			Values: []string{"kube-system", namespace}}, c.ns.MatchExpressions[0],
			"kube-system and the webhook's own namespace are never sent (the webhook cannot block its own recovery)")
	}
	assert.Equal(t, localcluster.MutatingWebhookName, mw.Name)
	assert.Equal(t, localcluster.ValidatingWebhookName, vw.Name)
	assert.Equal(t, admissionv1.NeverReinvocationPolicy, *mw.ReinvocationPolicy)
	assert.Equal(t, admission.MutatingMatchConditions(), mw.MatchConditions,
		"the chart's matchConditions are admission.MutatingMatchConditions(), word for word")
	assert.Empty(t, vw.MatchConditions, "every write is validated")
	assert.Equal(t, dep.Namespace, svc.Namespace)
}

// TestRenderValues: the values that change what is rendered.
func TestRenderValues(t *testing.T) {
	t.Run("webhook settings", func(t *testing.T) {
		objs := render(t, "--set", "webhook.failurePolicy=Ignore,webhook.timeoutSeconds=5,webhook.excludeNamespaces={team-x,kube-system}",
			"--set-string", "webhook.objectSelector.matchLabels.microgateway\\.airlock\\.com/validate=true",
			"--set", "webhook.namespaceSelector.matchLabels.env=prod",
			"--set-json", `webhook.namespaceSelector.matchExpressions=[{"key":"tier","operator":"Exists"}]`)
		m, v := webhookConfigs(t, objs)
		checkWebhooks2 := func(fail *admissionv1.FailurePolicyType, timeout *int32, ns, obj *metav1.LabelSelector, more ...metav1.LabelSelectorRequirement) {
			assert.Equal(t, admissionv1.Ignore, *fail)
			assert.Equal(t, int32(5), *timeout)
			assert.Equal(t, &metav1.LabelSelector{
				MatchLabels: map[string]string{"env": "prod"},
				MatchExpressions: append([]metav1.LabelSelectorRequirement{
					{Key: "kubernetes.io/metadata.name", Operator: metav1.LabelSelectorOpNotIn, Values: []string{"kube-system", namespace, "team-x"}},
					{Key: bypassLabel, Operator: metav1.LabelSelectorOpDoesNotExist},
					{Key: "tier", Operator: metav1.LabelSelectorOpExists},
				}, more...),
			}, ns)
			assert.Equal(t, &metav1.LabelSelector{MatchLabels: map[string]string{"microgateway.airlock.com/validate": "true"}}, obj)
		}
		checkWebhooks2(m.Webhooks[0].FailurePolicy, m.Webhooks[0].TimeoutSeconds, m.Webhooks[0].NamespaceSelector, m.Webhooks[0].ObjectSelector)
		checkWebhooks2(v.Webhooks[0].FailurePolicy, v.Webhooks[0].TimeoutSeconds, v.Webhooks[0].NamespaceSelector, v.Webhooks[0].ObjectSelector,
			enforcementExpr(enforcementLabel, metav1.LabelSelectorOpNotIn))
	})

	t.Run("limits follow timeoutSeconds, maxInFlightBytes and the memory limit", func(t *testing.T) {
		objs := render(t, "--set", "webhook.timeoutSeconds=5,webhook.maxInFlightBytes=96Mi,resources.limits.memory=1Gi")
		c := typed[appsv1.Deployment](t, objs.get(t, "Deployment", fullname)).Spec.Template.Spec.Containers[0]
		checkLimits(t, objs, c, 96<<20)
		assert.Equal(t, "5s", parseServe(t, c.Args)["default-timeout"])
		objs = render(t, "--set", "webhook.maxInFlightBytes=50000000,resources.limits.memory=300M")
		checkLimits(t, objs, typed[appsv1.Deployment](t, objs.get(t, "Deployment", fullname)).Spec.Template.Spec.Containers[0], 50000000)
	})

	t.Run("one replica has no PDB", func(t *testing.T) {
		objs := render(t, "--set", "replicaCount=1")
		assert.Empty(t, objs.ofKind("PodDisruptionBudget"), "minAvailable 1 of 1 would block every node drain")
	})

	t.Run("PDB maxUnavailable", func(t *testing.T) {
		objs := render(t, "--set", "replicaCount=3,podDisruptionBudget.maxUnavailable=1")
		pdb := typed[policyv1.PodDisruptionBudget](t, objs.get(t, "PodDisruptionBudget", fullname))
		assert.Nil(t, pdb.Spec.MinAvailable)
		assert.Equal(t, intstr.FromInt32(1), *pdb.Spec.MaxUnavailable)
		assert.Equal(t, int32(3), *typed[appsv1.Deployment](t, objs.get(t, "Deployment", fullname)).Spec.Replicas)
	})

	t.Run("pod placement and image", func(t *testing.T) {
		objs := render(t, "--set", "priorityClassName=system-cluster-critical,image.repository=registry.example/lsw,image.digest=sha256:"+strings.Repeat("a", 64),
			"--set-json", `topologySpreadConstraints=[{"maxSkew":1,"topologyKey":"topology.kubernetes.io/zone","whenUnsatisfiable":"DoNotSchedule","labelSelector":{"matchLabels":{"a":"b"}}}]`,
			"--set", "nodeSelector.kubernetes\\.io/os=linux,logLevel=debug,extraArgs={--enable-http2}")
		pod := typed[appsv1.Deployment](t, objs.get(t, "Deployment", fullname)).Spec.Template.Spec
		assert.Equal(t, "system-cluster-critical", pod.PriorityClassName)
		assert.Equal(t, "registry.example/lsw@sha256:"+strings.Repeat("a", 64), pod.Containers[0].Image)
		require.Len(t, pod.TopologySpreadConstraints, 1)
		assert.Equal(t, "topology.kubernetes.io/zone", pod.TopologySpreadConstraints[0].TopologyKey)
		assert.Equal(t, map[string]string{"kubernetes.io/os": "linux"}, pod.NodeSelector)
		fs := parseServe(t, pod.Containers[0].Args)
		assert.Equal(t, "debug", fs["zap-log-level"])
		assert.Equal(t, "true", fs["enable-http2"])
	})

	t.Run("issuerRef: an existing issuer instead of the chart's chain", func(t *testing.T) {
		objs := render(t, "--set", "certManager.issuerRef.name=corp-ca,certManager.issuerRef.kind=ClusterIssuer")
		assert.Empty(t, objs.ofKind("Issuer"))
		require.Len(t, objs.ofKind("Certificate"), 1)
		serving := typed[cmapi.Certificate](t, objs.get(t, "Certificate", servingCert))
		assert.Equal(t, "corp-ca", serving.Spec.IssuerRef.Name)
		assert.Equal(t, "ClusterIssuer", serving.Spec.IssuerRef.Kind)
		assert.Equal(t, "cert-manager.io", serving.Spec.IssuerRef.Group)
	})

	t.Run("token on request in cert-manager mode", func(t *testing.T) {
		objs := render(t, "--set", "serviceAccount.automountToken=true")
		assert.True(t, *typed[appsv1.Deployment](t, objs.get(t, "Deployment", fullname)).Spec.Template.Spec.AutomountServiceAccountToken)
	})

	t.Run("metrics off", func(t *testing.T) {
		objs := render(t, "--set", "metrics.enabled=false,metrics.serviceMonitor.enabled=true")
		assert.Empty(t, objs.ofKind("ServiceMonitor"), "nothing to scrape")
		c := typed[appsv1.Deployment](t, objs.get(t, "Deployment", fullname)).Spec.Template.Spec.Containers[0]
		assert.Equal(t, "0", parseServe(t, c.Args)["metrics-bind-address"])
		for _, p := range c.Ports {
			assert.NotEqual(t, "metrics", p.Name)
		}
		svc := typed[corev1.Service](t, objs.get(t, "Service", svcName))
		assert.Len(t, svc.Spec.Ports, 1)
	})

	t.Run("ServiceMonitor", func(t *testing.T) {
		objs := render(t, "--set", "metrics.serviceMonitor.enabled=true,metrics.serviceMonitor.labels.release=prom",
			"--set", "networkPolicy.metricsFrom[0].podSelector.matchLabels.app=prometheus")
		sm := objs.get(t, "ServiceMonitor", fullname)
		assert.Equal(t, "monitoring.coreos.com/v1", sm.GetAPIVersion())
		assert.Equal(t, "prom", sm.GetLabels()["release"])
		eps, _, _ := unstructured.NestedSlice(sm.Object, "spec", "endpoints")
		require.Len(t, eps, 1)
		assert.Equal(t, "metrics", eps[0].(map[string]any)["port"], "the Service's metrics port")
		sel, _, _ := unstructured.NestedStringMap(sm.Object, "spec", "selector", "matchLabels")
		assert.Equal(t, typed[corev1.Service](t, objs.get(t, "Service", svcName)).Labels["app.kubernetes.io/name"], sel["app.kubernetes.io/name"])
	})

	t.Run("NetworkPolicy", func(t *testing.T) {
		objs := render(t, "--set", "networkPolicy.enabled=true",
			"--set-json", `networkPolicy.metricsFrom=[{"namespaceSelector":{"matchLabels":{"kubernetes.io/metadata.name":"monitoring"}}}]`)
		np := typed[networkingv1.NetworkPolicy](t, objs.get(t, "NetworkPolicy", fullname))
		assert.Equal(t, []networkingv1.PolicyType{networkingv1.PolicyTypeIngress}, np.Spec.PolicyTypes, "egress stays open unless rules are given")
		require.Len(t, np.Spec.Ingress, 2)
		assert.Equal(t, intstr.FromString("webhook"), *np.Spec.Ingress[0].Ports[0].Port)
		assert.Empty(t, np.Spec.Ingress[0].From, "kube-apiserver's address is not known: any source")
		assert.Equal(t, intstr.FromString("metrics"), *np.Spec.Ingress[1].Ports[0].Port)
		require.Len(t, np.Spec.Ingress[1].From, 1)

		objs = render(t, "--set", "networkPolicy.enabled=true,certManager.enabled=false",
			"--set-json", `networkPolicy.egress=[{"ports":[{"port":6443,"protocol":"TCP"}]}]`)
		np = typed[networkingv1.NetworkPolicy](t, objs.get(t, "NetworkPolicy", fullname))
		assert.Equal(t, []networkingv1.PolicyType{networkingv1.PolicyTypeIngress, networkingv1.PolicyTypeEgress}, np.Spec.PolicyTypes)
		require.Len(t, np.Spec.Egress, 1)
		assert.Len(t, np.Spec.Ingress, 1, "no metrics peers: metrics closed")
	})

	t.Run("shutdown timing", func(t *testing.T) {
		objs := render(t, "--set", "shutdownDelaySeconds=10,shutdownTimeoutSeconds=30,terminationGracePeriodSeconds=45,webhook.timeoutSeconds=30")
		dep := typed[appsv1.Deployment](t, objs.get(t, "Deployment", fullname))
		fs := parseServe(t, dep.Spec.Template.Spec.Containers[0].Args)
		assert.Equal(t, "10s", fs["shutdown-delay"])
		assert.Equal(t, "30s", fs["shutdown-timeout"])
		checkTermination(t, objs, dep.Spec.Template.Spec)

		_, err := renderErr(t, "--set", "shutdownTimeoutSeconds=30,terminationGracePeriodSeconds=30")
		assert.ErrorContains(t, err, "terminationGracePeriodSeconds (30) must be at least shutdownDelaySeconds + shutdownTimeoutSeconds + 5 (40)")
	})

	t.Run("names follow the release", func(t *testing.T) {
		out, err := runHelm(t.Context(), t, "", templateArgs("edge", "gw", []string{"--set", "certManager.enabled=false"})...)
		require.NoError(t, err)
		objs, err := decodeObjects(out)
		require.NoError(t, err)
		for _, u := range objs {
			assert.True(t, strings.HasPrefix(u.GetName(), "edge-listenerset-webhook"), u.GetName())
			if u.GetNamespace() != "" {
				assert.Equal(t, "gw", u.GetNamespace())
			}
		}
	})
}

// TestRenderAutoscaling: autoscaling.enabled adds an autoscaling/v2 HPA on
// the Deployment, which then has no replicas (helm upgrade must not undo what
// the HPA chose); the chart refuses values the HPA cannot work with, and a
// PodDisruptionBudget that would block every eviction at the fewest replicas.
func TestRenderAutoscaling(t *testing.T) {
	hpaSpec := func(minReplicas, maxReplicas int32, metrics ...autoscalingv2.MetricSpec) autoscalingv2.HorizontalPodAutoscalerSpec {
		return autoscalingv2.HorizontalPodAutoscalerSpec{
			ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: fullname},
			MinReplicas:    &minReplicas, MaxReplicas: maxReplicas, Metrics: metrics,
		}
	}
	utilization := func(name corev1.ResourceName, percent int32) autoscalingv2.MetricSpec {
		return autoscalingv2.MetricSpec{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricSource{
			Name: name, Target: autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType, AverageUtilization: &percent},
		}}
	}

	t.Run("off: no HPA, the Deployment keeps replicaCount", func(t *testing.T) {
		for _, args := range [][]string{nil, {"--set", "replicaCount=3,autoscaling.minReplicas=4,autoscaling.maxReplicas=9"}} {
			objs := render(t, args...)
			assert.Empty(t, objs.ofKind("HorizontalPodAutoscaler"), "%v", args)
			want := int32(2)
			if args != nil {
				want = 3
			}
			dep := typed[appsv1.Deployment](t, objs.get(t, "Deployment", fullname))
			require.NotNil(t, dep.Spec.Replicas)
			assert.Equal(t, want, *dep.Spec.Replicas)
		}
	})

	t.Run("on: the HPA, no replicas, the PDB at minReplicas", func(t *testing.T) {
		objs := render(t, "--set", "autoscaling.enabled=true")
		assert.ElementsMatch(t, []string{
			"ServiceAccount/" + fullname, "Service/" + svcName, "Deployment/" + fullname,
			"PodDisruptionBudget/" + fullname, "HorizontalPodAutoscaler/" + fullname, "NetworkPolicy/" + fullname,
			"ClusterRole/" + fullname + "-cluster-view", "ClusterRoleBinding/" + fullname + "-cluster-view",
			"Issuer/" + fullname + "-selfsigned", "Certificate/" + fullname + "-ca", "Issuer/" + fullname + "-ca",
			"Certificate/" + servingCert,
			"MutatingWebhookConfiguration/" + configName, "ValidatingWebhookConfiguration/" + configName,
		}, objs.ids())
		dep := typed[appsv1.Deployment](t, objs.get(t, "Deployment", fullname))
		assert.Nil(t, dep.Spec.Replicas, "the HPA owns the count")
		_, found, _ := unstructured.NestedFieldNoCopy(objs.get(t, "Deployment", fullname).Object, "spec", "replicas")
		assert.False(t, found, "not even replicas: null")
		assert.Equal(t, "50m", dep.Spec.Template.Spec.Containers[0].Resources.Requests.Cpu().String(),
			"CPU utilization is measured against the request")

		hpa := typed[autoscalingv2.HorizontalPodAutoscaler](t, objs.get(t, "HorizontalPodAutoscaler", fullname))
		assert.Equal(t, namespace, hpa.Namespace)
		assert.Equal(t, dep.Labels, hpa.Labels)
		assert.Equal(t, hpaSpec(2, 5, utilization(corev1.ResourceCPU, 80)), hpa.Spec)
		assert.Equal(t, dep.Name, hpa.Spec.ScaleTargetRef.Name)

		pdb := typed[policyv1.PodDisruptionBudget](t, objs.get(t, "PodDisruptionBudget", fullname))
		assert.Equal(t, intstr.FromInt32(1), *pdb.Spec.MinAvailable, "one of minReplicas 2 may be evicted")
		assert.Nil(t, pdb.Spec.MaxUnavailable)
	})

	t.Run("tolerance needs 1.35", func(t *testing.T) {
		for _, dir := range []string{"scaleUp", "scaleDown"} {
			behavior := []string{"--set", "autoscaling.enabled=true", "--set-json", `autoscaling.behavior={"` + dir + `":{"tolerance":"50m"}}`}
			for _, v := range []string{"1.30.14", "1.34.4", "v1.34.9-gke.100"} {
				_, err := renderErr(t, append([]string{"--kube-version", v}, behavior...)...)
				assert.ErrorContains(t, err, "autoscaling.behavior."+dir+".tolerance needs Kubernetes 1.35 or newer", v)
			}
			for _, v := range []string{"1.35.0", "v1.35.1-eks.2", renderKubeVersion} {
				_, err := renderErr(t, append([]string{"--kube-version", v}, behavior...)...)
				assert.NoError(t, err, v)
			}
		}
		_, err := renderErr(t, "--kube-version", "1.30.14", "--set", "autoscaling.enabled=true",
			"--set-json", `autoscaling.behavior={"scaleUp":{"stabilizationWindowSeconds":30}}`)
		assert.NoError(t, err, "a behavior without tolerance on 1.30")
	})

	t.Run("on: memory, behavior, minReplicas 1 with maxUnavailable", func(t *testing.T) {
		objs := render(t, "--set", "autoscaling.enabled=true,autoscaling.minReplicas=1,autoscaling.maxReplicas=10",
			"--set", "autoscaling.targetCPUUtilizationPercentage=60,autoscaling.targetMemoryUtilizationPercentage=75",
			"--set", "podDisruptionBudget.maxUnavailable=1",
			"--set-json", `autoscaling.behavior={"scaleDown":{"stabilizationWindowSeconds":600,"selectPolicy":"Min",`+
				`"policies":[{"type":"Pods","value":1,"periodSeconds":60},{"type":"Percent","value":10,"periodSeconds":60}]},`+
				`"scaleUp":{"tolerance":"50m"}}`)
		hpa := typed[autoscalingv2.HorizontalPodAutoscaler](t, objs.get(t, "HorizontalPodAutoscaler", fullname))
		behavior := hpa.Spec.Behavior
		hpa.Spec.Behavior = nil
		assert.Equal(t, hpaSpec(1, 10, utilization(corev1.ResourceCPU, 60), utilization(corev1.ResourceMemory, 75)), hpa.Spec)
		require.NotNil(t, behavior)
		require.NotNil(t, behavior.ScaleUp)
		require.NotNil(t, behavior.ScaleUp.Tolerance)
		assert.Zero(t, behavior.ScaleUp.Tolerance.Cmp(resource.MustParse("0.05")))
		assert.Nil(t, behavior.ScaleUp.Policies)
		assert.Equal(t, &autoscalingv2.HPAScalingRules{
			StabilizationWindowSeconds: ptrTo(int32(600)), SelectPolicy: ptrTo(autoscalingv2.MinChangePolicySelect),
			Policies: []autoscalingv2.HPAScalingPolicy{
				{Type: autoscalingv2.PodsScalingPolicy, Value: 1, PeriodSeconds: 60},
				{Type: autoscalingv2.PercentScalingPolicy, Value: 10, PeriodSeconds: 60},
			},
		}, behavior.ScaleDown)
		assert.Nil(t, typed[appsv1.Deployment](t, objs.get(t, "Deployment", fullname)).Spec.Replicas)
		pdb := typed[policyv1.PodDisruptionBudget](t, objs.get(t, "PodDisruptionBudget", fullname))
		assert.Equal(t, intstr.FromInt32(1), *pdb.Spec.MaxUnavailable,
			"unlike replicaCount 1, the HPA's pods get a PDB: never blocking, at most one evicted at a time")

		// A memory target alone; a PDB the operator turned off.
		objs = render(t, "--set", "autoscaling.enabled=true,autoscaling.minReplicas=1,podDisruptionBudget.enabled=false",
			"--set", "autoscaling.targetCPUUtilizationPercentage=null,autoscaling.targetMemoryUtilizationPercentage=90")
		hpa = typed[autoscalingv2.HorizontalPodAutoscaler](t, objs.get(t, "HorizontalPodAutoscaler", fullname))
		assert.Equal(t, hpaSpec(1, 5, utilization(corev1.ResourceMemory, 90)), hpa.Spec)
		assert.Empty(t, objs.ofKind("PodDisruptionBudget"))
	})

	t.Run("refused", func(t *testing.T) {
		for _, tc := range []struct{ set, want string }{
			{"autoscaling.maxReplicas=1",
				"autoscaling.maxReplicas (1) must be at least autoscaling.minReplicas (2)"},
			{"autoscaling.minReplicas=6",
				"autoscaling.maxReplicas (5) must be at least autoscaling.minReplicas (6)"},
			{"resources.requests.cpu=null",
				"autoscaling.targetCPUUtilizationPercentage needs resources.requests.cpu: the HPA measures CPU utilization against the pods' request"},
			{"resources.requests=null",
				"autoscaling.targetCPUUtilizationPercentage needs resources.requests.cpu"},
			{"resources.requests.cpu=0m",
				"autoscaling.targetCPUUtilizationPercentage needs resources.requests.cpu"},
			{"resources.requests.memory=null,autoscaling.targetMemoryUtilizationPercentage=80",
				"autoscaling.targetMemoryUtilizationPercentage needs resources.requests.memory"},
			{"autoscaling.targetCPUUtilizationPercentage=null",
				"autoscaling.enabled needs autoscaling.targetCPUUtilizationPercentage or autoscaling.targetMemoryUtilizationPercentage"},
			// The PDB at minReplicas: minAvailable 1 of 1, 2 of 2, 60% of 2 (rounded up: 2) allow no eviction.
			{"autoscaling.minReplicas=1",
				"podDisruptionBudget.minAvailable 1 with 1 replicas (autoscaling.minReplicas) allows no eviction and would block every node drain"},
			{"podDisruptionBudget.minAvailable=2",
				"podDisruptionBudget.minAvailable 2 with 2 replicas (autoscaling.minReplicas) allows no eviction"},
			{"podDisruptionBudget.minAvailable=60%",
				"podDisruptionBudget.minAvailable 60% with 2 replicas (autoscaling.minReplicas) allows no eviction"},
			{"podDisruptionBudget.maxUnavailable=0",
				"podDisruptionBudget.maxUnavailable 0 allows no eviction and would block every node drain"},
		} {
			t.Run(tc.set, func(t *testing.T) {
				out, err := renderErr(t, "--set", "autoscaling.enabled=true,"+tc.set)
				require.Error(t, err, "rendered:\n%s", out)
				assert.Contains(t, err.Error(), tc.want)
			})
		}
		// Requests are only needed for the metrics in use.
		render(t, "--set", "autoscaling.enabled=true,resources.requests.memory=null")
	})

	t.Run("PDB at minReplicas: what is allowed", func(t *testing.T) {
		for _, tc := range []struct {
			set          string
			min, maxUnav *intstr.IntOrString
		}{
			{"autoscaling.minReplicas=3,podDisruptionBudget.minAvailable=2", ptrTo(intstr.FromInt32(2)), nil},
			{"podDisruptionBudget.minAvailable=50%", ptrTo(intstr.FromString("50%")), nil},
			{"autoscaling.minReplicas=1,podDisruptionBudget.maxUnavailable=50%", nil, ptrTo(intstr.FromString("50%"))},
			{"podDisruptionBudget.minAvailable=0", ptrTo(intstr.FromInt32(0)), nil},
		} {
			objs := render(t, "--set", "autoscaling.enabled=true,"+tc.set)
			pdb := typed[policyv1.PodDisruptionBudget](t, objs.get(t, "PodDisruptionBudget", fullname))
			assert.Equal(t, tc.min, pdb.Spec.MinAvailable, tc.set)
			assert.Equal(t, tc.maxUnav, pdb.Spec.MaxUnavailable, tc.set)
		}
	})

	t.Run("without autoscaling the same PDB rule holds at replicaCount", func(t *testing.T) {
		_, err := renderErr(t, "--set", "replicaCount=2,podDisruptionBudget.minAvailable=2")
		assert.ErrorContains(t, err, "podDisruptionBudget.minAvailable 2 with 2 replicas (replicaCount) allows no eviction")
		_, err = renderErr(t, "--set", "replicaCount=3,podDisruptionBudget.maxUnavailable=0%")
		assert.ErrorContains(t, err, "podDisruptionBudget.maxUnavailable 0% allows no eviction")
		objs := render(t, "--set", "replicaCount=3,podDisruptionBudget.minAvailable=2")
		assert.Equal(t, intstr.FromInt32(2), *typed[policyv1.PodDisruptionBudget](t, objs.get(t, "PodDisruptionBudget", fullname)).Spec.MinAvailable)
	})
}

// parseServe returns the flags of a container's `serve` args (a flag
// without a value as "true"). Whether the binary accepts them is what the
// end-to-end tests prove, by running it with exactly these args.
func parseServe(t *testing.T, args []string) map[string]string {
	t.Helper()
	require.NotEmpty(t, args)
	require.Equal(t, "serve", args[0])
	got := map[string]string{}
	for _, a := range args[1:] {
		require.True(t, strings.HasPrefix(a, "--"), "argument %q", a)
		name, value, ok := strings.Cut(strings.TrimPrefix(a, "--"), "=")
		if !ok {
			value = "true"
		}
		require.NotContains(t, got, name, "flag given twice")
		got[name] = value
	}
	return got
}

func ptrTo[T any](v T) *T { return &v }

// The schema's least maxInFlightBytes is the least the server accepts.
func TestSchemaMinimumInFlightBytes(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(root, chartPath, "values.schema.json"))
	require.NoError(t, err)
	var schema struct {
		Properties struct {
			Webhook struct {
				Properties struct {
					MaxInFlightBytes struct {
						Minimum int64 `json:"minimum"`
					} `json:"maxInFlightBytes"`
				} `json:"properties"`
			} `json:"webhook"`
		} `json:"properties"`
	}
	require.NoError(t, json.Unmarshal(data, &schema))
	assert.Equal(t, int64(inflight.MinMaxBytes), schema.Properties.Webhook.Properties.MaxInFlightBytes.Minimum)
}
