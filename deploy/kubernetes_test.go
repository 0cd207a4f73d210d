package deploy

import (
	"errors"
	"io"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// object is what the tests read of a Kubernetes object.
type object struct {
	APIVersion string `yaml:"apiVersion"`
	Kind       string `yaml:"kind"`
	Metadata   struct {
		Name   string            `yaml:"name"`
		Labels map[string]string `yaml:"labels"`
	} `yaml:"metadata"`
	Spec struct {
		// Deployment
		Selector struct {
			MatchLabels map[string]string `yaml:"matchLabels"`
		} `yaml:"selector"`
		Template struct {
			Metadata struct {
				Labels map[string]string `yaml:"labels"`
			} `yaml:"metadata"`
			Spec struct {
				SecurityContext struct {
					RunAsNonRoot bool `yaml:"runAsNonRoot"`
				} `yaml:"securityContext"`
				Containers []container `yaml:"containers"`
			} `yaml:"spec"`
		} `yaml:"template"`
		// Service (its selector is a plain map: read apart) and ServiceMonitor
		PublishNotReady bool `yaml:"publishNotReadyAddresses"`
		Ports           []struct {
			Name       string `yaml:"name"`
			Port       int    `yaml:"port"`
			TargetPort string `yaml:"targetPort"`
		} `yaml:"ports"`
		Endpoints []struct {
			Port string `yaml:"port"`
			Path string `yaml:"path"`
		} `yaml:"endpoints"`
	} `yaml:"spec"`
}

// container is what the tests read of a Deployment's container.
type container struct {
	Name  string `yaml:"name"`
	Image string `yaml:"image"`
	Env   []struct {
		Name, Value string
	} `yaml:"env"`
	Ports []struct {
		Name          string `yaml:"name"`
		ContainerPort int    `yaml:"containerPort"`
	} `yaml:"ports"`
	LivenessProbe   probe `yaml:"livenessProbe"`
	ReadinessProbe  probe `yaml:"readinessProbe"`
	SecurityContext struct {
		AllowPrivilegeEscalation *bool `yaml:"allowPrivilegeEscalation"`
		ReadOnlyRootFilesystem   bool  `yaml:"readOnlyRootFilesystem"`
		Capabilities             struct {
			Drop []string `yaml:"drop"`
		} `yaml:"capabilities"`
	} `yaml:"securityContext"`
}

// probe is what the tests read of a container's probe.
type probe struct {
	HTTPGet struct {
		Path string `yaml:"path"`
		Port string `yaml:"port"`
	} `yaml:"httpGet"`
}

// subset reports whether every label of sel is in labels, and sel has one.
func subset(sel, labels map[string]string) bool {
	for k, v := range sel {
		if labels[k] != v {
			return false
		}
	}
	return len(sel) > 0
}

// TestTheKubernetesManifestFitsTogether reads deploy/kubernetes/redlock-tui.yaml: a Deployment, a Service and a
// ServiceMonitor, each with its apiVersion and name; the Deployment's selector picks its pods, the Service's
// selects them and targets the container's metrics port (the default port), the ServiceMonitor selects the
// Service and scrapes its port; the probes read /healthz and /readyz; the container runs as non-root without
// privilege escalation on a read-only root with every capability dropped; every REDLOCK_TUI_ variable sets a
// flag; the Service publishes pods that are not ready (a watcher without quorum must still be scraped).
func TestTheKubernetesManifestFitsTogether(t *testing.T) {
	text := read(t, "kubernetes/redlock-tui.yaml")
	checkEnv(t, "the manifest", text)
	byKind := map[string]object{}
	var serviceSelector map[string]string
	dec := yaml.NewDecoder(strings.NewReader(text))
	for {
		var node yaml.Node
		if err := dec.Decode(&node); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		var o object
		if err := node.Decode(&o); err != nil {
			t.Fatal(err)
		}
		if o.APIVersion == "" || o.Kind == "" || o.Metadata.Name == "" {
			t.Errorf("an object without apiVersion, kind or name: %+v", o)
		}
		if o.Kind == "Service" {
			var svc struct {
				Spec struct {
					Selector map[string]string `yaml:"selector"`
				} `yaml:"spec"`
			}
			if err := node.Decode(&svc); err != nil {
				t.Fatal(err)
			}
			serviceSelector = svc.Spec.Selector
		}
		byKind[o.Kind] = o
	}
	want := map[string]string{"Deployment": "apps/v1", "Service": "v1", "ServiceMonitor": "monitoring.coreos.com/v1"}
	for kind, api := range want {
		if byKind[kind].APIVersion != api {
			t.Fatalf("%s: apiVersion %q; want %q (objects: %v)", kind, byKind[kind].APIVersion, api, byKind)
		}
	}
	dep, svc, mon := byKind["Deployment"], byKind["Service"], byKind["ServiceMonitor"]
	pods := dep.Spec.Template.Metadata.Labels
	if !subset(dep.Spec.Selector.MatchLabels, pods) {
		t.Errorf("the Deployment's selector %v does not pick its pods %v", dep.Spec.Selector.MatchLabels, pods)
	}
	if !subset(serviceSelector, pods) {
		t.Errorf("the Service's selector %v does not pick the pods %v", serviceSelector, pods)
	}
	if !subset(mon.Spec.Selector.MatchLabels, svc.Metadata.Labels) {
		t.Errorf("the ServiceMonitor's selector %v does not pick the Service %v", mon.Spec.Selector.MatchLabels, svc.Metadata.Labels)
	}
	if len(dep.Spec.Template.Spec.Containers) != 1 {
		t.Fatalf("containers %+v; want one", dep.Spec.Template.Spec.Containers)
	}
	c := dep.Spec.Template.Spec.Containers[0]
	ports := map[string]int{}
	for _, p := range c.Ports {
		ports[p.Name] = p.ContainerPort
	}
	if ports["metrics"] != 9379 {
		t.Errorf("the container's metrics port %v; want %s", ports, defaultPort)
	}
	env := map[string]string{}
	for _, e := range c.Env {
		env[e.Name] = e.Value
	}
	if env["REDLOCK_TUI_METRICS"] != ":"+defaultPort || env["REDLOCK_TUI_HEADLESS"] != "true" || env["REDLOCK_TUI_MASTERS"] == "" {
		t.Errorf("the container's environment %v; want headless, the masters and metrics on :%s", env, defaultPort)
	}
	svcPorts := map[string]bool{}
	for _, p := range svc.Spec.Ports {
		svcPorts[p.Name] = true
		if _, ok := ports[p.TargetPort]; !ok {
			t.Errorf("the Service's port %s targets %q, no port of the container's %v", p.Name, p.TargetPort, ports)
		}
	}
	for _, e := range mon.Spec.Endpoints {
		if !svcPorts[e.Port] || e.Path != "/metrics" {
			t.Errorf("the ServiceMonitor scrapes port %q path %q; want one of the Service's %v at /metrics", e.Port, e.Path, svcPorts)
		}
	}
	if len(mon.Spec.Endpoints) == 0 {
		t.Error("the ServiceMonitor scrapes no endpoint")
	}
	if c.LivenessProbe.HTTPGet.Path != "/healthz" || c.ReadinessProbe.HTTPGet.Path != "/readyz" ||
		ports[c.LivenessProbe.HTTPGet.Port] == 0 || ports[c.ReadinessProbe.HTTPGet.Port] == 0 {
		t.Errorf("probes %+v, %+v; want /healthz and /readyz on a port of the container", c.LivenessProbe, c.ReadinessProbe)
	}
	sc := c.SecurityContext
	if !dep.Spec.Template.Spec.SecurityContext.RunAsNonRoot || sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation ||
		!sc.ReadOnlyRootFilesystem || len(sc.Capabilities.Drop) != 1 || sc.Capabilities.Drop[0] != "ALL" {
		t.Errorf("security contexts %+v, %+v; want non-root, no privilege escalation, a read-only root, every capability dropped",
			dep.Spec.Template.Spec.SecurityContext, sc)
	}
	if !svc.Spec.PublishNotReady {
		t.Error("the Service drops pods that are not ready: a watcher without quorum would not be scraped")
	}
}
