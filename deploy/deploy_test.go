// Package deploy holds what runs the watcher where operators run exporters: the image (../Dockerfile), the
// release (../.goreleaser.yaml), the systemd unit, the Kubernetes manifest, and the Prometheus rules and the
// Grafana dashboard. Its tests check each file with the tools at hand: systemd-analyze for the unit, a build
// of the static binary the image and the release make, and the structure of the manifests and configurations.
package deploy

import (
	"bytes"
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/redlock-tui/redlock-tui/internal/cli"
)

// defaultPort is the watcher's metrics port in every deploy file and example (docs/monitoring.md).
const defaultPort = "9379"

// envVars are the REDLOCK_TUI_* variables of the dashboard command's flags.
func envVars(t *testing.T) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	for _, g := range cli.Commands()[0].Groups {
		for _, f := range g.Flags {
			out[cli.EnvName(f.Name)] = true
		}
	}
	if !out["REDLOCK_TUI_MASTERS"] || !out["REDLOCK_TUI_WEB_CONFIG_FILE"] {
		t.Fatalf("the flags' variables lack the masters' or the web configuration's: %v", out)
	}
	return out
}

// checkEnv fails for each REDLOCK_TUI_ variable named in text that sets no flag.
func checkEnv(t *testing.T, file, text string) {
	t.Helper()
	known := envVars(t)
	for _, name := range regexp.MustCompile(`REDLOCK_TUI_[A-Z0-9_]+`).FindAllString(text, -1) {
		if !known[name] {
			t.Errorf("%s sets %s, which is no flag's variable", file, name)
		}
	}
}

// read returns a file of the repository, from this directory.
func read(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// buildStatic builds the program as the image and the release do (CGO_ENABLED=0), with the -X
// flags given, unstripped so that its symbols can be read; it returns the binary's path.
func buildStatic(t *testing.T, xflags []string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "redlock-tui")
	ldflags := strings.Join(xflags, " ")
	cmd := exec.Command("go", "build", "-ldflags", ldflags, "-o", bin, "..")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// xTargets are the variables the -X flags of text set ("main.version", ...).
func xTargets(text string) []string {
	var out []string
	for _, m := range regexp.MustCompile(`-X ([\w./-]+)=`).FindAllStringSubmatch(text, -1) {
		out = append(out, m[1])
	}
	return out
}

// TestTheImageAndTheReleaseBuildAStaticBinaryStampingRealVariables builds the binary as the Dockerfile and
// .goreleaser.yaml do: it is static (no ELF interpreter, no dynamic section), and every variable their -X flags
// set is a symbol of it (the linker ignores -X of a variable that does not exist, which would leave
// redlock_build_info without its revision).
func TestTheImageAndTheReleaseBuildAStaticBinaryStampingRealVariables(t *testing.T) {
	if os.Getenv("REDLOCK_TEST_STATIC_BUILD") != "required" {
		t.Skip("builds the whole program again with CGO_ENABLED=0 (minutes on a loaded machine): REDLOCK_TEST_STATIC_BUILD=required, as CI sets it")
	}
	docker, release := read(t, "../Dockerfile"), read(t, "../.goreleaser.yaml")
	targets := append(xTargets(docker), xTargets(release)...)
	if !slices.Contains(targets, "main.version") || !slices.Contains(targets, "github.com/prometheus/common/version.Revision") {
		t.Fatalf("the -X flags %v do not stamp the release and the revision", targets)
	}
	var xflags []string
	for _, v := range targets {
		xflags = append(xflags, "-X "+v+"=test")
	}
	bin := buildStatic(t, xflags)
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP || p.Type == elf.PT_DYNAMIC {
			t.Errorf("the binary is not static: it has a %s segment", p.Type)
		}
	}
	syms, err := f.Symbols()
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, s := range syms {
		have[s.Name] = true
	}
	for _, v := range targets {
		if !have[v] {
			t.Errorf("-X %s sets no variable of the binary", v)
		}
	}
}

