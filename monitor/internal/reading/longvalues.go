package reading

import (
	"context"
	"crypto/sha1"
	"encoding/binary"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/redis/go-redis/v9"

	"github.com/redlock-tui/redlock-tui/monitor/lockshape"
)

// Values longer than Config.MaxValueLen. A token is cut to its first MaxValueLen bytes on the server, so that a
// large value costs no transfer and no memory; but two tokens that differ only after those bytes are two
// holders, and a lock with one on each master is split, not held. So a read script returns, for a value longer
// than that, its first MaxValueLen bytes followed by the first 16 hex digits of the SHA-1 of the whole value
// (redis.sha1hex) and its length, and the cell's token is the shown prefix marked with both (markedToken):
// tokens are equal only when the whole values are. It costs nothing for a value within MaxValueLen, and 30-odd
// bytes per distinct long token.
//
// A value longer than maxDigested is not digested (hashing it would hold the server up): it is compared on its
// first MaxValueLen bytes and its length. Discovery digests a long value only where it may be a lock (under a
// pattern of the user's, or with a lock-shaped prefix, such as bsm/redislock's token followed by metadata): the
// keys of a cache are not hashed as the scan passes them. Plain commands (a master without scripts) read a byte
// more than MaxValueLen; a value that has it is read again whole (readWhole), where it may be a lock, and
// digested here; until then, or if that read fails, it is unknown, never taken for another token.

// maxDigested is the longest value the read scripts digest.
const maxDigested = 1 << 20

// digestLen is how many hex digits of a long value's SHA-1 the scripts return: 64 bits.
const digestLen = 16

// undigested is what discovery returns in place of the digest of a long value it did not digest, since it
// cannot be a lock there (not lock-shaped: see lockshape).
const undigested = "-"

// cutState is what is known of a value longer than Config.MaxValueLen, beyond its first bytes.
type cutState uint8

const (
	cutKnown   cutState = iota // nothing missing: the value is whole (Len 0), or its Len and Digest are known
	cutTooLong                 // its Len is known; longer than maxDigested, it is not digested
	cutSkipped                 // discovery did not digest it: it cannot be a lock
	cutUnread                  // its Len and Digest were not read (plain commands, until readWhole): unknown
)

// longValueLua is a Lua function shared by the read scripts: marked(prefix, len, whole) returns a value of len
// bytes longer than the n bytes of prefix as the scripts return it: prefix, then the first 16 hex digits of the
// SHA-1 of whole (none when whole is nil or longer than maxDigested; "-" when whole is false), ':' and len.
// mayBeLock(prefix, n, anyNoTTL) reports whether discovery takes a long value with that prefix of n bytes as a
// possible lock: any under a pattern of the user's; else one whose prefix may be lock-shaped (lockshape.LockShapedValue):
// at most 64 token characters, or bsm/redislock's token followed by metadata that is not base64.
var longValueLua = `local maxDigested = ` + strconv.Itoa(maxDigested) + `
local function marked(prefix, len, whole)
  local d = ''
  if whole == false then
    d = '` + undigested + `'
  elseif whole and len <= maxDigested then
    d = string.sub(redis.sha1hex(whole), 1, ` + strconv.Itoa(digestLen) + `)
  end
  return prefix .. d .. ':' .. len
end
local bsmToken = '^' .. string.rep('[%w_%-]', 21) .. '[AQgw]'
local function mayBeLock(prefix, n, anyNoTTL)
  return anyNoTTL or (n <= ` + strconv.Itoa(lockshape.MaxTokenLen) + ` and string.find(prefix, '[^%w%+/=_%-%.:]') == nil) or
    (string.find(prefix, bsmToken) ~= nil and string.find(prefix, '[^%w%+/=_%-]') ~= nil)
end
`

// parseLongValue splits a string value as a read script returns it, cut to maxLen bytes: the value itself when
// it is no longer, else its first maxLen bytes, the digest of the whole value and its whole length, with what
// the mark says of them; a mark that cannot be read (plain commands read a byte more) is cutUnread.
func parseLongValue(v string, maxLen int) (value string, digest uint64, length int32, cut cutState) {
	if len(v) <= maxLen {
		return v, 0, 0, cutKnown
	}
	value, mark := v[:maxLen], v[maxLen:]
	i := strings.LastIndexByte(mark, ':')
	if i < 0 {
		return value, 0, 0, cutUnread
	}
	n, err := strconv.ParseInt(mark[i+1:], 10, 32)
	if err != nil || n <= int64(maxLen) {
		return value, 0, 0, cutUnread
	}
	switch d := mark[:i]; d {
	case "":
		return value, 0, int32(n), cutTooLong
	case undigested:
		return value, 0, int32(n), cutSkipped
	default:
		digest, err := strconv.ParseUint(d, 16, 64)
		if err != nil || len(d) != digestLen {
			return value, 0, 0, cutUnread
		}
		return value, digest, int32(n), cutKnown
	}
}

