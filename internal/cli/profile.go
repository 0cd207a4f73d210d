package cli

import (
	"crypto/tls"
	"errors"
	"fmt"
	"maps"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
	"github.com/redlock-tui/redlock-tui/internal/app"
	"github.com/spf13/pflag"
)

// configFileName is the profiles' file, in the redlock-tui folder of the user's config directory.
const configFileName = "config.toml"

// profileFile is the config file: [profiles.NAME] tables and nothing else.
type profileFile struct {
	Profiles map[string]profile `toml:"profiles"`
}

// profile is one [profiles.NAME] table: a named set of masters and how to connect to them. It never holds a
// password, only where to read one.
type profile struct {
	Masters      []string `toml:"masters"`       // as --masters
	User         string   `toml:"user"`          // for masters whose entry names none
	PasswordEnv  string   `toml:"password_env"`  // the environment variable holding the password
	PasswordFile string   `toml:"password_file"` // as --password-file
	TLS          bool     `toml:"tls"`           // every master connects with TLS, as if written rediss://
	TLSCAFile    string   `toml:"tls_ca_file"`   // as --tls-ca-file
	TLSCertFile  string   `toml:"tls_cert_file"` // as --tls-cert
	TLSKeyFile   string   `toml:"tls_key_file"`  // as --tls-key
	Pattern      string   `toml:"pattern"`       // as --pattern
	ReadOnly     bool     `toml:"read_only"`     // as --read-only
	Production   bool     `toml:"production"`    // read-only unless --read-only=false, and loud in the header
	Color        string   `toml:"color"`         // the name's colour in the header: #RRGGBB, #RGB or 0 to 255
}

// profileKeys are a profile's keys, as the message about an unknown one lists them.
const profileKeys = "masters, user, password_env, password_file, tls, tls_ca_file, tls_cert_file, tls_key_file, " +
	"pattern, read_only, production, color"

// maxListedProfiles bounds the names listed in the message about an unknown profile.
const maxListedProfiles = 10

// chosenProfile is the profile --profile names, as the file gives it.
type chosenProfile struct {
	profile
	name  string
	path  string                // the config file
	dir   string                // the config file's folder: relative file names are read from there
	given func(key string) bool // whether the file sets key in this profile, even to ""
}

// applyProfile puts the profile --profile names into c and v, under the flags given on the command line, which
// win over it. A production profile makes the run read-only unless --read-only=false is given.
func applyProfile(fs *pflag.FlagSet, c *Config, v *flagValues, env Environment) error {
	switch {
	case !fs.Changed("profile") && fs.Changed("config"):
		return usagef("--config is the file of the profiles: give --profile NAME too")
	case !fs.Changed("profile"):
		return nil
	case v.profile == "":
		return usagef("--profile: empty name")
	case fs.Changed("masters"):
		return usagef("--profile %q and --masters exclude each other: the profile names its masters", v.profile)
	}
	p, err := loadProfile(v.profile, v.configFile, env)
	if err != nil {
		return err
	}
	if err := p.check(); err != nil {
		return err
	}
	v.masters, v.from.masters, v.configPath = p.Masters, p.key("masters"), p.path
	v.user, v.allTLS = p.User, p.TLS
	if !fs.Changed("password-file") {
		switch {
		case p.PasswordFile != "":
			v.passwordFile, v.from.passwordFile = p.file(p.PasswordFile), p.key("password_file")
		case p.PasswordEnv != "":
			if v.password = env.Getenv(p.PasswordEnv); v.password == "" {
				return usagef("%s: $%s is not set, or empty", p.key("password_env"), p.PasswordEnv)
			}
		}
	}
	if !fs.Changed("tls-ca-file") && p.TLSCAFile != "" {
		v.tlsCAFile, v.from.tlsCAFile = p.file(p.TLSCAFile), p.key("tls_ca_file")
	}
	if !fs.Changed("tls-cert") && !fs.Changed("tls-key") {
		if p.TLSCertFile != "" {
			v.tlsCert, v.from.tlsCert = p.file(p.TLSCertFile), p.key("tls_cert_file")
		}
		if p.TLSKeyFile != "" {
			v.tlsKey, v.from.tlsKey = p.file(p.TLSKeyFile), p.key("tls_key_file")
		}
	}
	if !fs.Changed("pattern") && p.Pattern != "" {
		c.Pattern = p.Pattern
	}
	if !fs.Changed("read-only") {
		c.ReadOnly = p.ReadOnly || p.Production
	}
	c.Profile, c.ProfileColor, c.Production = p.name, p.Color, p.Production
	v.profileRO = p.ReadOnly
	return nil
}

