package draw

import (
	"image"
	"image/color"
	"strconv"
	"strings"

	"github.com/clawdhq/clawd/internal/icons"
)

// The panels the contact sheet puts the icons on: a light and a dark tray.
var (
	LightPanel = rgb(0xf0f0f0)
	DarkPanel  = rgb(0x2b2b2b)
)

// Sheet lays every icon in names out on a light and on a dark panel, one row
// per icon and one column per size, each pixel blown up to zoom×zoom so the
// anti-aliasing is visible, followed by the same sizes at their real size;
// then the macOS templates the same way, black on the light panel and
// white on the dark one, as the menu bar tints them. Rows and columns are
// labelled.
func Sheet(names []icons.Name, sizes []int, zoom int) *image.NRGBA {
	const (
		pad   = 8
		fontK = 2 // font pixel size
		lineH = (glyphH + 2) * fontK
	)
	big := 0
	for _, s := range sizes {
		big = max(big, s)
	}
	labelW := 0
	for _, n := range names {
		labelW = max(labelW, textWidth(strings.ToUpper(string(n)), fontK))
	}
	cellW := big*zoom + pad
	actualW := pad
	for _, s := range sizes {
		actualW += s + pad
	}
	blockW := len(sizes)*cellW + actualW + pad
	rowH := big*zoom + pad
	w := pad + labelW + pad + 4*blockW
	h := pad + 2*lineH + len(names)*rowH + pad

	// Each icon appears four times per size: render it once.
	type key struct {
		n    icons.Name
		size int
	}
	cache := make(map[key]*image.NRGBA)
	colour := func(n icons.Name, size int) *image.NRGBA {
		k := key{n, size}
		if cache[k] == nil {
			cache[k] = Image(n, size)
		}
		return cache[k]
	}
	tinted := func(c color.NRGBA) func(icons.Name, int) *image.NRGBA {
		return func(n icons.Name, size int) *image.NRGBA { return tint(Template(n, size), c) }
	}

	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	fill(img, img.Bounds(), rgb(0xffffff))
	ink := rgb(0x202020)
	for b, panel := range []struct {
		name string
		bg   color.NRGBA
		icon func(icons.Name, int) *image.NRGBA
	}{
		{"LIGHT PANEL", LightPanel, colour}, {"DARK PANEL", DarkPanel, colour},
		{"MACOS LIGHT", LightPanel, tinted(rgb(0x000000))}, {"MACOS DARK", DarkPanel, tinted(rgb(0xffffff))},
	} {
		icon := panel.icon
		x0 := pad + labelW + pad + b*blockW
		fill(img, image.Rect(x0, pad+2*lineH-pad/2, x0+blockW, h-pad/2), panel.bg)
		drawText(img, x0+pad, pad, panel.name+", ZOOM "+strconv.Itoa(zoom)+"X", fontK, ink)
		x := x0 + pad
		for _, s := range sizes {
			drawText(img, x, pad+lineH, strconv.Itoa(s)+" PX", fontK, ink)
			x += cellW
		}
		drawText(img, x, pad+lineH, "1:1", fontK, ink)
		for r, n := range names {
			y := pad + 2*lineH + r*rowH
			if b == 0 {
				drawText(img, pad, y+(big*zoom-glyphH*fontK)/2, strings.ToUpper(string(n)), fontK, ink)
			}
			x := x0 + pad
			for _, s := range sizes {
				over(img, icon(n, s), x, y+(big-s)*zoom/2, zoom)
				x += cellW
			}
			for _, s := range sizes {
				over(img, icon(n, s), x, y+(big*zoom-s)/2, 1)
				x += s + pad
			}
		}
	}
	return img
}

// tint is a template in colour c: its alpha, c's colour.
func tint(t *image.NRGBA, c color.NRGBA) *image.NRGBA {
	out := image.NewNRGBA(t.Bounds())
	for i := 0; i < len(t.Pix); i += 4 {
		copy(out.Pix[i:], []uint8{c.R, c.G, c.B, t.Pix[i+3]})
	}
	return out
}

func fill(img *image.NRGBA, r image.Rectangle, c color.NRGBA) {
	r = r.Intersect(img.Bounds())
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			img.SetNRGBA(x, y, c)
		}
	}
}

// over composites src onto the opaque dst at (x, y), each source pixel
// becoming a zoom×zoom square (nearest neighbour: no smoothing added).
func over(dst, src *image.NRGBA, x, y, zoom int) {
	b := src.Bounds()
	for sy := b.Min.Y; sy < b.Max.Y; sy++ {
		for sx := b.Min.X; sx < b.Max.X; sx++ {
			s := src.NRGBAAt(sx, sy)
			for dy := 0; dy < zoom; dy++ {
				for dx := 0; dx < zoom; dx++ {
					px, py := x+(sx-b.Min.X)*zoom+dx, y+(sy-b.Min.Y)*zoom+dy
					dst.SetNRGBA(px, py, Over(s, dst.NRGBAAt(px, py)))
				}
			}
		}
	}
}

