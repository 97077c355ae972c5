package deploy

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/alternayte/queuebox/pkg/config"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
)

// manifests decodes every YAML file of one directory of deploy/kubernetes
// strictly, in file name order.
func manifests(t *testing.T, dir string) []object {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("kubernetes", dir, "*.yaml"))
	require.NoError(t, err)
	require.NotEmpty(t, files, dir)
	var out []object
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		out = append(out, decodeStrict(t, f, data)...)
	}
	return out
}

// Every manifest of every variant decodes strictly into its API type, and
// each kustomization names files that exist and lists every file of its
// directory, so `kubectl apply -k` applies what the directory holds.
func TestKubernetesManifestsDecodeStrictly(t *testing.T) {
	t.Parallel()
	for _, dir := range []string{".", "migrate", "roles"} {
		objs := manifests(t, dir)
		var k *kustomization
		for _, o := range objs {
			if v, ok := o.Value.(*kustomization); ok {
				k = v
			}
		}
		require.NotNil(t, k, "%s has a kustomization.yaml", dir)
		listed := map[string]bool{"kustomization.yaml": true}
		for _, r := range k.Resources {
			requireFile(t, filepath.Join("deploy/kubernetes", dir, r))
			listed[r] = true
		}
		for _, p := range k.Patches {
			requireFile(t, filepath.Join("deploy/kubernetes", dir, p.Path))
			listed[p.Path] = true
		}
		files, err := filepath.Glob(filepath.Join("kubernetes", dir, "*.yaml"))
		require.NoError(t, err)
		for _, f := range files {
			require.True(t, listed[filepath.Base(f)], "%s is in no kustomization of its directory", f)
		}
	}
}

// variant is one applicable shape: its objects by kind.
type variant struct {
	deployments []*appsv1.Deployment
	services    []*corev1.Service
	pdbs        []*policyv1.PodDisruptionBudget
	ingresses   []*networkingv1.Ingress
	jobs        []*batchv1.Job
	pvcs        map[string]bool
	config      string
}

func loadVariant(t *testing.T, dirs ...string) variant {
	t.Helper()
	v := variant{pvcs: map[string]bool{}}
	for _, dir := range dirs {
		v.add(manifests(t, dir))
	}
	require.NotEmpty(t, v.config, "%v: the ConfigMap queuebox-config holds queuebox.yml", dirs)
	return v
}

// add sorts decoded objects into the variant by kind.
func (v *variant) add(objs []object) {
	for _, o := range objs {
		switch x := o.Value.(type) {
		case *appsv1.Deployment:
			v.deployments = append(v.deployments, x)
		case *corev1.Service:
			v.services = append(v.services, x)
		case *policyv1.PodDisruptionBudget:
			v.pdbs = append(v.pdbs, x)
		case *networkingv1.Ingress:
			v.ingresses = append(v.ingresses, x)
		case *batchv1.Job:
			v.jobs = append(v.jobs, x)
		case *corev1.PersistentVolumeClaim:
			v.pvcs[x.Name] = true
		case *corev1.ConfigMap:
			if x.Name == "queuebox-config" {
				v.config = x.Data["queuebox.yml"]
			}
		}
	}
}

// secretFiles gives every file: reference of a configuration a content, and
// fails unless the path lies in the Secret's mount /run/secrets.
func secretFiles(t *testing.T, text string) map[string]string {
	t.Helper()
	files := map[string]string{}
	for _, m := range regexp.MustCompile(`file:(\S+)`).FindAllStringSubmatch(text, -1) {
		require.True(t, strings.HasPrefix(m[1], "/run/secrets/"), "%s is not in the Secret's mount", m[1])
		files[m[1]] = "from-" + filepath.Base(m[1]) + "\n"
	}
	return files
}

