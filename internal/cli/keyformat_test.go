package cli

import (
	"errors"
	"strings"
	"testing"
)

func TestKeyFormatNamesRunsLockInAPeersConvention(t *testing.T) {
	for _, tc := range []struct {
		format, want string
	}{
		{"plain", "billing"},
		{"malkusch", "lock_billing"},
		{"php-lock", "php-malkusch-lock:billing"},
		{"redis-semaphore", "mutex:billing"},
		{"redis-semaphore-semaphore", "semaphore:billing"},
		{"redlock-net", "redlock:billing"},
		{"pottery", "redlock:billing"},
		{"django-redis", ":1:billing"},
		{"medusa", "medusa_lock:billing"},
		{"laravel", "laravel_database_laravel_cache:billing"},
		{"laravel:my_shop", "my_shop_database_my_shop_cache:billing"},
		{"app:{}:lock", "app:billing:lock"},
	} {
		rc, err := parseRunConfig([]string{"-m", "127.0.0.1:1", "--key-format", tc.format, "billing", "--", "true"}, realEnv)
		if err != nil || rc.Resource != tc.want {
			t.Errorf("--key-format %s: key %q, err %v; want %q", tc.format, rc.Resource, err, tc.want)
		}
	}
	_, err := parseRunConfig([]string{"-m", "127.0.0.1:1", "--key-format", "symfony-ish", "billing", "--", "true"}, realEnv)
	var ue *UsageError
	if !errors.As(err, &ue) || !strings.Contains(ue.Msg, "malkusch") || !strings.Contains(ue.Msg, "{}") {
		t.Errorf("an unknown format: %v; want a usage error listing the formats and the template", err)
	}
	_, err = parseRunConfig([]string{"-m", "127.0.0.1:1", "--key-format", "laravel:My Shop", "billing", "--", "true"}, realEnv)
	if !errors.As(err, &ue) || !strings.Contains(ue.Msg, "my_shop") {
		t.Errorf("a Laravel app's name as typed, not as Laravel slugs it: %v; want a usage error showing the slug", err)
	}
	if _, err := parseRunConfig([]string{"-m", "127.0.0.1:1", "--permits", "pool=3", "billing", "--", "true"}, realEnv); err == nil {
		t.Error("run took --permits, a watching flag")
	}
}

func TestPermitsAreTheSemaphoresLimits(t *testing.T) {
	c, err := parseConfig([]string{"-m", "127.0.0.1:1", "--permits", "pool=3,semaphore:batch=4"}, realEnv)
	if err != nil || c.Permits["pool"] != 3 || c.Permits["semaphore:batch"] != 4 || monitorConfig(c).Permits["pool"] != 3 {
		t.Errorf("permits %v, err %v; want pool 3 and semaphore:batch 4, handed to the monitor", c.Permits, err)
	}
	if _, err := parseConfig([]string{"-m", "127.0.0.1:1", "--permits", "pool=0"}, realEnv); err == nil {
		t.Error("a limit of 0 permits was taken")
	}
}
