package e2e

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// TestThePaletteSuitsTheBackgroundUnderTmux: under tmux with TERM=tmux-256color, which termenv does not ask
// for its background, the dashboard asks tmux itself; on a white pane every letter and figure is drawn in a
// colour that stands out from white (the dark palette's figures were colour 195, #d7ffff, on white), and on a
// black pane from black. --background light|dark chooses without asking.
func TestThePaletteSuitsTheBackgroundUnderTmux(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	for _, tc := range []struct {
		name, bg, flag string
		bgRGB          [3]float64
	}{
		{"light pane, asked", "#ffffff", "", [3]float64{255, 255, 255}},
		{"dark pane, asked", "#000000", "", [3]float64{0, 0, 0}},
		{"light chosen by the flag on a pane that says dark", "#000000", "--background light", [3]float64{255, 255, 255}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := startTmux(t)
			s.tmux("set-option", "-g", "window-style", "bg="+tc.bg)
			s.typeText(fmt.Sprintf("TERM=tmux-256color %s --demo-clients 2 %s; echo \"exit=$?\"", bin, tc.flag))
			s.keys("Enter")
			s.waitFor("the demo's masters up", func(screen string) bool { return strings.Contains(screen, "5/5 up") })
			screen := s.tmux("capture-pane", "-e", "-p", "-t", pane)
			cells, worst := 0, math.Inf(1)
			var worstAt string
			for _, c := range drawnCells(screen) {
				if !unicode.IsLetter(c.r) && !unicode.IsDigit(c.r) {
					continue // borders, glyphs, bars and bullets are not figures: letters and digits are
				}
				fg, bg := c.fg, c.bg
				if fg == nil {
					fg = &[3]float64{255 - tc.bgRGB[0], 255 - tc.bgRGB[1], 255 - tc.bgRGB[2]}
				}
				if bg == nil {
					bg = &tc.bgRGB
				}
				if c.reverse {
					fg, bg = bg, fg
				}
				cells++
				if r := contrast(*fg, *bg); r < worst {
					worst, worstAt = r, fmt.Sprintf("%q in %v on %v, in %q", c.r, *fg, *bg, c.word)
				}
			}
			if cells < 200 {
				t.Fatalf("only %d drawn cells read from the screen:\n%s", cells, screen)
			}
			if worst < 3 {
				t.Errorf("a figure drawn at a contrast of %.2f:1 (want at least 3:1): %s", worst, worstAt)
			}
			t.Logf("%d cells, least contrast %.2f:1 (%s)", cells, worst, worstAt)
			s.keys("q")
			waitForExit(s)
		})
	}
}

// cell is one character on the screen with the colours it was drawn in (nil: the terminal's default).
type cell struct {
	r       rune
	word    string // the run of characters drawn alike around it, to say where it is
	fg, bg  *[3]float64
	reverse bool
}

// sgr is a Select Graphic Rendition sequence.
var sgr = regexp.MustCompile(`^\x1b\[([0-9;]*)m`)

// drawnCells reads capture-pane -e output: each printed character with its SGR colours.
func drawnCells(screen string) []cell {
	var out []cell
	var fg, bg *[3]float64
	reverse := false
	for i := 0; i < len(screen); {
		if m := sgr.FindStringSubmatch(screen[i:]); m != nil {
			i += len(m[0])
			ps := strings.Split(m[1], ";")
			for j := 0; j < len(ps); j++ {
				n, _ := strconv.Atoi(ps[j])
				switch {
				case n == 0:
					fg, bg, reverse = nil, nil, false
				case n == 7:
					reverse = true
				case n == 27:
					reverse = false
				case n == 39:
					fg = nil
				case n == 49:
					bg = nil
				case (n == 38 || n == 48) && j+2 < len(ps) && ps[j+1] == "5":
					k, _ := strconv.Atoi(ps[j+2])
					c := xterm256(k)
					if n == 38 {
						fg = &c
					} else {
						bg = &c
					}
					j += 2
				case (n == 38 || n == 48) && j+4 < len(ps) && ps[j+1] == "2":
					var c [3]float64
					for k := range 3 {
						v, _ := strconv.Atoi(ps[j+2+k])
						c[k] = float64(v)
					}
					if n == 38 {
						fg = &c
					} else {
						bg = &c
					}
					j += 4
				case n >= 30 && n <= 37, n >= 90 && n <= 97:
					c := xterm256(n - 30 - 52*boolInt(n >= 90))
					fg = &c
				}
			}
			continue
		}
		r, size := []rune(screen[i:])[0], len(string([]rune(screen[i:])[0]))
		i += size
		if r == '\n' || r == '\x1b' {
			continue
		}
		out = append(out, cell{r: r, fg: fg, bg: bg, reverse: reverse})
	}
	for i := range out { // each cell's word: the cells around it drawn in the same colours
		lo, hi := i, i
		for lo > 0 && out[lo-1].fg == out[i].fg && out[lo-1].bg == out[i].bg {
			lo--
		}
		for hi < len(out)-1 && out[hi+1].fg == out[i].fg && out[hi+1].bg == out[i].bg {
			hi++
		}
		var b strings.Builder
		for _, c := range out[lo : hi+1] {
			b.WriteRune(c.r)
		}
		out[i].word = b.String()
	}
	return out
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// xterm256 is colour k of the xterm 256-colour palette.
func xterm256(k int) [3]float64 {
	base := [16][3]float64{{0, 0, 0}, {205, 0, 0}, {0, 205, 0}, {205, 205, 0}, {0, 0, 238}, {205, 0, 205}, {0, 205, 205},
		{229, 229, 229}, {127, 127, 127}, {255, 0, 0}, {0, 255, 0}, {255, 255, 0}, {92, 92, 255}, {255, 0, 255},
		{0, 255, 255}, {255, 255, 255}}
	switch {
	case k < 16:
		return base[k]
	case k < 232:
		k -= 16
		level := func(v int) float64 {
			if v == 0 {
				return 0
			}
			return float64(55 + 40*v)
		}
		return [3]float64{level(k / 36), level(k / 6 % 6), level(k % 6)}
	default:
		g := float64(8 + 10*(k-232))
		return [3]float64{g, g, g}
	}
}

// contrast is the WCAG contrast ratio of two sRGB colours, from 1 (none) to 21.
func contrast(a, b [3]float64) float64 {
	lum := func(c [3]float64) float64 {
		var l [3]float64
		for i, v := range c {
			v /= 255
			if v <= 0.03928 {
				l[i] = v / 12.92
			} else {
				l[i] = math.Pow((v+0.055)/1.055, 2.4)
			}
		}
		return 0.2126*l[0] + 0.7152*l[1] + 0.0722*l[2]
	}
	la, lb := lum(a), lum(b)
	return (math.Max(la, lb) + 0.05) / (math.Min(la, lb) + 0.05)
}