// loadProfile reads the config file (file, or the default in the user's config directory) and returns the
// profile called name.
func loadProfile(name, file string, env Environment) (chosenProfile, error) {
	path, err := configPath(file, env)
	if err != nil {
		return chosenProfile{}, usagef("--profile %q: no config directory to find %s in (%v); give --config FILE",
			name, configFileName, err)
	}
	data, err := env.ReadFile(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return chosenProfile{}, usagef("--profile %q: no config file %q (see Connection profiles in the README, or give --config FILE)",
			name, path)
	case err != nil:
		return chosenProfile{}, usagef("--profile %q: config file: %v", name, err)
	}
	profiles, md, err := parseProfiles(data)
	if err != nil {
		return chosenProfile{}, usagef("--profile %q: config file %q: %v", name, path, err)
	}
	p, ok := profiles[name]
	if !ok {
		return chosenProfile{}, usagef("--profile %q: no such profile in %q (%s)", name, path, knownProfiles(profiles))
	}
	given := func(key string) bool { return md.IsDefined("profiles", name, key) }
	return chosenProfile{profile: p, name: name, path: path, dir: filepath.Dir(path), given: given}, nil
}

// configPath is the config file: file when given, else redlock-tui/config.toml in the user's config directory.
func configPath(file string, env Environment) (string, error) {
	if file != "" {
		return file, nil
	}
	dir, err := env.ConfigDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "redlock-tui", configFileName), nil
}

// profileNames lists the profiles of the config file (file, or the default), sorted; none when it cannot be
// read. Shell completion offers them for --profile.
func profileNames(file string, env Environment) []string {
	path, err := configPath(file, env)
	if err != nil {
		return nil
	}
	data, err := env.ReadFile(path)
	if err != nil {
		return nil
	}
	profiles, _, err := parseProfiles(data)
	if err != nil {
		return nil
	}
	return slices.Sorted(maps.Keys(profiles))
}

// parseProfiles decodes the config file strictly: TOML syntax, value types, and no key it does not know, a
// literal password least of all.
func parseProfiles(data []byte) (map[string]profile, toml.MetaData, error) {
	var f profileFile
	md, err := toml.Decode(string(data), &f)
	if err != nil {
		return nil, md, tomlError(err)
	}
	undecoded := md.Undecoded()
	for _, k := range undecoded {
		if len(k) == 3 && k[0] == "profiles" && k[2] == "password" {
			return nil, md, fmt.Errorf("%s: passwords are never stored in the config file: use password_env or password_file", k)
		}
	}
	if len(undecoded) > 0 {
		if k := undecoded[0]; len(k) == 3 && k[0] == "profiles" {
			return nil, md, fmt.Errorf("unknown key %s (a profile's keys: %s)", k, profileKeys)
		}
		return nil, md, fmt.Errorf("unknown key %s (the file holds [profiles.NAME] tables)", undecoded[0])
	}
	return f.Profiles, md, nil
}

// tomlError is a decoding error as the user is shown it: the line and what is wrong there, but not the text
// at fault when it belongs to a password setting, which a malformed file may hold unquoted.
func tomlError(err error) error {
	var pe toml.ParseError
	if !errors.As(err, &pe) {
		return errors.New(strings.TrimPrefix(err.Error(), "toml: ")) // a type error: line, key and types, no value
	}
	if strings.Contains(pe.LastKey, "password") {
		return fmt.Errorf("line %d: malformed TOML near %s (the text is not shown: it may be a secret)",
			pe.Position.Line, pe.LastKey)
	}
	return fmt.Errorf("line %d: malformed TOML: %s", pe.Position.Line, pe.Message)
}

