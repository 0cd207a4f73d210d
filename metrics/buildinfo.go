package metrics

import (
	"runtime/debug"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/version"
)

// descBuild describes redlock_build_info with the labels of prometheus/common/version's collector, which
// every official exporter serves, and the build date besides.
var descBuild = desc("build_info", "Always 1; the labels name the build: its version, the commit it was built from "+
	"(revision), the branch and build date when the release set them, and the Go toolchain and platform.",
	"version", "revision", "branch", "builddate", "goversion", "goos", "goarch")

// buildLabels are the values of descBuild's labels: the release given (the program's version), and
// prometheus/common/version's, set at build time by -ldflags -X (see .goreleaser.yaml); without them the
// revision and the date are the module's VCS stamp (debug.ReadBuildInfo's vcs.revision and vcs.time), and
// "unknown" when the binary has none.
func buildLabels(release string) []string {
	revision, date := version.Revision, version.BuildDate
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, s := range info.Settings {
			switch {
			case s.Key == "vcs.revision" && revision == "":
				revision = s.Value
			case s.Key == "vcs.time" && date == "":
				date = s.Value
			}
		}
	}
	if release == "" {
		release = version.Version
	}
	return []string{orUnknown(release), orUnknown(revision), orUnknown(version.Branch), orUnknown(date),
		version.GoVersion, version.GoOS, version.GoArch}
}

// orUnknown is s, or "unknown" when empty, as prometheus/common/version writes what a build did not set.
func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

// collectBuild writes redlock_build_info.
func collectBuild(ch chan<- prometheus.Metric, labels []string) {
	ch <- prometheus.MustNewConstMetric(descBuild, prometheus.GaugeValue, 1, labels...)
}