// Over composites the colour fg onto the opaque colour bg.
func Over(fg, bg color.NRGBA) color.NRGBA {
	a := float64(fg.A) / 255
	mix := func(f, b uint8) uint8 { return byte8((float64(f)*a + float64(b)*(1-a)) / 255) }
	return color.NRGBA{mix(fg.R, bg.R), mix(fg.G, bg.G), mix(fg.B, bg.B), 0xff}
}

// A 5×7 bitmap font, capitals, digits and a little punctuation: enough to
// label the sheet without a font package.
const glyphW, glyphH = 5, 7

var font = map[rune][glyphH]string{
	'A': {".###.", "#...#", "#...#", "#####", "#...#", "#...#", "#...#"},
	'B': {"####.", "#...#", "#...#", "####.", "#...#", "#...#", "####."},
	'C': {".###.", "#...#", "#....", "#....", "#....", "#...#", ".###."},
	'D': {"####.", "#...#", "#...#", "#...#", "#...#", "#...#", "####."},
	'E': {"#####", "#....", "#....", "####.", "#....", "#....", "#####"},
	'F': {"#####", "#....", "#....", "####.", "#....", "#....", "#...."},
	'G': {".###.", "#...#", "#....", "#.###", "#...#", "#...#", ".####"},
	'H': {"#...#", "#...#", "#...#", "#####", "#...#", "#...#", "#...#"},
	'I': {".###.", "..#..", "..#..", "..#..", "..#..", "..#..", ".###."},
	'J': {"..###", "...#.", "...#.", "...#.", "...#.", "#..#.", ".##.."},
	'K': {"#...#", "#..#.", "#.#..", "##...", "#.#..", "#..#.", "#...#"},
	'L': {"#....", "#....", "#....", "#....", "#....", "#....", "#####"},
	'M': {"#...#", "##.##", "#.#.#", "#.#.#", "#...#", "#...#", "#...#"},
	'N': {"#...#", "#...#", "##..#", "#.#.#", "#..##", "#...#", "#...#"},
	'O': {".###.", "#...#", "#...#", "#...#", "#...#", "#...#", ".###."},
	'P': {"####.", "#...#", "#...#", "####.", "#....", "#....", "#...."},
	'Q': {".###.", "#...#", "#...#", "#...#", "#.#.#", "#..#.", ".##.#"},
	'R': {"####.", "#...#", "#...#", "####.", "#.#..", "#..#.", "#...#"},
	'S': {".####", "#....", "#....", ".###.", "....#", "....#", "####."},
	'T': {"#####", "..#..", "..#..", "..#..", "..#..", "..#..", "..#.."},
	'U': {"#...#", "#...#", "#...#", "#...#", "#...#", "#...#", ".###."},
	'V': {"#...#", "#...#", "#...#", "#...#", "#...#", ".#.#.", "..#.."},
	'W': {"#...#", "#...#", "#...#", "#.#.#", "#.#.#", "#.#.#", ".#.#."},
	'X': {"#...#", "#...#", ".#.#.", "..#..", ".#.#.", "#...#", "#...#"},
	'Y': {"#...#", "#...#", ".#.#.", "..#..", "..#..", "..#..", "..#.."},
	'Z': {"#####", "....#", "...#.", "..#..", ".#...", "#....", "#####"},
	'0': {".###.", "#...#", "#..##", "#.#.#", "##..#", "#...#", ".###."},
	'1': {"..#..", ".##..", "..#..", "..#..", "..#..", "..#..", ".###."},
	'2': {".###.", "#...#", "....#", "...#.", "..#..", ".#...", "#####"},
	'3': {"####.", "....#", "....#", ".###.", "....#", "....#", "####."},
	'4': {"...#.", "..##.", ".#.#.", "#..#.", "#####", "...#.", "...#."},
	'5': {"#####", "#....", "####.", "....#", "....#", "#...#", ".###."},
	'6': {"..##.", ".#...", "#....", "####.", "#...#", "#...#", ".###."},
	'7': {"#####", "....#", "...#.", "..#..", ".#...", ".#...", ".#..."},
	'8': {".###.", "#...#", "#...#", ".###.", "#...#", "#...#", ".###."},
	'9': {".###.", "#...#", "#...#", ".####", "....#", "...#.", ".##.."},
	'-': {".....", ".....", ".....", "#####", ".....", ".....", "....."},
	',': {".....", ".....", ".....", ".....", ".##..", "..#..", ".#..."},
	':': {".....", "..#..", "..#..", ".....", "..#..", "..#..", "....."},
	' ': {".....", ".....", ".....", ".....", ".....", ".....", "....."},
}

func textWidth(s string, k int) int { return len([]rune(s)) * (glyphW + 1) * k }

// drawText writes s with its top-left corner at (x, y), each font pixel a
// k×k square; runes the font lacks are left blank.
func drawText(img *image.NRGBA, x, y int, s string, k int, c color.NRGBA) {
	for _, r := range s {
		for row, line := range font[r] {
			for col, bit := range line {
				if bit == '#' {
					fill(img, image.Rect(x+col*k, y+row*k, x+(col+1)*k, y+(row+1)*k), c)
				}
			}
		}
		x += (glyphW + 1) * k
	}
}
