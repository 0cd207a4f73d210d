package cli

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"net"
	"net/netip"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/redis/go-redis/v9"

	"github.com/redlock-tui/redlock-tui/demo"
	"github.com/redlock-tui/redlock-tui/internal/app"
	"github.com/redlock-tui/redlock-tui/monitor"
	"github.com/redlock-tui/redlock-tui/monitor/vocab"
	"github.com/redlock-tui/redlock-tui/monitor/vocab/untrusted"
	"github.com/redlock-tui/redlock-tui/redlock"
)

// Defaults of the command line, also shown by --help.
const (
	defaultTTL           = 10 * time.Second
	defaultPoll          = monitor.DefaultInterval
	minHistory           = time.Minute    // the shortest --history: the last minute's figures need it
	maxHistory           = 24 * time.Hour // the longest --history
	defaultNodeTimeout   = 50 * time.Millisecond
	defaultRetries       = 3
	defaultRetryDelay    = "50ms-250ms"
	defaultDriftFactor   = monitor.DefaultDriftFactor
	defaultDemoClients   = demo.DefaultClients
	defaultDemoResources = demo.DefaultResources

	// maxDemo is demo.Start's bound on clients and on resources, checked here so
	// that a wrong number is a usage error before the screen is taken over.
	maxDemo = 50
)

// Client settings shared by every go-redis client the program creates. The
// per-command deadline is the caller's context (the node timeout for lock
// rounds, the monitor's timeout for polls); these are the backstops.
const (
	minDialTimeout = 200 * time.Millisecond
	minIOTimeout   = 500 * time.Millisecond
	poolSize       = 4 // lock rounds are batched per master, and the monitor reads one request at a time
	pipelinePool   = 2
)

// Config is the validated command line. Everything in it has been checked,
// so the program can act on it without further validation.
type Config struct {
	Masters       []app.Master  // in the order given; empty: embedded demo masters
	Pattern       string        // SCAN MATCH pattern of lock keys
	TTL           time.Duration // default TTL for locks acquired from the dashboard
	Poll          time.Duration // poll interval of the monitor
	History       time.Duration // how long each lock's holders are kept (contention)
	NodeTimeout   time.Duration // per-master deadline of one lock command
	Retries       int           // extra acquire rounds after the first fails
	RetryDelayMin time.Duration // lower bound of the random delay between rounds
	RetryDelayMax time.Duration // upper bound of the random delay between rounds
	DriftFactor   float64       // clock drift allowance as a fraction of the TTL
	MaxKeys       int           // lock keys tracked in all
	ScanBudget    float64       // percent of one master core that discovery may use
	NoTracking    bool          // poll every key on every poll, never track (monitor.Config.NoTracking)
	FullReadEvery time.Duration // with tracking: how often every key is read again
	ReadOnly      bool          // no write command at all
	Fencing       bool          // our locks carry fencing tokens (redlock.WithFencing)
	Once          bool          // print one snapshot and exit
	JSON          bool          // with Once: JSON instead of a table
	Markdown      bool          // with Once: a Markdown incident report instead of a table
	Watch         time.Duration // with Once: poll this long before printing (contention); 0 print once swept
	Headless      bool          // no screen: poll until a signal, for --metrics and --events
	Metrics       string        // address to serve Prometheus metrics on, "" none
	WebConfig     string        // --web.config.file: TLS and basic auth of the metrics, "" none
	MetricsLocks  []string      // resources with series of their own in the metrics
	Events        string        // file to append the event stream to, "-" stdout (headless only), "" none
	Record        string        // --record: file to record every poll and event to, for replay; "" none
	RecordMax     string        // --record-max: the size at which the recording begins a new file ("256M")
	recordMax     int64         // RecordMax in bytes, once checked
	Debug         string        // file to append the debug log to (connections, rounds, polls), "" none
	Background    string        // the palette's background: auto, light or dark (ui.Backgrounds)
	TLSSkipVerify bool          // rediss:// certificates are not checked; main warns loudly
	Cluster       bool          // --cluster: the masters are nodes of one Redis Cluster (app.Open detects it anyway)
	Demo          bool          // --demo: the embedded demo masters, said out loud (the dashboard's default without masters)
	DemoClients   int           // simulated clients in demo mode
	DemoResources int           // resources they contend for
	Profile       string        // --profile: the connection profile's name, "" none
	ProfileColor  string        // the profile's colour for the header: #RRGGBB, #RGB or an ANSI number; "" the default
	Production    bool          // the profile is marked production: the header says so loudly
	Help          bool          // print usage and exit; nothing else is set
	Version       bool          // print the version and exit; nothing else is set

	// Other clients' locks (keyformat.go).
	KeyFormat string         // the key convention our locks take (monitor.KeyFormat): "plain", "malkusch", ...
	Permits   map[string]int // semaphores' limits by name or key (monitor.Config.Permits)

	Who whoConfig // --once --who: name a lock's holder from a sample of its master (whoholds.go)

	// Warnings are about the files given: a secret others may read (secretfiles.go); one line each on stderr.
	Warnings []string
}