// containerConfig loads the ConfigMap's file with the container's
// QUEUEBOX_ variables, as the pod would.
func containerConfig(t *testing.T, v variant, c corev1.Container) *config.Config {
	t.Helper()
	var env []string
	for _, e := range c.Env {
		require.Nil(t, e.ValueFrom, "%s: %s: secrets are files, not variables", c.Name, e.Name)
		if e.Name == "QUEUEBOX_CONFIG_FILE" {
			require.Equal(t, configPath, e.Value)
			continue
		}
		env = append(env, e.Name+"="+e.Value)
	}
	// A variable's file: reference (the migrate Job's password) too.
	return loadConfig(t, v.config, secretFiles(t, v.config+" "+strings.Join(env, " ")), env...)
}

// The one-process Deployment is page 20's, hardened: two replicas of the
// image's default command, probes on the management port, a startup probe,
// a grace period above 5 s + 2 x outbox.shutdownTimeoutMs, the ConfigMap
// and the Secret as files, resources and a restricted security context.
func TestKubernetesSingleDeployment(t *testing.T) {
	t.Parallel()
	v := loadVariant(t, ".")
	require.Len(t, v.deployments, 1)
	d := v.deployments[0]
	require.Equal(t, "queuebox", d.Name)
	require.EqualValues(t, 2, *d.Spec.Replicas)
	c := d.Spec.Template.Spec.Containers[0]
	require.Empty(t, c.Command, "the image's default: every role")
	cfg := checkPod(t, v, d)
	require.True(t, cfg.Database.Migrate)
	require.False(t, cfg.Outbox.Capture.Enabled, "two replicas: capture would have two owners")
}

// The per-role variant: one Deployment per role running its binary,
// capture as one replica with strategy Recreate and its state volume, and
// every Service and PodDisruptionBudget selecting the pods of one role.
func TestKubernetesRolesVariant(t *testing.T) {
	t.Parallel()
	v := loadVariant(t, "roles")
	byRole := map[string]*appsv1.Deployment{}
	for _, d := range v.deployments {
		role := d.Spec.Template.Labels["role"]
		byRole[role] = d
		require.Equal(t, "queuebox-"+role, d.Name)
		require.Equal(t, []string{"queuebox-" + role}, d.Spec.Template.Spec.Containers[0].Command)
		cfg := checkPod(t, v, d)
		require.Equal(t, role == "capture", cfg.Outbox.Capture.Enabled, "%s: only capture owns capture", role)
		require.True(t, cfg.Outbox.Capture.Wakes(), "%s: deliver wakes on capture", role)
	}
	require.Len(t, byRole, len(roleBinaries))
	for _, role := range roleBinaries {
		require.Contains(t, byRole, role)
	}

	capture := byRole["capture"]
	require.EqualValues(t, 1, *capture.Spec.Replicas)
	require.Equal(t, appsv1.RecreateDeploymentStrategyType, capture.Spec.Strategy.Type)
	cfg := containerConfig(t, v, capture.Spec.Template.Spec.Containers[0])
	volume := mountedVolume(t, capture, cfg.Outbox.Capture.StateDirectory)
	require.NotNil(t, volume.PersistentVolumeClaim, "the capture state survives a restart")
	require.True(t, v.pvcs[volume.PersistentVolumeClaim.ClaimName], "the claim %s is part of the variant", volume.PersistentVolumeClaim.ClaimName)
	require.EqualValues(t, 10001, *capture.Spec.Template.Spec.SecurityContext.FSGroup, "the volume is writable by queuebox")
}

// Across both shapes, every Service and PodDisruptionBudget selects the
// pods of exactly one Deployment (a single-shape Service never reaches a
// role's pods, and a role's Service never another role's).
func TestKubernetesSelectorsMatchOneDeployment(t *testing.T) {
	t.Parallel()
	single, roles := loadVariant(t, "."), loadVariant(t, "roles")
	all := append(append([]*appsv1.Deployment(nil), single.deployments...), roles.deployments...)
	for _, v := range []variant{single, roles} {
		for _, s := range v.services {
			requireSelectsOne(t, "Service "+s.Name, s.Spec.Selector, all)
		}
		for _, p := range v.pdbs {
			requireSelectsOne(t, "PodDisruptionBudget "+p.Name, p.Spec.Selector.MatchLabels, all)
			require.NotNil(t, p.Spec.MinAvailable)
		}
		for _, d := range v.deployments {
			require.Equal(t, d.Spec.Selector.MatchLabels, d.Spec.Template.Labels, d.Name)
		}
	}
}

