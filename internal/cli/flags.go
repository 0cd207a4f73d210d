package cli

import (
	"strings"

	"github.com/spf13/pflag"

	"github.com/redlock-tui/redlock-tui/monitor"
	"github.com/redlock-tui/redlock-tui/ui"
)

// flagGroup is a group of flags that modes share: declared once, composed into each mode's flag set, and
// listed under its title in that mode's help.
type flagGroup struct {
	title string
	add   func(fs *pflag.FlagSet, v *flagValues)
	check func(c *Config, v *flagValues) error // nil: nothing to check beyond the flags' types
}

// The flag groups.
var (
	connectionFlags = flagGroup{"Connection", addConnectionFlags, nil} // the masters are checked by parseMasters
	profileFlags    = flagGroup{"Profiles", addProfileFlags, nil}
	runProfileFlags = flagGroup{"Profiles", addRunProfileFlags, nil} // run's: a read-only profile is refused
	lockFlags       = flagGroup{"Locks", addLockFlags, checkLockFlags}
	monitorFlags    = flagGroup{"Watching", addMonitorFlags, checkMonitorFlags}
	outputFlags     = flagGroup{"Output", addOutputFlags, checkOutputFlags}
	demoFlags       = flagGroup{"Demo", addDemoFlags, checkDemoFlags}
	debugFlags      = flagGroup{"Debugging", addDebugFlags, nil}
	screenFlags     = flagGroup{"Screen", addScreenFlags, checkScreenFlags}
	generalFlags    = flagGroup{"General", addGeneralFlags, nil}
)

// dashboardGroups are the flags of the dashboard, --once and --headless.
var dashboardGroups = []flagGroup{connectionFlags, profileFlags, lockFlags, keyFormatFlags, monitorFlags, permitsFlags,
	outputFlags, whoFlags, demoFlags, screenFlags, debugFlags, generalFlags}

// newFlagSet declares the groups' flags on a fresh set bound to v.
func newFlagSet(groups []flagGroup, v *flagValues) *pflag.FlagSet {
	fs := pflag.NewFlagSet("redlock-tui", pflag.ContinueOnError)
	fs.SortFlags = false
	v.from = flagSettingNames
	for _, g := range groups {
		g.add(fs, v)
	}
	return fs
}

// groupUsages lists the groups' flags, each group under its title.
func groupUsages(groups []flagGroup, v *flagValues) string {
	var b strings.Builder
	for _, g := range groups {
		b.WriteString("\n" + g.title + " flags:\n" + newFlagSet([]flagGroup{g}, v).FlagUsages())
	}
	return b.String()
}

// flagSettingNames are the names of the settings given as flags.
var flagSettingNames = settingNames{masters: "--masters", passwordFile: "--password-file", tlsCAFile: "--tls-ca-file",
	tlsCert: "--tls-cert", tlsKey: "--tls-key"}

// addConnectionFlags declares how to reach the masters.
func addConnectionFlags(fs *pflag.FlagSet, v *flagValues) {
	fs.StringArrayVarP(&v.masters, "masters", "m", nil,
		"Redis masters: host:port or redis://[user[:password]@]host[:port][/db] or rediss://..., or through Sentinels "+
			"redis+sentinel://host:26379[,host:26379]/MASTERNAME; comma list or repeated; none: embedded demo masters")
	fs.StringVar(&v.passwordFile, "password-file", "",
		"read the masters' password from this file (first line); else $REDISCLI_AUTH; a password in a URL wins")
	fs.StringVar(&v.tlsCAFile, "tls-ca-file", "", "PEM file of CA certificates for rediss:// masters")
	fs.StringVar(&v.tlsCert, "tls-cert", "", "PEM file of the client certificate, for rediss:// masters that ask for one "+
		"(tls-auth-clients); with --tls-key")
	fs.StringVar(&v.tlsKey, "tls-key", "", "PEM file of the client certificate's private key; with --tls-cert")
	fs.BoolVar(&v.cfg.TLSSkipVerify, "tls-skip-verify", false, "do not verify rediss:// certificates (insecure)")
	fs.BoolVar(&v.cfg.Cluster, "cluster", false, "the masters are nodes of one Redis Cluster, watched and locked as one "+
		"lock service (detected anyway when every master given is a node of one cluster)")
}

// addProfileFlags declares the connection profiles.
func addProfileFlags(fs *pflag.FlagSet, v *flagValues) {
	fs.StringVarP(&v.profile, "profile", "P", "",
		"connect with this profile of the config file: its masters, user, password source, TLS, pattern, read-only; flags given win")
	addConfigFlag(fs, v)
}

// addRunProfileFlags declares the connection profiles as run takes them: a writer, it refuses a read-only one.
func addRunProfileFlags(fs *pflag.FlagSet, v *flagValues) {
	fs.StringVarP(&v.profile, "profile", "P", "",
		"connect with this profile of the config file: its masters, user, password source and TLS; flags given win; "+
			"a read_only profile is refused (run writes)")
	addConfigFlag(fs, v)
}

// addConfigFlag declares the profiles' file.
func addConfigFlag(fs *pflag.FlagSet, v *flagValues) {
	fs.StringVar(&v.configFile, "config", "",
		"the profiles' file (default: redlock-tui/"+configFileName+" in the user's config directory, e.g. ~/.config)")
}