// Token is the cell token of a read of a string: its value, or, for a value longer than what was read of it,
// that prefix marked with the whole value's length and digest.
func (k *KeyReading) Token() string {
	if k.Len == 0 {
		return k.Value
	}
	return markedToken(k.Value, int(k.Len), k.Digest)
}

// LengthUnread reports whether k is a long value whose length and digest were not read (plain commands,
// until readWhole): its cell is unknown.
func (k *KeyReading) LengthUnread() bool { return k.cut == cutUnread }

// markedToken is a long value's token: its first bytes (prefix), then "…[<length> bytes, sha1 <digest>]" with
// the digest in 16 hex digits, or "…[<length> bytes]" for a value not digested (digest 0).
func markedToken(prefix string, length int, digest uint64) string {
	var b strings.Builder
	b.Grow(len(prefix) + 40)
	b.WriteString(prefix)
	b.WriteString("…[")
	b.WriteString(strconv.Itoa(length))
	b.WriteString(" bytes")
	if digest != 0 {
		b.WriteString(", sha1 ")
		b.WriteString(fmt.Sprintf("%016x", digest))
	}
	b.WriteByte(']')
	return b.String()
}

// mayBeLongLock reports whether discovery takes a long value that plain commands read (its first
// Config.MaxValueLen bytes in k) as a possible lock, worth reading whole: any under a pattern of the user's,
// else one whose prefix is lock-shaped (the Lua scripts' mayBeLock is a wider test of the same).
func mayBeLongLock(k *KeyReading, cfg Config) bool {
	return cfg.Pattern != DefaultPattern || lockshape.LockShapedValue(k.Key, k.Value)
}

// readWhole reads, in one round trip, the whole length and the digest of the values longer than what plain
// commands read of them (cutUnread) in r.Keys[from:], where worth says (nil: all): STRLEN, and the value up to
// maxDigested bytes, digested here as the scripts digest it. A value it could not read, or that changed in
// between, is dropped from r.Keys: not read, unknown.
func (p *poller) readWhole(ctx context.Context, r *Reading, from int, worth func(*KeyReading) bool) {
	var long []int
	for i := from; i < len(r.Keys); i++ {
		if r.Keys[i].cut == cutUnread && (worth == nil || worth(&r.Keys[i])) {
			long = append(long, i)
		}
	}
	if len(long) > 0 {
		pipe := p.keyReader().Pipeline()
		lengths := make([]*redis.IntCmd, len(long))
		values := make([]*redis.StringCmd, len(long))
		for n, i := range long {
			lengths[n] = pipe.StrLen(ctx, r.Keys[i].Key)
			values[n] = pipe.GetRange(ctx, r.Keys[i].Key, 0, maxDigested-1)
		}
		_, _ = pipe.Exec(ctx)
		for n, i := range long {
			k := &r.Keys[i]
			length, err := lengths[n].Result()
			whole, err2 := values[n].Result()
			if err != nil || err2 != nil || length <= int64(len(k.Value)) || !strings.HasPrefix(whole, k.Value) {
				continue
			}
			switch {
			case length > maxDigested:
				k.Len, k.cut = int32(length), cutTooLong
			case int64(len(whole)) == length:
				k.Len, k.Digest, k.cut = int32(length), digestOf(whole), cutKnown
			} // else it changed in between: unread
		}
	}
	kept := slices.DeleteFunc(r.Keys[from:], func(k KeyReading) bool { return k.cut == cutUnread })
	r.Keys = r.Keys[:from+len(kept)]
}

// digestOf is the digest of a long value, as the read scripts return it in 16 hex digits: the first 64 bits of
// its SHA-1.
func digestOf(v string) uint64 {
	sum := sha1.Sum([]byte(v))
	return binary.BigEndian.Uint64(sum[:8])
}