// The Ingress of both shapes publishes /inbox only, ends TLS, limits the
// body like inbox.maxBodyBytes and reaches the data port of a Service
// whose pods serve the inbox routes.
func TestKubernetesIngressPublishesTheInboxOnly(t *testing.T) {
	t.Parallel()
	for dir, service := range map[string]string{".": "queuebox", "roles": "queuebox-ingest"} {
		v := loadVariant(t, dir)
		require.Len(t, v.ingresses, 1)
		ing := v.ingresses[0]
		require.NotEmpty(t, ing.Spec.TLS)
		cfg := loadConfig(t, v.config, secretFiles(t, v.config))
		require.Equal(t, fmt.Sprintf("%dm", cfg.Inbox.MaxBodyBytes>>20), ing.Annotations["nginx.ingress.kubernetes.io/proxy-body-size"])
		for _, rule := range ing.Spec.Rules {
			for _, p := range rule.HTTP.Paths {
				require.Equal(t, cfg.Inbox.BasePath, p.Path)
				require.Equal(t, networkingv1.PathTypePrefix, *p.PathType)
				require.Equal(t, service, p.Backend.Service.Name)
				require.EqualValues(t, cfg.Server.HTTPPort, p.Backend.Service.Port.Number)
			}
		}
		var found bool
		for _, s := range v.services {
			if s.Name == service {
				found = true
				require.EqualValues(t, cfg.Server.HTTPPort, s.Spec.Ports[0].Port)
				require.Equal(t, "http", s.Spec.Ports[0].TargetPort.StrVal)
			} else {
				for _, p := range s.Spec.Ports {
					require.NotEqual(t, "http", p.TargetPort.StrVal, "only %s carries the data port", service)
				}
			}
		}
		require.True(t, found, "the Ingress's Service %s is part of %s", service, dir)
	}
}

// The migrate variant turns database.migrate off on the pods and runs a
// Job of queuebox migrate on the pods' configuration.
func TestKubernetesMigrateVariant(t *testing.T) {
	t.Parallel()
	v := loadVariant(t, ".", "migrate")
	require.Len(t, v.jobs, 1)
	require.Len(t, v.deployments, 2, "the base Deployment and its patch")
	patch := v.deployments[1].Spec.Template.Spec.Containers[0]
	require.Equal(t, v.deployments[0].Spec.Template.Spec.Containers[0].Name, patch.Name, "the patch names the container it changes")
	cfg := containerConfig(t, v, corev1.Container{Name: patch.Name, Env: append(v.deployments[0].Spec.Template.Spec.Containers[0].Env, patch.Env...)})
	require.False(t, cfg.Database.Migrate)
	checkMigrateJob(t, v, v.jobs[0], "queuebox-config", "queuebox-secrets")
}

// checkMigrateJob: the Job runs queuebox migrate from the pods' image on
// the pods' database, with the configuration from configMap, the pods'
// secret files, and the owner's password from a Secret of its own; no
// other image and no migration files to mount.
func checkMigrateJob(t *testing.T, v variant, job *batchv1.Job, configMap, secrets string) {
	t.Helper()
	pod := job.Spec.Template.Spec
	require.Equal(t, corev1.RestartPolicyNever, pod.RestartPolicy)
	require.Len(t, pod.Containers, 1)
	c := pod.Containers[0]
	require.Equal(t, []string{"queuebox", "migrate"}, c.Command)
	app := v.deployments[0].Spec.Template.Spec.Containers[0]
	require.Equal(t, app.Image, c.Image, "the Job runs the release the pods run")
	cfg := containerConfig(t, v, c)
	require.Equal(t, containerConfig(t, v, app).Database.URL, cfg.Database.URL, "the Job migrates the database the pods use")
	require.NotEqual(t, containerConfig(t, v, app).Database.Username, cfg.Database.Username, "the schema owner's account")
	require.Equal(t, "from-migrate-password", cfg.Database.Password.Reveal())

	mounts := map[string]string{}
	for _, m := range c.VolumeMounts {
		mounts[m.MountPath] = m.Name
	}
	vols := map[string]corev1.Volume{}
	for _, vol := range pod.Volumes {
		vols[vol.Name] = vol
	}
	require.Len(t, vols, 2, "the configuration and the secrets, nothing else")
	require.Equal(t, configMap, vols[mounts["/etc/queuebox"]].ConfigMap.Name)
	projected := vols[mounts["/run/secrets"]].Projected
	require.NotNil(t, projected)
	require.Len(t, projected.Sources, 2)
	require.Equal(t, secrets, projected.Sources[0].Secret.Name)
	own := projected.Sources[1].Secret
	require.NotEqual(t, secrets, own.Name)
	require.Equal(t, []corev1.KeyToPath{{Key: "password", Path: "migrate-password"}}, own.Items)
}

