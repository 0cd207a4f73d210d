package reading

import (
	"context"
	"fmt"
	"time"

	"github.com/redlock-tui/redlock-tui/monitor/lockshape"
)

// candidateLua is a Lua function shared by the discovery scripts: candidate(k, n, anyNoTTL) returns the value
// (cut to n bytes and marked, digested where it may be a lock, see longValueLua, or k is named as a lock, see
// lockshape.NamedLockLua; a hash lock's fields and
// values, or a sorted set's members, see setLockLua) and PTTL of k
// when it is a lock candidate: a string with a TTL, or without one when its value looks like a token (16-64
// token characters), its name marks it as a lock (lockshape.NamedAsLock: "medusa_lock:order:8" holds "*") or
// anyNoTTL; or a hash lock or a small sorted set with a TTL. It returns nil otherwise,
// and nil, nil and the error when the master refused a read other than for the key's type.
const candidateLua = lockshape.NamedLockLua + `local function candidate(k, n, anyNoTTL)
  local ms = redis.call('PTTL', k)
  if ms > 0 or (ms == -1 and anyNoTTL) then
    local v = redis.pcall('GETRANGE', k, 0, n - 1)
    if type(v) == 'table' and not string.find(v.err, 'WRONGTYPE', 1, true) then return nil, nil, v.err end
    if type(v) ~= 'string' then v = ms > 0 and otherLock(k, n) or nil end
    if type(v) == 'string' and #v == n then
      local len = redis.call('STRLEN', k)
      if len > n then
        local whole = false
        if mayBeLock(v, n, anyNoTTL) or namedLock(k) then
          whole = len <= maxDigested and redis.call('GET', k) or nil
        end
        v = marked(v, len, whole)
      end
    end
    if v then return v, ms end
  elseif ms == -1 then
    local len = redis.pcall('STRLEN', k)
    if type(len) == 'table' and not string.find(len.err, 'WRONGTYPE', 1, true) then return nil, nil, len.err end
    if type(len) == 'number' and len >= 16 and len <= 64 then
      local v = redis.call('GET', k)
      if string.find(v, '^[%w%+/=_%-]+$') then return v, ms end
    end
    if type(len) == 'number' and namedLock(k) then
      local v = redis.call('GETRANGE', k, 0, n - 1)
      if len > n then v = marked(v, len, len <= maxDigested and redis.call('GET', k) or nil) end
      return v, ms
    end
  end
  return nil
end
`

// candidatesScript returns the microseconds it ran, then key, value and PTTL of every lock candidate among
// ARGV[3...] (candidateLua, values cut to ARGV[1] bytes, keys without a TTL taken when ARGV[2] is "1"). It
// reads the keys that keyspace notifications named, by the rules discovery applies to the keys it scans.
var candidatesScript = newReadScript(hashLockLua + setLockLua + longValueLua + candidateLua + candidatesLua)

// candidatesLua is candidatesScript's own part.
const candidatesLua = `local n, anyNoTTL = tonumber(ARGV[1]), ARGV[2] == '1'
local t = redis.call('TIME')
local t0 = t[1] * 1000000 + t[2]
local out = {0}
for i = 3, #ARGV do
  local v, ms, err = candidate(ARGV[i], n, anyNoTTL)
  if err then return redis.error_reply(err) end
  if v then
    out[#out+1] = ARGV[i]; out[#out+1] = v; out[#out+1] = ms
  end
end
t = redis.call('TIME')
out[1] = t[1] * 1000000 + t[2] - t0
return out`

// readCandidates reads keys by the rules discovery applies to the keys it scans, in one round trip (two
// without scripts): those that are lock candidates, with the server time it took. It waits for its script as
// pauseBound says.
func (p *poller) readCandidates(ctx context.Context, cfg Config, keys []string) (discovered, error) {
	if !p.scripted() {
		var r Reading
		if err := p.readFound(ctx, &r, keys, cfg); err != nil {
			return discovered{}, err
		}
		return discovered{keys: pipelinedCandidates(cfg, r.Keys), refusals: r.refusals, minCost: pipelinedKeyCost,
			scanned: int64(len(keys))}, nil
	}
	args := make([]any, 0, len(keys)+2)
	args = append(args, cfg.MaxValueLen, anyNoTTL(cfg))
	for _, k := range keys {
		args = append(args, k)
	}
	bound, cancel := p.pauseBound(ctx, 0)
	defer cancel()
	res, err := p.eval(bound, candidatesScript, nil, args...).Slice()
	if err != nil {
		return discovered{}, err
	}
	if len(res) < 1 || (len(res)-1)%3 != 0 {
		return discovered{}, fmt.Errorf("monitor: candidates script returned %d values", len(res))
	}
	us, _ := res[0].(int64)
	d := discovered{elapsed: time.Duration(us) * time.Microsecond, minCost: minKeyCost, scanned: int64(len(keys))}
	for i := 1; i < len(res); i += 3 {
		k, _ := res[i].(string)
		ms, _ := res[i+2].(int64)
		d.keys = append(d.keys, keyReading(k, res[i+1], ms, cfg.MaxValueLen))
	}
	return d, nil
}

// anyNoTTL is the scripts' flag that takes strings without a TTL as candidates whatever their value: "1"
// under a pattern of the user's, "0" under the default one.
func anyNoTTL(cfg Config) string {
	if cfg.Pattern != DefaultPattern {
		return "1"
	}
	return "0"
}

// pipelinedCandidates keeps, of keys read with plain commands, the lock candidates: present, with a TTL or, when
// without one, a token's shape or a name that says lock (or under a pattern of the user's), as discoverScript
// decides.
func pipelinedCandidates(cfg Config, keys []KeyReading) []KeyReading {
	var out []KeyReading
	for _, k := range keys {
		if k.Absent || k.PTTL == NoTTL && cfg.Pattern == DefaultPattern && !looksLikeToken(k.Value) && !lockshape.NamedAsLock(k.Key) {
			continue
		}
		k.ReadAt = time.Time{}
		out = append(out, k)
	}
	return out
}
