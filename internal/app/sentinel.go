package app

import (
	"github.com/redis/go-redis/v9"

	"github.com/redlock-tui/redlock-tui/redlock"
)

// newClient returns the go-redis client of m: for a master named through its Sentinels, one that asks them
// for the primary and follows its failovers (redlock.NewFailoverClient), which the monitor and the Redlock
// client both recognise.
func newClient(m Master) (*redis.Client, error) {
	if m.Sentinel == nil {
		return redis.NewClient(m.Options), nil
	}
	return redlock.NewFailoverClient(*m.Sentinel, m.Options)
}

// closeClients closes cs; an error on close changes nothing for the user.
func closeClients(cs []*redis.Client) {
	for _, c := range cs {
		_ = c.Close()
	}
}