// addLockFlags declares how our locks are taken.
func addLockFlags(fs *pflag.FlagSet, v *flagValues) {
	c := &v.cfg
	fs.DurationVar(&c.TTL, "ttl", defaultTTL, "TTL of locks acquired from the dashboard")
	fs.DurationVar(&c.NodeTimeout, "node-timeout", defaultNodeTimeout, "how long one master may take to answer one lock command")
	fs.IntVar(&c.Retries, "retries", defaultRetries, "acquire rounds tried after the first fails")
	fs.StringVar(&v.retryDelay, "retry-delay", defaultRetryDelay, "random delay between acquire rounds: min-max, or a single max")
	fs.Float64Var(&c.DriftFactor, "drift-factor", defaultDriftFactor, "clock drift allowance as a fraction of the TTL: from 0 to what leaves a lock of --ttl time to be extended "+
		"(under 0.567; less when --ttl is short next to --node-timeout)")
	fs.BoolVar(&c.Fencing, "fencing", false, "locks we take carry fencing tokens, counted on the masters (see the README)")
}

// addMonitorFlags declares what is watched and how often.
func addMonitorFlags(fs *pflag.FlagSet, v *flagValues) {
	c := &v.cfg
	fs.StringVar(&c.Pattern, "pattern", monitor.DefaultPattern, "SCAN MATCH pattern of the keys to show as locks")
	fs.DurationVar(&c.Poll, "poll", defaultPoll, "poll interval")
	fs.DurationVar(&c.History, "history", monitor.DefaultHistory, "how long each lock's holders are kept for its contention figures and timeline")
	fs.IntVar(&c.MaxKeys, "max-keys", monitor.DefaultMaxKeys, "distinct lock keys tracked; beyond it a warning counts those left out")
	fs.Float64Var(&c.ScanBudget, "scan-budget", monitor.DefaultScanBudget*100,
		"percent of one CPU core of each master that the search for new lock keys may use (the scan continues across polls)")
	fs.BoolVar(&c.ReadOnly, "read-only", false, "never write: acquiring, extending, releasing and deleting are disabled")
	fs.BoolVar(&c.NoTracking, "no-tracking", false, "re-read every lock key on every poll, even where a master could say what changed")
	fs.DurationVar(&c.FullReadEvery, "full-read-every", monitor.DefaultFullReadEvery,
		"on masters that say what changed (CLIENT TRACKING): read every lock key again this often, as a safety net")
}

// addOutputFlags declares the modes without a screen and their outputs.
func addOutputFlags(fs *pflag.FlagSet, v *flagValues) {
	c := &v.cfg
	fs.BoolVar(&c.Once, "once", false, "print one snapshot and exit: 0 if a quorum of masters answered, 3 if not")
	fs.BoolVar(&c.JSON, "json", false, "with --once: print JSON instead of a table")
	fs.BoolVar(&c.Markdown, "markdown", false, "with --once: print a Markdown incident report instead of a table")
	fs.DurationVar(&c.Watch, "watch", 0, "with --once: poll for this long before printing, for each lock's contention")
	fs.BoolVar(&c.Headless, "headless", false, "no screen: poll until SIGTERM, serving --metrics and writing --events")
	fs.StringVar(&c.Metrics, "metrics", "", "serve Prometheus metrics at http://ADDR/metrics (host:port)")
	fs.StringVar(&c.WebConfig, "web.config.file", "", "TLS and basic auth of --metrics: a Prometheus exporter toolkit web configuration `FILE`")
	fs.StringSliceVar(&c.MetricsLocks, "metrics-locks", nil, "resources that get metrics of their own (comma list or repeated)")
	fs.StringVar(&c.Events, "events", "", "append every event as a JSON line to this file (- for stdout, with --headless); SIGHUP reopens it")
	fs.StringVar(&c.Record, "record", "", "record every poll and event to this new `FILE` (mode 0600), for redlock-tui replay; SIGHUP begins a new file")
	fs.StringVar(&c.RecordMax, "record-max", "256M", "with --record: at this size the file becomes FILE.1 and a new one begins")
}

// addDemoFlags declares the embedded demo.
func addDemoFlags(fs *pflag.FlagSet, v *flagValues) {
	c := &v.cfg
	fs.BoolVar(&c.Demo, "demo", false, "embedded demo masters and a workload: the dashboard's default without --masters, "+
		"which --once and --headless need said")
	fs.IntVar(&c.DemoClients, "demo-clients", defaultDemoClients, "demo mode (no --masters): simulated clients")
	fs.IntVar(&c.DemoResources, "demo-resources", defaultDemoResources, "demo mode (no --masters): resources they contend for")
}

// backgroundUsage is --background's help, the dashboard's and replay's.
const backgroundUsage = "the terminal's background, for the palette: auto (ask the terminal; tmux is asked too), light or dark"

// addScreenFlags declares how the dashboard draws.
func addScreenFlags(fs *pflag.FlagSet, v *flagValues) {
	fs.StringVar(&v.cfg.Background, "background", "auto", backgroundUsage)
}

// checkScreenFlags refuses a background that is not one of ui.Backgrounds.
func checkScreenFlags(c *Config, _ *flagValues) error {
	if err := ui.CheckBackground(c.Background); err != nil {
		return usagef("--background: %v", err)
	}
	return nil
}

// addDebugFlags declares the debug log.
func addDebugFlags(fs *pflag.FlagSet, v *flagValues) {
	fs.StringVar(&v.cfg.Debug, "debug", "", "append a log of connections, Redlock rounds and polls to this file; the dashboard, --headless and run reopen it on SIGHUP")
}

// addGeneralFlags declares help and version.
func addGeneralFlags(fs *pflag.FlagSet, v *flagValues) {
	fs.BoolVarP(&v.cfg.Version, "version", "v", false, "print the version and exit (also: redlock-tui version)")
	fs.BoolVarP(&v.cfg.Help, "help", "h", false, "print this help and exit")
}
