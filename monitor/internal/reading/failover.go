package reading

import (
	"context"
	"errors"
	"net"
	"strings"

	"github.com/redlock-tui/redlock-tui/redlock"
)

// What INFO and ROLE tell of a failover: a replica's primary, its replication history, a Sentinel given as a master.

// failoverInfo fills the fields of r that tell a failover and a replica's primary from INFO's fields.
func failoverInfo(fields map[string]string, r *Reading) {
	r.ReplID, r.ReplID2 = replID(fields["master_replid"]), replID(fields["master_replid2"])
	if h, p := fields["master_host"], fields["master_port"]; h != "" && p != "" {
		r.ReplicaOf = net.JoinHostPort(h, p)
	}
	r.mode = fields["redis_mode"]
}

// replID is a replication ID from INFO, "" for none (all zeros: a server that was never a replica).
func replID(id string) string {
	if strings.Trim(id, "0") == "" {
		return ""
	}
	return id
}

// locatePrimary sets r.Primary for a master named through Sentinels (redlock.NewFailoverClient): the primary
// they name now. It returns why they named none; nil for any other master.
func (p *poller) locatePrimary(ctx context.Context, r *Reading) error {
	addr, ok, err := redlock.Primary(ctx, p.client)
	if ok && err == nil {
		r.Primary = addr
	}
	return err
}

// notAMaster returns, for a server whose INFO said it is a Sentinel (r.mode), a *redlock.SentinelPortError that
// says how to give the master behind it, with the masters it watches from its ROLE; nil for any other server.
func (p *poller) notAMaster(ctx context.Context, r *Reading) error {
	if r.mode != "sentinel" {
		return nil
	}
	o := p.client.Options()
	role, _ := p.client.Do(ctx, "role").Slice()
	if err := redlock.SentinelRole(role, o.Addr, o.TLSConfig != nil); err != nil {
		return err
	}
	return &redlock.SentinelPortError{Addr: o.Addr, TLS: o.TLSConfig != nil}
}

// isNotAMaster reports whether err says a master cannot be read because it is not one, which waiting will not
// change: a Sentinel given as a master, or a name its Sentinels do not know.
func isNotAMaster(err error) bool {
	var pe *redlock.SentinelPortError
	var se *redlock.SentinelError
	return errors.As(err, &pe) || errors.As(err, &se) && se.Refused
}