// checkPod applies the rules every QueueBox pod follows and returns its
// configuration.
func checkPod(t *testing.T, v variant, d *appsv1.Deployment) *config.Config {
	t.Helper()
	pod := d.Spec.Template.Spec
	require.Len(t, pod.Containers, 1, d.Name)
	c := pod.Containers[0]
	cfg := containerConfig(t, v, c)

	ports := map[string]int32{}
	for _, p := range c.Ports {
		ports[p.Name] = p.ContainerPort
	}
	require.EqualValues(t, cfg.Server.HTTPPort, ports["http"], d.Name)
	require.NotNil(t, cfg.Server.ManagementPort, "%s: probes and metrics stay off the data port", d.Name)
	require.EqualValues(t, *cfg.Server.ManagementPort, ports["management"], d.Name)
	for probe, path := range map[*corev1.Probe]string{c.StartupProbe: "/health/live", c.LivenessProbe: "/health/live", c.ReadinessProbe: "/health/ready"} {
		require.NotNil(t, probe, d.Name)
		require.Equal(t, path, probe.HTTPGet.Path, d.Name)
		require.Equal(t, "management", probe.HTTPGet.Port.StrVal, d.Name)
	}
	require.GreaterOrEqual(t, c.StartupProbe.PeriodSeconds*c.StartupProbe.FailureThreshold, int32(120), "%s: a long migration has minutes", d.Name)

	grace := float64(*pod.TerminationGracePeriodSeconds)
	require.Greater(t, grace, 5+2*float64(cfg.Outbox.ShutdownTimeoutMs)/1000, d.Name)

	require.Equal(t, "queuebox-config", mountedVolume(t, d, "/etc/queuebox").ConfigMap.Name)
	require.Equal(t, "queuebox-secrets", mountedVolume(t, d, "/run/secrets").Secret.SecretName)

	require.False(t, c.Resources.Requests.Cpu().IsZero(), d.Name)
	require.False(t, c.Resources.Requests.Memory().IsZero(), d.Name)
	require.False(t, c.Resources.Limits.Memory().IsZero(), d.Name)

	psc, sc := pod.SecurityContext, c.SecurityContext
	require.True(t, *psc.RunAsNonRoot, d.Name)
	require.EqualValues(t, 10001, *psc.RunAsUser, "%s: the image's user queuebox", d.Name)
	require.Equal(t, corev1.SeccompProfileTypeRuntimeDefault, psc.SeccompProfile.Type, d.Name)
	require.False(t, *sc.AllowPrivilegeEscalation, d.Name)
	require.True(t, *sc.ReadOnlyRootFilesystem, d.Name)
	require.Equal(t, []corev1.Capability{"ALL"}, sc.Capabilities.Drop, d.Name)
	return cfg
}

// mountedVolume returns the pod volume mounted at path.
func mountedVolume(t *testing.T, d *appsv1.Deployment, path string) corev1.Volume {
	t.Helper()
	for _, m := range d.Spec.Template.Spec.Containers[0].VolumeMounts {
		if m.MountPath != path {
			continue
		}
		for _, vol := range d.Spec.Template.Spec.Volumes {
			if vol.Name == m.Name {
				return vol
			}
		}
	}
	require.Failf(t, "no volume", "%s mounts nothing at %s", d.Name, path)
	return corev1.Volume{}
}