// Environment is what parsing may read besides the arguments: injected so
// that parsing stays pure and tests need no real environment or files.
type Environment struct {
	Getenv    func(string) string
	ReadFile  func(string) ([]byte, error)
	ConfigDir func() (string, error) // the user's configuration directory (os.UserConfigDir), for --profile
	// Stat looks at a file (os.Stat), for the warnings about secrets others may read; nil: no warnings.
	Stat func(string) (fs.FileInfo, error)
}

// UsageError is a mistake on the command line: exit status 2, one line on
// stderr, before anything is connected or drawn.
type UsageError struct{ Msg string }

// Error returns the message on a single line of printable text: when user
// input in it holds a control, bidirectional or other invisible character or
// invalid UTF-8, the whole message goes through the one escaper of the
// program's plain-text output (untrusted.Escape), so a newline cannot split it
// and a bidi override cannot reorder it.
func (e *UsageError) Error() string {
	for _, r := range e.Msg {
		if r == utf8.RuneError || !unicode.IsPrint(r) {
			return untrusted.Escape(e.Msg)
		}
	}
	return e.Msg
}

// usagef returns a UsageError; by convention the message starts with the flag it is about.
func usagef(format string, args ...any) error {
	return &UsageError{Msg: fmt.Sprintf(format, args...)}
}

// flagValues holds the raw flag values before validation, and what a
// profile adds to them.
type flagValues struct {
	masters      []string
	passwordFile string
	tlsCAFile    string
	tlsCert      string // --tls-cert: the client certificate's PEM file
	tlsKey       string // --tls-key: its private key's PEM file
	retryDelay   string
	profile      string // --profile NAME, "" none
	profileRO    bool   // the profile's read_only key: it never writes, even for run
	configFile   string // --config FILE, "" the default path
	cfg          Config
	demoFlag     string       // the first demo-only flag given, "" for none
	user         string       // a profile's user, for masters whose entry has none
	password     string       // a profile's password from its password_env, for masters whose entry has none
	allTLS       bool         // a profile's tls: every master connects with TLS, as rediss://
	from         settingNames // where the masters, the password file and the CA file were given, for messages
	configPath   string       // the config file of the profile used, "" none
	warnings     []string     // about the files given (secretfiles.go), for Config.Warnings
}

// settingNames name, in messages, where the masters, the password file and
// the CA file were given: their flags, or the keys of a profile.
type settingNames struct{ masters, passwordFile, tlsCAFile, tlsCert, tlsKey string }

// usage is the --help text.
func usage() string {
	var v flagValues
	return `redlock-tui: a terminal dashboard for Redlock distributed locks across N Redis masters.

Usage:
  redlock-tui [flags]                       embedded demo masters (--demo, said or not)
  redlock-tui -m host1:6379,host2:6379,...  your masters
  redlock-tui -m ... --once [--json]        one snapshot, no screen
  redlock-tui -m ... --headless --metrics :9379 --events FILE   no screen: metrics and an event stream
  redlock-tui run -m ... RESOURCE -- CMD    run a command under a lock (run --help)

` + commandsUsage() + groupUsages(dashboardGroups, &v) + `
Environment: ` + envHelp + `.
REDISCLI_AUTH is the masters' password (as redis-cli reads it) where neither a URL nor --password-file gives
one; NO_COLOR, when set, turns colours off (--background chooses the palette). Keys: ? in the dashboard, or the man page.

Exit status: 0 ok; 1 failure; 2 bad usage; 3 (--once) fewer than a quorum of masters answered.
`
}

