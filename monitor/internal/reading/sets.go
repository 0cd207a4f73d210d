package reading

import (
	"slices"
	"strconv"
	"time"

	"github.com/redlock-tui/redlock-tui/monitor/lockshape"
)

// setLockLua is a Lua function shared by the read scripts: otherLock(k, n) returns a hash lock's fields and
// values (hashLock), or a small sorted set as {{'zset'}, member, score, ...} with members cut to n bytes, or
// {{'zset-denied'}, error} when the master's ACL refuses ZRANGE (the key is then not read: unknown, never
// absent), or nil. The nested first element tells a set from a hash, whose fields are strings.
const setLockLua = `local function otherLock(k, n)
  local t = redis.call('TYPE', k).ok
  if t == 'hash' then return hashLock(k) end
  if t ~= 'zset' then return nil end
  local z = redis.pcall('ZRANGE', k, 0, 128, 'WITHSCORES')
  if z.err then return {{'zset-denied'}, z.err} end
  if #z > 256 then return nil end
  for i = 1, #z, 2 do
    if #z[i] > n then z[i] = string.sub(z[i], 1, n) end
  end
  table.insert(z, 1, {'zset'})
  return z
end
`

// setReading reads the value the scripts return for a sorted set (see setLockLua): its members, or that the
// master refused to read it. ok is false when v is not a set.
func setReading(v []any, maxLen int) (members []lockshape.SetMember, refused bool, ok bool) {
	if len(v) == 0 {
		return nil, false, false
	}
	marker, isSet := v[0].([]any)
	if !isSet || len(marker) == 0 {
		return nil, false, false
	}
	if s, _ := marker[0].(string); s == "zset-denied" {
		return nil, true, true
	}
	members = make([]lockshape.SetMember, 0, (len(v)-1)/2)
	for i := 1; i+1 < len(v); i += 2 {
		m, _ := v[i].(string)
		s, _ := v[i+1].(string)
		score, err := strconv.ParseFloat(s, 64)
		if err != nil {
			continue
		}
		members = append(members, lockshape.SetMember{Member: m[:min(len(m), maxLen)], Score: score})
	}
	return members, false, true
}

// serverNow is the master's clock now, as far as the reading's TIME tells; our clock when it did not.
func (r *Reading) serverNow() time.Time {
	if r.ServerTime.IsZero() {
		return time.Now()
	}
	return r.ServerTime.Add(time.Since(r.Received))
}

// note notes that the master's ACL refused cmd inside a read script, where the refusal names no command.
func (r *refusals) note(cmd string) {
	if !slices.Contains(r.commands, cmd) {
		r.commands = append(r.commands, cmd)
	}
}
