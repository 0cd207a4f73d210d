package lockshape

// MatchesPattern reports whether key matches the glob pattern as Redis matches SCAN MATCH and KEYS patterns
// (stringmatchlen in its util.c): * any bytes, ? one byte, [abc] [^abc] [a-z] a class, \ escapes the next
// byte; case matters. Keys named by keyspace notifications are matched here, since no SCAN passed them through
// MATCH; Go's path.Match differs (its * stops at "/"), so a port of Redis's rules it must be.
func MatchesPattern(pattern, key string) bool {
	skipLonger := false
	return stringMatch(pattern, key, &skipLonger, 0)
}

// stringMatch is stringmatchlen: the match of pattern against s, nesting deep in stars. skipLonger is set when
// the rest of a pattern after a star matched nowhere in s, so earlier stars need not try longer matches.
func stringMatch(pattern, s string, skipLonger *bool, nesting int) bool {
	if nesting > 1000 { // as Redis: protection against abusive patterns
		return false
	}
	p := 0
	for p < len(pattern) && len(s) > 0 {
		switch pattern[p] {
		case '*':
			for p+1 < len(pattern) && pattern[p+1] == '*' {
				p++
			}
			if p+1 == len(pattern) {
				return true
			}
			for ; len(s) > 0; s = s[1:] {
				if stringMatch(pattern[p+1:], s, skipLonger, nesting+1) {
					return true
				}
				if *skipLonger {
					return false
				}
			}
			*skipLonger = true
			return false
		case '?':
			s = s[1:]
		case '[':
			var ok bool
			if p, ok = matchClass(pattern, p+1, s[0]); !ok {
				return false
			}
			s = s[1:]
		default:
			if pattern[p] == '\\' && p+1 < len(pattern) {
				p++
			}
			if pattern[p] != s[0] {
				return false
			}
			s = s[1:]
		}
		p++
		if len(s) == 0 {
			for p < len(pattern) && pattern[p] == '*' {
				p++
			}
			break
		}
	}
	return p == len(pattern) && len(s) == 0
}

// matchClass matches c against the class that starts at pattern[p] (just after its "["). It returns the index
// of the class's closing "]" (or of its last byte, when unclosed) and whether c is in the class.
func matchClass(pattern string, p int, c byte) (int, bool) {
	not := p < len(pattern) && pattern[p] == '^'
	if not {
		p++
	}
	match := false
	for ; ; p++ {
		switch {
		case p >= len(pattern):
			return p - 1, match != not
		case pattern[p] == '\\' && len(pattern)-p >= 2:
			p++
			match = match || pattern[p] == c
		case pattern[p] == ']':
			return p, match != not
		case len(pattern)-p >= 3 && pattern[p+1] == '-':
			lo, hi := pattern[p], pattern[p+2]
			if lo > hi {
				lo, hi = hi, lo
			}
			match = match || lo <= c && c <= hi
			p += 2
		default:
			match = match || pattern[p] == c
		}
	}
}