// parseConfig parses and validates the arguments (without the program name).
// Its errors are *UsageError; redis-cli's connection flags get one that points
// to this program's way (redisCLIHabit). With --help or --version it returns at once
// with only that field set.
func parseConfig(args []string, env Environment) (Config, error) {
	var v flagValues
	fs := newFlagSet(dashboardGroups, &v)
	if err := redisCLIHabit(args, fs); err != nil {
		return Config{}, err
	}
	fs.SetOutput(io.Discard) // errors are reported by the caller, on one line
	if err := fs.Parse(args); err != nil {
		return Config{}, flagParseError(err, fs)
	}
	if err := applyEnv(fs, env); err != nil {
		return Config{}, err
	}
	c := v.cfg
	if c.Help || c.Version {
		return Config{Help: c.Help, Version: c.Version && !c.Help}, nil
	}
	if rest := fs.Args(); len(rest) > 0 {
		if close := closeNames(rest[0], commandNames()); len(close) > 0 {
			return Config{}, usagef("unexpected argument %q: no command of that name (did you mean redlock-tui %s?); "+
				"masters go in --masters", rest[0], strings.Join(close, " or redlock-tui "))
		}
		return Config{}, usagef("unexpected argument %q (masters go in --masters)", rest[0])
	}
	for _, name := range []string{"demo-clients", "demo-resources"} {
		if fs.Changed(name) && v.demoFlag == "" {
			v.demoFlag = name
		}
	}
	if err := applyProfile(fs, &c, &v, env); err != nil {
		return Config{}, err
	}
	if err := validateScalars(dashboardGroups, &c, &v); err != nil {
		return Config{}, err
	}
	if err := checkNewRecording(c.Record, env); err != nil {
		return Config{}, err
	}
	masters, err := parseMasters(v.masters, &c, &v, env)
	if err != nil {
		return Config{}, err
	}
	c.Masters = masters
	return c, checkDemo(c)
}

// checkDemo refuses a forgotten --masters where nobody would see that the demo answers instead: --once in a
// cron job or --headless behind a Prometheus scrape would report a healthy fake cluster. They watch the
// embedded demo masters only when --demo says so; the dashboard shows "demo" in its header.
func checkDemo(c Config) error {
	switch {
	case c.Demo && len(c.Masters) > 0:
		return usagef("--demo watches the embedded demo masters; it excludes --masters and --profile")
	case c.Cluster && len(c.Masters) == 0:
		return usagef("--cluster says the masters given are a Redis Cluster's nodes: give them (--masters or --profile)")
	case len(c.Masters) == 0 && !c.Demo && c.Once:
		return usagef("--once needs your masters (--masters or --profile); --demo prints the embedded demo masters")
	case len(c.Masters) == 0 && !c.Demo && c.Headless:
		return usagef("--headless needs your masters (--masters or --profile); --demo serves the embedded demo masters")
	}
	return nil
}

// validateScalars checks every flag of the groups but the masters, and fills the retry delay.
func validateScalars(groups []flagGroup, c *Config, v *flagValues) error {
	for _, g := range groups {
		if g.check == nil {
			continue
		}
		if err := g.check(c, v); err != nil {
			return err
		}
	}
	return nil
}

