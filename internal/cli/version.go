package cli

import (
	"runtime"
	"runtime/debug"
)

// versionString names the program, its release (or the commit it was built from) and the Go version.
func versionString(release string) string {
	return "redlock-tui " + buildVersion(release) + " " + runtime.Version()
}

// buildVersion is the release: the one set at build time (release), else the module version of a go install, else the
// commit the binary was built from ("+dirty" with uncommitted changes), else "(devel)".
func buildVersion(release string) string {
	if release != "" {
		return release
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "(devel)"
	}
	if v := info.Main.Version; v != "" && v != "(devel)" {
		return v // a module version (go install ...@v1.2.3 or a pseudo-version) names its commit
	}
	rev, dirty := "", false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value[:min(12, len(s.Value))]
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	switch {
	case rev == "":
		return "(devel)"
	case dirty:
		return "(devel) " + rev + "+dirty"
	}
	return "(devel) " + rev
}
