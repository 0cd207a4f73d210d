package cli

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestSentinelURLs(t *testing.T) {
	tests := []struct {
		entry, name, master string
		sentinels           []string
		user, pass          string
		db                  int
		tls                 bool
	}{
		{"redis+sentinel://10.0.0.1:26379,10.0.0.2:26380/mymaster", "mymaster@10.0.0.1:26379", "mymaster",
			[]string{"10.0.0.1:26379", "10.0.0.2:26380"}, "", "", 0, false},
		{"redis+sentinel://s1,s2/mymaster", "mymaster@s1:26379", "mymaster", []string{"s1:26379", "s2:26379"}, "", "", 0, false},
		{"redis+sentinel://ops:p%40ss%2Cword@s1:26379/orders/2", "orders@s1:26379/2", "orders", []string{"s1:26379"}, "ops", "p@ss,word", 2, false},
		{"rediss+sentinel://s1:26379/m", "rediss://m@s1:26379", "m", []string{"s1:26379"}, "", "", 0, true},
		{"REDIS+SENTINEL://S1:1/m", "m@S1:1", "m", []string{"S1:1"}, "", "", 0, false},
		{"redis+sentinel://[::1]:26379,[::1]/m%2Dx", "m-x@[::1]:26379", "m-x", []string{"[::1]:26379", "[::1]:26379"}, "", "", 0, false},
	}
	for _, tc := range tests {
		c, err := parseConfig([]string{"-m", tc.entry}, fakeEnv(nil, nil))
		if err != nil {
			t.Errorf("-m %q: %v", tc.entry, err)
			continue
		}
		if len(c.Masters) != 1 {
			t.Errorf("-m %q: %d masters, want one: the Sentinels of one master are one entry", tc.entry, len(c.Masters))
			continue
		}
		m := c.Masters[0]
		o, s := m.Options, m.Sentinel
		if s == nil {
			t.Errorf("-m %q: not a Sentinel master", tc.entry)
			continue
		}
		if m.Name != tc.name || s.MasterName != tc.master || !slices.Equal(s.Addrs, tc.sentinels) || o.Username != tc.user ||
			o.Password != tc.pass || o.DB != tc.db || (o.TLSConfig != nil) != tc.tls {
			t.Errorf("-m %q: name %q, master %q, Sentinels %q, user %q, password %q, db %d, tls %v; want %q %q %q %q %q %d %v",
				tc.entry, m.Name, s.MasterName, s.Addrs, o.Username, o.Password, o.DB, o.TLSConfig != nil,
				tc.name, tc.master, tc.sentinels, tc.user, tc.pass, tc.db, tc.tls)
		}
		if !o.ContextTimeoutEnabled || o.MaxRetries != -1 {
			t.Errorf("-m %q: the client settings were not applied: %+v", tc.entry, o)
		}
	}
}

func TestSentinelEntriesMixWithOthersInOneList(t *testing.T) {
	c, err := parseConfig([]string{"-m", "a:1,redis+sentinel://s1:26379,s2:26379/m,redis://b:2", "-m", "redis+sentinel://s3/n"},
		fakeEnv(map[string]string{"REDISCLI_AUTH": "pw"}, nil))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := masterNames(c), "a:1 m@s1:26379 b:2 n@s3:26379"; got != want {
		t.Errorf("masters %q, want %q", got, want)
	}
	if got := passwords(c); got != "pw pw pw pw" {
		t.Errorf("passwords %q: $REDISCLI_AUTH is the password of every master whose entry has none, Sentinel ones too", got)
	}
}

func TestBadSentinelURLsAreUsageErrors(t *testing.T) {
	tests := []struct{ entry, want string }{
		{"redis+sentinel://s1:26379", "no master name"},
		{"redis+sentinel://s1:26379/", "no master name"},
		{"redis+sentinel://s1,,s2/m", `Sentinel "": empty address`},
		{"redis+sentinel://s1:99999/m", "port"},
		{"redis+sentinel://s1/m?sentinel_password=x", "query parameters"},
		{"redis+sentinel://s1/my%20master", "space"},
		{"redis+sentinel://s1/m/x", `database "x"`},
		{"redis+sentinel://u:secret@s1:bad/m", "port"},
	}
	for _, tc := range tests {
		_, err := parseConfig([]string{"-m", tc.entry}, fakeEnv(nil, nil))
		var ue *UsageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "--masters") ||
			strings.Contains(err.Error(), "\n") {
			t.Errorf("-m %q: %v; want one usage line naming --masters and saying %q", tc.entry, err, tc.want)
		}
		if err != nil && strings.Contains(err.Error(), "secret") {
			t.Errorf("-m %q: the message shows the password: %v", tc.entry, err)
		}
	}
}

func TestOneSentinelMasterListedTwiceIsRefused(t *testing.T) {
	tests := []struct {
		list string
		same bool
	}{
		{"redis+sentinel://localhost:26379/m,redis+sentinel://127.0.0.1/m", true},
		{"redis+sentinel://s1,s2/m,redis+sentinel://s2,s3/m", true},
		{"redis+sentinel://s1/m,redis+sentinel://s2/m", false}, // another deployment's "m"
		{"redis+sentinel://s1/m,redis+sentinel://s1/n", false},
		{"redis+sentinel://s1/m,s1:26379", false}, // a Sentinel given as a master: the monitor names it
	}
	for _, tc := range tests {
		_, err := parseConfig([]string{"-m", tc.list}, fakeEnv(nil, nil))
		if refused := err != nil && strings.Contains(err.Error(), "same master"); refused != tc.same {
			t.Errorf("-m %s: %v; want refused as the same master listed twice: %v", tc.list, err, tc.same)
		}
	}
}

func TestProfilesTakeSentinelMasters(t *testing.T) {
	files := profileFiles(t, "[profiles.s]\nmasters = [\"redis+sentinel://s1:26379,s2:26379/a\", \"redis+sentinel://s3/b\", \"c:6379\"]\n"+
		"user = \"ops\"\ntls = true\n")
	c, err := parseConfig([]string{"-P", "s"}, fakeEnv(nil, files))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := masterNames(c), "rediss://a@s1:26379 rediss://b@s3:26379 rediss://c:6379"; got != want {
		t.Errorf("masters %q, want %q", got, want)
	}
	if s := c.Masters[0].Sentinel; s == nil || !slices.Equal(s.Addrs, []string{"s1:26379", "s2:26379"}) {
		t.Errorf("the first master's Sentinels: %+v", s)
	}
	for _, m := range c.Masters {
		if m.Options.Username != "ops" || m.Options.TLSConfig == nil {
			t.Errorf("%s: user %q, TLS %v; want the profile's user and TLS", m.Name, m.Options.Username, m.Options.TLSConfig != nil)
		}
	}
}