// checkLockFlags checks the lock flags and fills the retry delay.
func checkLockFlags(c *Config, v *flagValues) error {
	switch {
	case c.TTL < redlock.MinTTL || c.TTL > redlock.MaxTTL:
		return usagef("--ttl must be from %s to %s (as in the acquire form), got %s", vocab.ExactDuration(redlock.MinTTL),
			vocab.ExactDuration(redlock.MaxTTL), vocab.ExactDuration(c.TTL))
	case c.NodeTimeout <= 0:
		return usagef("--node-timeout must be positive, got %s", vocab.ExactDuration(c.NodeTimeout))
	case c.NodeTimeout >= c.TTL:
		return usagef("--node-timeout (%s) must be shorter than --ttl (%s): one slow master would use up a lock's validity",
			vocab.ExactDuration(c.NodeTimeout), vocab.ExactDuration(c.TTL))
	case c.Retries < 0:
		return usagef("--retries must not be negative, got %d", c.Retries)
	case math.IsNaN(c.DriftFactor) || c.DriftFactor < 0 || c.DriftFactor >= 1:
		return usagef("--drift-factor must be in [0,1), got %v", c.DriftFactor)
	}
	if most := redlock.MaxDriftFactor(c.TTL, c.NodeTimeout); c.DriftFactor > most {
		if most < 0 {
			return usagef("--ttl %s is too short to extend a lock with --node-timeout %s, whatever the --drift-factor: "+
				"give a longer --ttl or a shorter --node-timeout", vocab.ExactDuration(c.TTL), vocab.ExactDuration(c.NodeTimeout))
		}
		return usagef("--drift-factor %v leaves no time to extend a lock of --ttl %s with --node-timeout %s: the "+
			"largest that works is %s", c.DriftFactor, vocab.ExactDuration(c.TTL), vocab.ExactDuration(c.NodeTimeout),
			strconv.FormatFloat(math.Floor(most*1000)/1000, 'f', -1, 64))
	}
	lo, hi, err := parseRetryDelay(v.retryDelay)
	if err != nil {
		return err
	}
	c.RetryDelayMin, c.RetryDelayMax = lo, hi
	return nil
}

// checkMonitorFlags checks what is watched and how often.
func checkMonitorFlags(c *Config, _ *flagValues) error {
	switch {
	case c.Poll < monitor.MinInterval || c.Poll > monitor.MaxInterval:
		return usagef("--poll must be from %s to %s (the range + and - step through), got %s",
			vocab.ExactDuration(monitor.MinInterval), vocab.ExactDuration(monitor.MaxInterval), vocab.ExactDuration(c.Poll))
	case c.History < minHistory || c.History > maxHistory:
		return usagef("--history must be from %s to %s, got %s", vocab.ExactDuration(minHistory),
			vocab.ExactDuration(maxHistory), vocab.ExactDuration(c.History))
	case c.MaxKeys <= 0:
		return usagef("--max-keys must be positive, got %d", c.MaxKeys)
	case math.IsNaN(c.ScanBudget) || c.ScanBudget <= 0 || c.ScanBudget > 100:
		return usagef("--scan-budget must be a percent in (0,100], got %v", c.ScanBudget)
	case c.Pattern == "":
		return usagef("--pattern must not be empty (use '*' for every key)")
	case c.FullReadEvery < c.Poll || c.FullReadEvery > 24*time.Hour:
		return usagef("--full-read-every must be from --poll (%s) to 24h, got %s", vocab.ExactDuration(c.Poll),
			vocab.ExactDuration(c.FullReadEvery))
	}
	return nil
}

// checkNewRecording refuses a --record file that exists as a usage error, before anything is connected: a
// recording is never appended to (record.Create refuses one made since, too).
func checkNewRecording(path string, env Environment) error {
	if path == "" || env.Stat == nil {
		return nil
	}
	if _, err := env.Stat(path); err == nil {
		return usagef("--record %s: the file exists: give a new file (a recording is never appended to)", path)
	}
	return nil
}