// TestTheDockerfileIsStaticNonRootAndMinimal: a build stage with CGO_ENABLED=0, a last stage on distroless
// static or scratch, a user that is not root, the default port exposed and served, and only flags' variables.
func TestTheDockerfileIsStaticNonRootAndMinimal(t *testing.T) {
	text := read(t, "../Dockerfile")
	var froms, users []string
	for _, line := range strings.Split(text, "\n") {
		fields := strings.Fields(line)
		if len(fields) < 2 {
			continue
		}
		switch strings.ToUpper(fields[0]) {
		case "FROM":
			froms = append(froms, fields[1])
		case "USER":
			users = append(users, fields[1])
		}
	}
	if len(froms) < 2 {
		t.Fatalf("FROM lines %v; want a build stage and a minimal last stage", froms)
	}
	if last := froms[len(froms)-1]; last != "scratch" && !strings.HasPrefix(last, "gcr.io/distroless/static") {
		t.Errorf("the image is based on %s; want distroless/static or scratch", last)
	}
	if len(users) == 0 || strings.HasPrefix(users[len(users)-1], "root") || strings.HasPrefix(users[len(users)-1], "0") {
		t.Errorf("USER %v; want a user that is not root", users)
	}
	for _, want := range []string{"CGO_ENABLED=0", "EXPOSE " + defaultPort, "REDLOCK_TUI_METRICS=:" + defaultPort} {
		if !strings.Contains(text, want) {
			t.Errorf("the Dockerfile lacks %q", want)
		}
	}
	checkEnv(t, "Dockerfile", text)
}

// TestTheReleaseConfigurationBuildsStaticBinariesWithChecksums: .goreleaser.yaml is version 2, builds with
// CGO_ENABLED=0 for Linux among others, and writes SHA-256 checksums.
func TestTheReleaseConfigurationBuildsStaticBinariesWithChecksums(t *testing.T) {
	var c struct {
		Version int `yaml:"version"`
		Builds  []struct {
			Env  []string `yaml:"env"`
			GOOS []string `yaml:"goos"`
		} `yaml:"builds"`
		Checksum struct {
			NameTemplate string `yaml:"name_template"`
			Algorithm    string `yaml:"algorithm"`
		} `yaml:"checksum"`
	}
	if err := yaml.Unmarshal([]byte(read(t, "../.goreleaser.yaml")), &c); err != nil {
		t.Fatal(err)
	}
	if c.Version != 2 || len(c.Builds) == 0 || c.Checksum.NameTemplate == "" || c.Checksum.Algorithm != "sha256" {
		t.Fatalf("%+v; want version 2, builds and sha256 checksums", c)
	}
	for _, b := range c.Builds {
		if !slices.Contains(b.Env, "CGO_ENABLED=0") || !slices.Contains(b.GOOS, "linux") {
			t.Errorf("build %+v; want CGO_ENABLED=0 and linux", b)
		}
	}
}

// TestTheSystemdUnitVerifiesAndIsHardened runs systemd-analyze verify on the unit (its ExecStart pointed at a
// build of the program) and wants it silent, its exposure by systemd-analyze security at most 2.0, and the
// hardening the issue asks for.
func TestTheSystemdUnitVerifiesAndIsHardened(t *testing.T) {
	text := read(t, "systemd/redlock-tui.service")
	for _, want := range []string{"DynamicUser=yes", "NoNewPrivileges=yes", "ProtectSystem=strict", "ProtectHome=yes",
		"CapabilityBoundingSet=\n", "Environment=REDLOCK_TUI_METRICS=:" + defaultPort} {
		if !strings.Contains(text, want) {
			t.Errorf("the unit lacks %q", strings.TrimSpace(want))
		}
	}
	checkEnv(t, "the unit", text)
	if _, err := exec.LookPath("systemd-analyze"); err != nil {
		t.Skip("systemd-analyze is not installed (CI installs systemd)")
	}
	bin := "/bin/true" // verify needs an executable there; the program's build is the test above's
	unit := filepath.Join(t.TempDir(), "redlock-tui.service")
	if !strings.Contains(text, "ExecStart=/usr/local/bin/redlock-tui\n") {
		t.Fatal("the unit's ExecStart is not /usr/local/bin/redlock-tui")
	}
	if err := os.WriteFile(unit, []byte(strings.Replace(text, "ExecStart=/usr/local/bin/redlock-tui", "ExecStart="+bin, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	cmd := exec.Command("systemd-analyze", "verify", unit)
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil || out.Len() > 0 {
		t.Errorf("systemd-analyze verify: %v\n%s", err, out.String())
	}
	out.Reset()
	cmd = exec.Command("systemd-analyze", "security", "--offline=true", "--threshold=20", unit)
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Errorf("systemd-analyze security: exposure above 2.0 (%v):\n%s", err, out.String())
	}
}