// knownProfiles lists the file's profile names, sorted, for the message about an unknown one.
func knownProfiles(profiles map[string]profile) string {
	if len(profiles) == 0 {
		return "it has none"
	}
	names := slices.Sorted(maps.Keys(profiles))
	shown := names[:min(len(names), maxListedProfiles)]
	quoted := make([]string, len(shown))
	for i, n := range shown {
		quoted[i] = strconv.Quote(n)
	}
	list := "known: " + strings.Join(quoted, ", ")
	if more := len(names) - len(shown); more > 0 {
		list += fmt.Sprintf(" and %d more", more)
	}
	return list
}

// key names one of the profile's keys in messages, as a flag names itself.
func (p chosenProfile) key(key string) string {
	return fmt.Sprintf("--profile %q: %s", p.name, key)
}

// file is the name of a file the profile names, relative to the config file's folder unless absolute.
func (p chosenProfile) file(name string) string {
	if filepath.IsAbs(name) {
		return name
	}
	return filepath.Join(p.dir, name)
}

// check validates the profile's values that need neither the environment nor another file.
func (p chosenProfile) check() error {
	if len(p.Masters) == 0 {
		return usagef("%s: none given: a profile names its masters", p.key("masters"))
	}
	for _, k := range []struct{ key, value string }{{"user", p.User}, {"password_env", p.PasswordEnv},
		{"password_file", p.PasswordFile}, {"tls_ca_file", p.TLSCAFile}, {"tls_cert_file", p.TLSCertFile},
		{"tls_key_file", p.TLSKeyFile}, {"pattern", p.Pattern}, {"color", p.Color}} {
		if p.given(k.key) && k.value == "" {
			return usagef("%s must not be empty", p.key(k.key))
		}
	}
	switch {
	case p.PasswordEnv != "" && p.PasswordFile != "":
		return usagef("%s and password_file exclude each other", p.key("password_env"))
	case p.PasswordEnv != "" && !isEnvName(p.PasswordEnv):
		// Not shown: it may be the password itself, put there by mistake.
		return usagef("%s must name an environment variable (letters, digits and _, not starting with a digit)",
			p.key("password_env"))
	case p.Color != "" && !isColor(p.Color):
		return usagef("%s %q: want #RRGGBB, #RGB or an ANSI colour number from 0 to 255", p.key("color"), p.Color)
	}
	return nil
}

// isEnvName reports whether s is a portable environment variable name.
func isEnvName(s string) bool {
	for i, r := range s {
		if !(r == '_' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return s != ""
}

// isColor reports whether s is a colour the header can show: #RRGGBB, #RGB, or an ANSI colour number.
func isColor(s string) bool {
	if hex, ok := strings.CutPrefix(s, "#"); ok {
		_, err := strconv.ParseUint(hex, 16, 32)
		return err == nil && (len(hex) == 3 || len(hex) == 6)
	}
	_, err := strconv.ParseUint(s, 10, 8)
	return err == nil
}

// useTLS makes a master given without TLS connect with it, as if it had been written rediss://, for a profile
// with tls = true.
func useTLS(m *app.Master) {
	host, _, _ := net.SplitHostPort(m.Options.Addr) // parseMaster joined it
	m.Options.TLSConfig = &tls.Config{ServerName: host}
	m.Name = "rediss://" + m.Name
}

// applyRunProfile puts the profile --profile names into run's settings, as applyProfile does for the
// dashboard: its masters, user, password source and TLS apply. A production profile is taken: it guards
// production from an operator's writes in the dashboard, and run's one write, its own lock, is what the
// command line asks for. A read_only profile says it never writes, and refuses run.
func applyRunProfile(fs *pflag.FlagSet, c *Config, v *flagValues, env Environment) error {
	if err := applyProfile(fs, c, v, env); err != nil || c.Profile == "" {
		return err
	}
	if v.profileRO {
		return usagef("--profile %q is read_only, so it never writes, and run takes a lock, a write: run with a "+
			"profile of its own for jobs (without read_only) or with --masters", c.Profile)
	}
	return nil
}