// checkOutputFlags checks the modes without a screen and their outputs.
func checkOutputFlags(c *Config, _ *flagValues) error {
	switch {
	case c.JSON && !c.Once:
		return usagef("--json only applies with --once")
	case c.Markdown && !c.Once, c.Watch != 0 && !c.Once:
		return usagef("--markdown and --watch only apply with --once")
	case c.Markdown && c.JSON:
		return usagef("--markdown and --json exclude each other")
	case c.Watch < 0 || c.Watch > maxHistory:
		return usagef("--watch must be from 0s to %s, got %s", vocab.ExactDuration(maxHistory), vocab.ExactDuration(c.Watch))
	case c.Headless && c.Once:
		return usagef("--headless and --once exclude each other")
	case c.Headless && c.Metrics == "" && c.Events == "" && c.Record == "":
		return usagef("--headless needs --metrics, --events or --record: it has no other output")
	case c.Record != "" && c.Once:
		return usagef("--record applies to the dashboard and --headless, not --once")
	case c.Events == "-" && !c.Headless:
		return usagef("--events - (standard output) needs --headless: the dashboard owns the screen")
	case len(c.MetricsLocks) > 0 && c.Metrics == "":
		return usagef("--metrics-locks needs --metrics")
	case c.WebConfig != "" && c.Metrics == "":
		return usagef("--web.config.file needs --metrics")
	}
	size, err := parseSize(c.RecordMax)
	if err != nil {
		return usagef("--record-max %q: %v", c.RecordMax, err)
	}
	c.recordMax = size
	if c.Metrics != "" {
		if _, _, err := net.SplitHostPort(c.Metrics); err != nil {
			return usagef("--metrics %q: want host:port (or :port for every interface)", c.Metrics)
		}
	}
	for _, r := range c.MetricsLocks {
		if r == "" {
			return usagef("--metrics-locks: empty resource name")
		}
	}
	return nil
}

// checkDemoFlags checks the embedded demo's size.
func checkDemoFlags(c *Config, _ *flagValues) error {
	switch {
	case c.DemoClients < 1 || c.DemoClients > maxDemo:
		return usagef("--demo-clients must be from 1 to %d, got %d", maxDemo, c.DemoClients)
	case c.DemoResources < 1 || c.DemoResources > maxDemo:
		return usagef("--demo-resources must be from 1 to %d, got %d", maxDemo, c.DemoResources)
	}
	return nil
}

// parseRetryDelay reads "min-max" or a single "max" (the minimum is then 0).
func parseRetryDelay(s string) (lo, hi time.Duration, err error) {
	bad := func(why string) error {
		return usagef("--retry-delay %q: %s (want min-max like 50ms-250ms, or a single max)", s, why)
	}
	loText, hiText, isRange := strings.Cut(strings.TrimSpace(s), "-")
	if !isRange {
		loText, hiText = "0s", loText
	}
	if lo, err = time.ParseDuration(strings.TrimSpace(loText)); err != nil {
		return 0, 0, bad("bad duration " + strconv.Quote(loText))
	}
	if hi, err = time.ParseDuration(strings.TrimSpace(hiText)); err != nil {
		return 0, 0, bad("bad duration " + strconv.Quote(hiText))
	}
	if lo > hi {
		return 0, 0, bad("min is larger than max")
	}
	return lo, hi, nil
}

// parseMasters turns the --masters values (or a profile's) into dialable
// masters: comma lists split, each entry parsed, credentials and TLS applied,
// duplicates refused.
func parseMasters(values []string, c *Config, v *flagValues, env Environment) ([]app.Master, error) {
	var entries []string
	for _, val := range values {
		for _, e := range splitMasters(val) {
			if e = strings.TrimSpace(e); e == "" {
				return nil, usagef("%s: empty entry in %q", v.from.masters, val)
			}
			entries = append(entries, e)
		}
	}
	if len(entries) > 0 && v.demoFlag != "" {
		return nil, usagef("--%s applies to demo mode only, without --masters or --profile", v.demoFlag)
	}
	password, err := globalPassword(v, env)
	if err != nil {
		return nil, err
	}
	roots, err := loadCAFile(v.tlsCAFile, v.from.tlsCAFile, env)
	if err != nil {
		return nil, err
	}
	cert, err := loadClientCert(v, env)
	if err != nil {
		return nil, err
	}
	masters := make([]app.Master, 0, len(entries))
	seen := make(map[string]string, len(entries))
	anyTLS, urlPassword := false, false
	for _, e := range entries {
		m, key, err := parseMaster(e)
		if err != nil {
			return nil, usagef("%s: %v", v.from.masters, err)
		}
		urlPassword = urlPassword || m.Options.Password != ""
		if first := sameMaster(seen, m, key); first != "" {
			return nil, usagef("%s: %s and %s are the same master, listed twice (it would count twice towards the quorum)",
				v.from.masters, first, m.Name)
		}
		if v.allTLS && m.Options.TLSConfig == nil {
			useTLS(&m)
		}
		o := m.Options
		if o.Username == "" {
			o.Username = v.user
		}
		if o.Password == "" {
			o.Password = password
		}
		if o.TLSConfig != nil {
			anyTLS = true
			o.TLSConfig.RootCAs = roots
			o.TLSConfig.InsecureSkipVerify = c.TLSSkipVerify
			if cert != nil {
				o.TLSConfig.Certificates = []tls.Certificate{*cert}
			}
		}
		applyClientSettings(o, c.NodeTimeout)
		masters = append(masters, m)
	}
	if !anyTLS && v.tlsCAFile != "" {
		return nil, usagef("%s: no rediss:// master to use it with", v.from.tlsCAFile)
	}
	if !anyTLS && cert != nil {
		return nil, usagef("%s: no rediss:// master to use it with", v.from.tlsCert)
	}
	if !anyTLS && c.TLSSkipVerify {
		return nil, usagef("--tls-skip-verify: no rediss:// master to use it with")
	}
	warnSecretFiles(v, env, urlPassword)
	c.Warnings = v.warnings
	return masters, nil
}

// globalPassword is the password for masters whose entry has none: the first
// line of --password-file (or of the profile's password_file), else the
// profile's password_env, else $REDISCLI_AUTH, else none.
func globalPassword(v *flagValues, env Environment) (string, error) {
	file, name := v.passwordFile, v.from.passwordFile
	switch {
	case file == "" && v.password != "":
		return v.password, nil
	case file == "":
		return env.Getenv("REDISCLI_AUTH"), nil
	}
	data, err := env.ReadFile(file)
	if err != nil {
		return "", usagef("%s: %v", name, err)
	}
	text := strings.TrimSuffix(strings.TrimSuffix(string(data), "\n"), "\r")
	if strings.ContainsAny(text, "\r\n") {
		return "", usagef("%s %q: more than one line", name, file)
	}
	if text == "" {
		return "", usagef("%s %q is empty", name, file)
	}
	return text, nil
}

// loadCAFile reads a PEM bundle for --tls-ca-file (or a profile's
// tls_ca_file, named so in messages); nil (the system roots) when none is
// given.
func loadCAFile(file, name string, env Environment) (*x509.CertPool, error) {
	if file == "" {
		return nil, nil
	}
	data, err := env.ReadFile(file)
	if err != nil {
		return nil, usagef("%s: %v", name, err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(data) {
		return nil, usagef("%s %q: no PEM certificate in it", name, file)
	}
	return pool, nil
}

// loadClientCert reads the client certificate and its key (--tls-cert and --tls-key, or a profile's
// tls_cert_file and tls_key_file); nil when neither is given. Messages name the settings and files, never
// what the key file holds.
func loadClientCert(v *flagValues, env Environment) (*tls.Certificate, error) {
	switch {
	case v.tlsCert == "" && v.tlsKey == "":
		return nil, nil
	case v.tlsKey == "":
		return nil, usagef("%s needs %s, the certificate's private key", v.from.tlsCert, v.from.tlsKey)
	case v.tlsCert == "":
		return nil, usagef("%s needs %s, the certificate it is the key of", v.from.tlsKey, v.from.tlsCert)
	}
	certPEM, err := env.ReadFile(v.tlsCert)
	if err != nil {
		return nil, usagef("%s: %v", v.from.tlsCert, err)
	}
	keyPEM, err := env.ReadFile(v.tlsKey)
	if err != nil {
		return nil, usagef("%s: %v", v.from.tlsKey, err)
	}
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return nil, usagef("%s %q and %s %q: not a PEM certificate and its private key (%v)", v.from.tlsCert, v.tlsCert,
			v.from.tlsKey, v.tlsKey, err)
	}
	return &cert, nil
}

// serverKey is the key under which two spellings of host:port compare equal: the client's own rule.
func serverKey(host, port string) string {
	return redlock.ServerKey(&redis.Options{Network: "tcp", Addr: net.JoinHostPort(host, port)})
}

// parseMaster parses one entry of --masters or of a profile's masters. It
// returns the master and the key under which two spellings of one server
// compare equal; its errors name the entry, and the caller where it was given.
func parseMaster(entry string) (app.Master, string, error) {
	if rest, withTLS, ok := sentinelRest(entry); ok {
		return parseSentinelURL(entry, withTLS, rest)
	}
	if strings.Contains(entry, "://") {
		return parseMasterURL(entry)
	}
	host, port, err := splitHostPort(entry)
	if err != nil {
		return app.Master{}, "", fmt.Errorf("%q: %v (want host:port or a redis:// URL)", entry, err)
	}
	addr := net.JoinHostPort(host, port)
	return app.Master{Name: addr, Options: &redis.Options{Network: "tcp", Addr: addr}}, serverKey(host, port), nil
}

// parseMasterURL parses a redis:// or rediss:// entry with redis.ParseURL,
// after checking what ParseURL lets through (no host, a port out of range).
// Messages show the URL without its password.
func parseMasterURL(entry string) (app.Master, string, error) {
	u, err := url.Parse(entry)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // url.Error repeats the URL, password included
		}
		return app.Master{}, "", fmt.Errorf("malformed URL: %v", err)
	}
	shown := redactURL(u)
	if u.Scheme != "redis" && u.Scheme != "rediss" {
		return app.Master{}, "", fmt.Errorf("%q: scheme must be redis://, rediss://, redis+sentinel:// or rediss+sentinel://", shown)
	}
	if u.Hostname() == "" {
		return app.Master{}, "", fmt.Errorf("%q: no host", shown)
	}
	host, port := u.Hostname(), u.Port()
	if port == "" && strings.HasSuffix(u.Host, ":") {
		return app.Master{}, "", fmt.Errorf("%q: empty port", shown)
	}
	if port == "" {
		port = defaultRedisPort
	}
	if err := checkHost(host); err != nil {
		return app.Master{}, "", fmt.Errorf("%q: %v", shown, err)
	}
	if err := checkPort(port); err != nil {
		return app.Master{}, "", fmt.Errorf("%q: %v", shown, err)
	}
	o, err := redis.ParseURL(entry)
	if err != nil {
		return app.Master{}, "", fmt.Errorf("%q: %s", shown, strings.TrimPrefix(err.Error(), "redis: "))
	}
	if o.DB < 0 {
		return app.Master{}, "", fmt.Errorf("%q: negative database number", shown)
	}
	name := net.JoinHostPort(host, port)
	if o.DB != 0 {
		name += "/" + strconv.Itoa(o.DB)
	}
	if u.Scheme == "rediss" {
		name = "rediss://" + name
	}
	return app.Master{Name: name, Options: o}, serverKey(host, port), nil
}

// redactURL is u as it may be shown: without the password of its user info or
// of its query (redis://host?password=...).
func redactURL(u *url.URL) string {
	r := *u
	if q := r.Query(); q.Has("password") {
		q.Set("password", "xxxxx")
		r.RawQuery = q.Encode()
	}
	return r.Redacted()
}

// maxInputFile bounds the files read from the command line (a password, a CA
// bundle): far above any real one, and small enough that /dev/zero or a
// runaway file cannot fill the memory.
const maxInputFile = 1 << 20

// readInputFile reads a file named on the command line: only a regular file
// (a FIFO or a device would block or never end), of at most maxInputFile
// bytes.
func readInputFile(name string) ([]byte, error) {
	fi, err := os.Stat(name)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%q is not a regular file", name)
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err = f.Stat(); err != nil || !fi.Mode().IsRegular() { // replaced since the first look
		return nil, fmt.Errorf("%q is not a regular file", name)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxInputFile+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxInputFile {
		return nil, fmt.Errorf("%q is larger than %d KiB", name, maxInputFile>>10)
	}
	return data, nil
}

// defaultRedisPort is the port of a master given without one, in a URL or alone.
const defaultRedisPort = "6379"

// splitHostPort splits host:port and checks both parts; a host alone (a name, an IPv4 address or a bracketed
// IPv6 address) means port 6379, as a URL does.
func splitHostPort(s string) (host, port string, err error) {
	switch {
	case !strings.Contains(s, ":"): // a host name or IPv4 address alone: Redis's port, as in a URL
		s = net.JoinHostPort(s, defaultRedisPort)
	case strings.HasPrefix(s, "[") && strings.HasSuffix(s, "]"): // a bracketed IPv6 address alone
		s += ":" + defaultRedisPort
	}
	host, port, err = net.SplitHostPort(s)
	if err != nil {
		var ae *net.AddrError
		if errors.As(err, &ae) {
			return "", "", errors.New(ae.Err)
		}
		return "", "", err
	}
	if err := checkHost(host); err != nil {
		return "", "", err
	}
	if err := checkPort(port); err != nil {
		return "", "", err
	}
	return host, port, nil
}

// checkHost accepts an IP address or a DNS name.
func checkHost(host string) error {
	if host == "" {
		return errors.New("missing host")
	}
	if _, err := netip.ParseAddr(host); err == nil {
		return nil
	}
	if len(host) > 253 {
		return errors.New("host name too long")
	}
	for _, r := range host {
		ok := r == '-' || r == '.' || r == '_' || r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r))
		if !ok {
			return fmt.Errorf("invalid character %q in host", r)
		}
	}
	if strings.Contains(host, "..") || strings.HasPrefix(host, ".") || strings.HasPrefix(host, "-") {
		return fmt.Errorf("invalid host name %q", host)
	}
	return nil
}

// checkPort accepts a decimal TCP port from 1 to 65535.
func checkPort(port string) error {
	if port == "" {
		return errors.New("missing port")
	}
	n, err := strconv.ParseUint(port, 10, 64)
	if err != nil || n < 1 || n > 65535 {
		return fmt.Errorf("port %q is not a number from 1 to 65535", port)
	}
	return nil
}

// applyClientSettings sets what every client of the program needs: deadlines
// from the caller's context, short backstop timeouts derived from the node
// timeout, no retries (a retried command would hide a failing master and
// stretch a lock round), and a small pool.
func applyClientSettings(o *redis.Options, nodeTimeout time.Duration) {
	o.ContextTimeoutEnabled = true
	o.DialTimeout = max(minDialTimeout, 4*nodeTimeout)
	o.ReadTimeout = max(minIOTimeout, 10*nodeTimeout)
	o.WriteTimeout = o.ReadTimeout
	o.PoolTimeout = o.ReadTimeout
	o.MaxRetries = -1
	o.DialerRetries = 1
	o.PoolSize = poolSize
	o.PipelinePoolSize = pipelinePool
	o.DisableIdentity = true
	if o.TLSConfig != nil && o.TLSConfig.MinVersion == 0 {
		o.TLSConfig.MinVersion = tls.VersionTLS12
	}
}

// minRecordMax is the smallest --record-max: a recording's file holds at least its header and a poll or two.
const minRecordMax = 1 << 20

// parseSize reads a size as --record-max takes it: bytes, or a number with K, M or G (powers of 1024; a
// trailing B or iB is allowed), at least minRecordMax.
func parseSize(s string) (int64, error) {
	t := strings.TrimSuffix(strings.TrimSuffix(strings.ToUpper(strings.TrimSpace(s)), "B"), "I")
	mult := int64(1)
	switch {
	case strings.HasSuffix(t, "K"):
		mult, t = 1<<10, strings.TrimSuffix(t, "K")
	case strings.HasSuffix(t, "M"):
		mult, t = 1<<20, strings.TrimSuffix(t, "M")
	case strings.HasSuffix(t, "G"):
		mult, t = 1<<30, strings.TrimSuffix(t, "G")
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n <= 0 || n > math.MaxInt64/mult {
		return 0, errors.New("want a size such as 256M, 1G or 500K")
	}
	if n*mult < minRecordMax {
		return 0, fmt.Errorf("at least 1M: a recording's file holds at least a few polls")
	}
	return n * mult, nil
}
