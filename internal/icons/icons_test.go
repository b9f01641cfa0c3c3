package icons_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/clawdhq/clawd/internal/icons"
	"github.com/clawdhq/clawd/internal/icons/internal/draw"
)

func TestAll(t *testing.T) {
	want := []icons.Name{"sleeping", "idle", "thinking", "working", "juggling", "done", "needs-you", "question", "error", "dnd"}
	if got := icons.All(); !slices.Equal(got, want) {
		t.Errorf("All() = %v, want %v", got, want)
	}
	for _, n := range icons.All() {
		if _, ok := draw.For(n, 16); !ok {
			t.Errorf("draw.For(%q, 16) found no drawing", n)
		}
	}
}

// TestAssetsUpToDate keeps the embedded files and the drawings in step: a
// drawing changed without regenerating, or an asset edited by hand, fails.
func TestAssetsUpToDate(t *testing.T) {
	want, err := draw.Assets()
	if err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir("assets")
	if err != nil {
		t.Fatal(err)
	}
	var onDisk []string
	for _, e := range entries {
		onDisk = append(onDisk, e.Name())
	}
	var wantNames []string
	for name := range want {
		wantNames = append(wantNames, name)
	}
	slices.Sort(wantNames)
	if !slices.Equal(onDisk, wantNames) {
		t.Errorf("assets/ holds %v, the generator makes %v: run go generate ./internal/icons", onDisk, wantNames)
	}

	for _, n := range slices.Concat(icons.All(), icons.Counts()) {
		files := []struct {
			file string
			got  []byte
		}{
			{string(n) + "-32.png", icons.PNG(n)},
			{string(n) + "-template.png", icons.Template(n)},
			{string(n) + ".ico", icons.ICO(n)},
		}
		if slices.Contains(icons.All(), n) {
			files = append(files, struct {
				file string
				got  []byte
			}{string(n) + "-64.png", icons.Large(n)})
		}
		for _, a := range files {
			if err := sameImages(a.got, want[a.file]); err != nil {
				t.Errorf("embedded %s differs from what the drawings make (%v): run go generate ./internal/icons", a.file, err)
			}
		}
	}
}

// sameImages reports whether two PNG or ICO files hold the same pictures.
// Equal bytes are the usual case; otherwise the pixels may differ by a
// rounding step, because a newer Go may compress differently and other
// architectures fuse multiply-adds in the distance functions.
func sameImages(got, want []byte) error {
	if bytes.Equal(got, want) {
		return nil
	}
	gotImgs, err := decodeAll(got)
	if err != nil {
		return fmt.Errorf("embedded: %w", err)
	}
	wantImgs, err := decodeAll(want)
	if err != nil {
		return fmt.Errorf("generated: %w", err)
	}
	if len(gotImgs) != len(wantImgs) {
		return fmt.Errorf("%d images, want %d", len(gotImgs), len(wantImgs))
	}
	for i := range gotImgs {
		g, w := gotImgs[i], wantImgs[i]
		if g.Bounds() != w.Bounds() {
			return fmt.Errorf("image %d is %v, want %v", i, g.Bounds(), w.Bounds())
		}
		b := g.Bounds()
		for y := b.Min.Y; y < b.Max.Y; y++ {
			for x := b.Min.X; x < b.Max.X; x++ {
				gc, wc := nrgba(g.At(x, y)), nrgba(w.At(x, y))
				if chanDiff(gc, wc) > 2 {
					return fmt.Errorf("image %d pixel (%d,%d) = %v, want %v", i, x, y, gc, wc)
				}
			}
		}
	}
	return nil
}

func decodeAll(b []byte) ([]image.Image, error) {
	if bytes.HasPrefix(b, []byte("\x89PNG")) {
		img, err := png.Decode(bytes.NewReader(b))
		return []image.Image{img}, err
	}
	entries, err := readICO(b)
	if err != nil {
		return nil, err
	}
	var imgs []image.Image
	for _, e := range entries {
		imgs = append(imgs, e.img)
	}
	return imgs, nil
}

func nrgba(c color.Color) color.NRGBA { return color.NRGBAModel.Convert(c).(color.NRGBA) }

func chanDiff(a, b color.NRGBA) int {
	d := 0
	for _, p := range [][2]uint8{{a.R, b.R}, {a.G, b.G}, {a.B, b.B}, {a.A, b.A}} {
		d = max(d, abs(int(p[0])-int(p[1])))
	}
	return d
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

func TestPNGSizes(t *testing.T) {
	for _, n := range slices.Concat(icons.All(), icons.Counts()) {
		for _, tc := range []struct {
			fn   string
			b    []byte
			size int
		}{{"PNG", icons.PNG(n), 32}, {"Large", icons.Large(n), 64}, {"Template", icons.Template(n), 32}} {
			img, err := png.Decode(bytes.NewReader(tc.b))
			if err != nil {
				t.Errorf("%s(%q) does not decode: %v", tc.fn, n, err)
				continue
			}
			if got, want := img.Bounds(), image.Rect(0, 0, tc.size, tc.size); got != want {
				t.Errorf("%s(%q) is %v, want %v", tc.fn, n, got, want)
			}
		}
	}
}

func TestICO(t *testing.T) {
	for _, n := range slices.Concat(icons.All(), icons.Counts()) {
		entries, err := readICO(icons.ICO(n))
		if err != nil {
			t.Errorf("ICO(%q): %v", n, err)
			continue
		}
		var sizes []int
		for _, e := range entries {
			sizes = append(sizes, e.size)
			if got, want := e.img.Bounds(), image.Rect(0, 0, e.size, e.size); got != want {
				t.Errorf("ICO(%q) entry of %d px decodes to %v, want %v", n, e.size, got, want)
			}
		}
		if want := []int{16, 20, 24, 32, 48}; !slices.Equal(sizes, want) {
			t.Errorf("ICO(%q) sizes = %v, want %v", n, sizes, want)
		}
	}
}

type icoEntry struct {
	size int
	img  image.Image
}

// readICO parses a Windows .ico file: a 6-byte header, 16-byte directory
// entries, and images that are PNG files or headerless BMPs. Only PNG
// entries are decoded: it is what the generator writes.
func readICO(b []byte) ([]icoEntry, error) {
	le := binary.LittleEndian
	if len(b) < 6 || le.Uint16(b[0:]) != 0 || le.Uint16(b[2:]) != 1 {
		return nil, fmt.Errorf("not an icon file")
	}
	count := int(le.Uint16(b[4:]))
	if len(b) < 6+16*count {
		return nil, fmt.Errorf("directory of %d entries truncated", count)
	}
	var out []icoEntry
	for i := range count {
		e := b[6+16*i:]
		w, h := int(e[0]), int(e[1])
		if w == 0 {
			w = 256
		}
		if h == 0 {
			h = 256
		}
		if w != h {
			return nil, fmt.Errorf("entry %d is %dx%d, want square", i, w, h)
		}
		if planes, bpp := le.Uint16(e[4:]), le.Uint16(e[6:]); planes != 1 || bpp != 32 {
			return nil, fmt.Errorf("entry %d: %d planes, %d bits, want 1 and 32", i, planes, bpp)
		}
		size, off := int(le.Uint32(e[8:])), int(le.Uint32(e[12:]))
		if off < 6+16*count || off+size > len(b) {
			return nil, fmt.Errorf("entry %d: data at %d+%d outside the %d-byte file", i, off, size, len(b))
		}
		data := b[off : off+size]
		if !bytes.HasPrefix(data, []byte("\x89PNG\r\n\x1a\n")) {
			return nil, fmt.Errorf("entry %d is not a PNG", i)
		}
		img, err := png.Decode(bytes.NewReader(data))
		if err != nil {
			return nil, fmt.Errorf("entry %d: %w", i, err)
		}
		out = append(out, icoEntry{w, img})
	}
	return out, nil
}

func TestUnknownNameIsIdle(t *testing.T) {
	for _, n := range []icons.Name{"", "nope", "../idle", "idle-32.png", "Idle"} {
		if !bytes.Equal(icons.PNG(n), icons.PNG(icons.Idle)) {
			t.Errorf("PNG(%q) is not Idle's", n)
		}
		if !bytes.Equal(icons.Large(n), icons.Large(icons.Idle)) {
			t.Errorf("Large(%q) is not Idle's", n)
		}
		if !bytes.Equal(icons.ICO(n), icons.ICO(icons.Idle)) {
			t.Errorf("ICO(%q) is not Idle's", n)
		}
		if !bytes.Equal(icons.Template(n), icons.Template(icons.Idle)) {
			t.Errorf("Template(%q) is not Idle's", n)
		}
	}
	// A guard that always answered Idle's would pass the loop above.
	if bytes.Equal(icons.PNG(icons.Error), icons.PNG(icons.Idle)) {
		t.Errorf("PNG(%q) is Idle's", icons.Error)
	}
}

// onPanel composites img onto an opaque panel colour.
func onPanel(img *image.NRGBA, panel color.NRGBA) *image.NRGBA {
	out := image.NewNRGBA(img.Bounds())
	for i := 0; i < len(img.Pix); i += 4 {
		c := draw.Over(color.NRGBA{img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3]}, panel)
		copy(out.Pix[i:], []uint8{c.R, c.G, c.B, c.A})
	}
	return out
}

// TestDistinct: at 16 px, on either panel, every two icons differ clearly
// in a good share of their pixels, so none can be taken for another.
func TestDistinct(t *testing.T) {
	const (
		size     = 16
		clearly  = 64   // a channel differs by a quarter of its range
		minShare = 0.10 // of the pixels
	)
	closest := struct {
		a, b  icons.Name
		share float64
	}{share: 1}
	for _, panel := range []color.NRGBA{draw.LightPanel, draw.DarkPanel} {
		imgs := make(map[icons.Name]*image.NRGBA)
		for _, n := range icons.All() {
			imgs[n] = onPanel(draw.Image(n, size), panel)
		}
		for i, a := range icons.All() {
			for _, b := range icons.All()[i+1:] {
				differ := 0
				for p := 0; p < len(imgs[a].Pix); p += 4 {
					ca := color.NRGBA{imgs[a].Pix[p], imgs[a].Pix[p+1], imgs[a].Pix[p+2], 255}
					cb := color.NRGBA{imgs[b].Pix[p], imgs[b].Pix[p+1], imgs[b].Pix[p+2], 255}
					if chanDiff(ca, cb) >= clearly {
						differ++
					}
				}
				share := float64(differ) / (size * size)
				if share < minShare {
					t.Errorf("on panel %v, %s and %s differ in %.0f%% of pixels, want >= %.0f%%", panel, a, b, share*100, minShare*100)
				}
				if share < closest.share {
					closest.a, closest.b, closest.share = a, b, share
				}
			}
		}
	}
	t.Logf("closest pair: %s and %s, %.0f%% of pixels differ", closest.a, closest.b, closest.share*100)
}

// TestAttentionHue: the states that want the person are told from the busy
// ones by colour alone, not only by glyph.
func TestAttentionHue(t *testing.T) {
	const minApart = 60.0 // degrees of hue
	busy := []icons.Name{icons.Thinking, icons.Working, icons.Juggling}
	attention := []icons.Name{icons.NeedsYou, icons.Question, icons.Error}
	for _, a := range attention {
		for _, b := range busy {
			ha, hb := meanHue(draw.Image(a, 16)), meanHue(draw.Image(b, 16))
			d := math.Abs(ha - hb)
			d = math.Min(d, 360-d)
			if d < minApart {
				t.Errorf("hue(%s) = %.0f°, hue(%s) = %.0f°: %.0f° apart, want >= %.0f°", a, ha, b, hb, d, minApart)
			}
			t.Logf("hue(%s) = %.0f°, hue(%s) = %.0f°", a, ha, b, hb)
		}
	}
}

// meanHue returns the circular mean of the pixels' hues in degrees, each
// weighted by its opacity and saturation so white and grey glyphs don't count.
func meanHue(img *image.NRGBA) float64 {
	var sx, sy float64
	for i := 0; i < len(img.Pix); i += 4 {
		h, s := hueSat(img.Pix[i], img.Pix[i+1], img.Pix[i+2])
		w := s * float64(img.Pix[i+3]) / 255
		sx += w * math.Cos(h*math.Pi/180)
		sy += w * math.Sin(h*math.Pi/180)
	}
	return math.Mod(math.Atan2(sy, sx)*180/math.Pi+360, 360)
}

// hueSat returns the HSV hue in degrees and saturation in [0, 1].
func hueSat(r8, g8, b8 uint8) (h, s float64) {
	r, g, b := float64(r8)/255, float64(g8)/255, float64(b8)/255
	hi, lo := math.Max(r, math.Max(g, b)), math.Min(r, math.Min(g, b))
	if hi == lo {
		return 0, 0
	}
	d := hi - lo
	switch hi {
	case r:
		h = math.Mod((g-b)/d+6, 6)
	case g:
		h = (b-r)/d + 2
	default:
		h = (r-g)/d + 4
	}
	return h * 60, d / hi
}

// TestLegible measures the 16 px renderings: the glyph survives with whole
// pixels and contrasts with the badge, and each badge stands out from both a
// light and a dark panel by its edge or by its fill. The bound is WCAG's 3:1
// for non-text graphics (SC 1.4.11).
func TestLegible(t *testing.T) {
	const (
		size      = 16
		minRatio  = 3.0
		minStroke = 1.5 // px
		minInked  = 6   // glyph pixels fully covered
	)
	for _, n := range slices.Concat(icons.All(), icons.Counts()) {
		ic, _ := draw.For(n, size)
		img := draw.Image(n, size)
		if ic.GlyphStroke < minStroke {
			t.Errorf("%s: glyph stroke %.2f px at %d px, want >= %.1f", n, ic.GlyphStroke, size, minStroke)
		}
		glyph := coverage(size, ic.Glyph)
		edge := coverage(size, draw.Minus{A: ic.Badge, B: draw.Grow{S: ic.Badge, D: -ic.EdgeW}})
		// Fill: inside the edge band and at least a pixel from the glyph.
		inner := coverage(size, draw.Minus{A: draw.Grow{S: ic.Badge, D: -ic.EdgeW}, B: draw.Grow{S: ic.Glyph, D: 1}})

		glyphPx := pixelsWhere(img, glyph, 1)
		fillPx := pixelsWhere(img, inner, 1)
		if len(glyphPx) < minInked {
			t.Errorf("%s: %d glyph pixels fully inked at %d px, want >= %d", n, len(glyphPx), size, minInked)
			continue
		}
		rg := contrast(mean(glyphPx), mean(fillPx))
		if rg < minRatio {
			t.Errorf("contrast(glyph, fill) of %s = %.2f, want >= %.1f", n, rg, minRatio)
		}
		line := fmt.Sprintf("%-9s %2d inked px, glyph/fill %.1f", n, len(glyphPx), rg)
		for _, panel := range []color.NRGBA{draw.LightPanel, draw.DarkPanel} {
			on := onPanel(img, panel)
			edgeC := mean(pixelsWhere(on, edge, 0.5))
			fillC := mean(pixelsWhere(on, inner, 1))
			re, rf := contrast(edgeC, panel), contrast(fillC, panel)
			if math.Max(re, rf) < minRatio {
				t.Errorf("on panel %v, %s: contrast(edge) = %.2f, contrast(fill) = %.2f, want one >= %.1f", panel, n, re, rf, minRatio)
			}
			line += fmt.Sprintf(", on %02x: edge %.1f fill %.1f", panel.R, re, rf)
		}
		t.Log(line)
	}
}

// coverage returns how much of each pixel s covers, in [0, 1].
func coverage(size int, s draw.Shape) []float64 {
	m := draw.Render(size, draw.Layer{Shape: s, Color: color.NRGBA{255, 255, 255, 255}})
	out := make([]float64, size*size)
	for i := range out {
		out[i] = float64(m.Pix[4*i+3]) / 255
	}
	return out
}

func pixelsWhere(img *image.NRGBA, cov []float64, atLeast float64) []color.NRGBA {
	var out []color.NRGBA
	for i, c := range cov {
		if c >= atLeast {
			p := img.Pix[4*i:]
			out = append(out, color.NRGBA{p[0], p[1], p[2], p[3]})
		}
	}
	return out
}

func mean(cs []color.NRGBA) color.NRGBA {
	if len(cs) == 0 {
		return color.NRGBA{}
	}
	var r, g, b, a int
	for _, c := range cs {
		r, g, b, a = r+int(c.R), g+int(c.G), b+int(c.B), a+int(c.A)
	}
	n := len(cs)
	return color.NRGBA{uint8(r / n), uint8(g / n), uint8(b / n), uint8(a / n)}
}

// contrast is the WCAG contrast ratio of two opaque colours, 1 to 21.
func contrast(a, b color.NRGBA) float64 {
	la, lb := luminance(a), luminance(b)
	return (math.Max(la, lb) + 0.05) / (math.Min(la, lb) + 0.05)
}

func luminance(c color.NRGBA) float64 {
	lin := func(v uint8) float64 {
		s := float64(v) / 255
		if s <= 0.04045 {
			return s / 12.92
		}
		return math.Pow((s+0.055)/1.055, 2.4)
	}
	return 0.2126*lin(c.R) + 0.7152*lin(c.G) + 0.0722*lin(c.B)
}

// TestContactSheet draws every icon at tray sizes on both panels. Set
// CLAWD_SCREENSHOT_DIR to keep the picture, e.g. CLAWD_SCREENSHOT_DIR=$PWD/docs
// from the repository root refreshes docs/tray-icons.png.
func TestContactSheet(t *testing.T) {
	dir := os.Getenv("CLAWD_SCREENSHOT_DIR")
	if dir == "" {
		dir = t.TempDir()
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "tray-icons.png")
	var buf bytes.Buffer
	err := png.Encode(&buf, draw.Sheet(slices.Concat(icons.All(), icons.Counts()), []int{16, 22, 24}, 4))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	back, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(back))
	if err != nil {
		t.Fatalf("decode %s: %v", path, err)
	}
	// Ten rows of 24 px icons blown up four times cannot fit in less.
	if b := img.Bounds(); b.Dx() < 2*3*24*4 || b.Dy() < len(icons.All())*24*4 {
		t.Errorf("contact sheet is %v, too small for %d icons", b, len(icons.All()))
	}
	t.Logf("contact sheet: %s", path)
}

func TestNeedsYouCount(t *testing.T) {
	for n, want := range map[int]icons.Name{-1: icons.NeedsYou, 0: icons.NeedsYou, 1: "needs-you-1", 9: "needs-you-9", 10: "needs-you-9plus", 250: "needs-you-9plus"} {
		if got := icons.NeedsYouCount(n); got != want {
			t.Errorf("NeedsYouCount(%d) = %q, want %q", n, got, want)
		}
	}
	if got := icons.Counts(); len(got) != icons.MaxCount+1 || got[0] != "needs-you-1" || got[icons.MaxCount] != "needs-you-9plus" {
		t.Errorf("Counts() = %v, want needs-you-1 … needs-you-9plus", got)
	}
	// A notification shows no count: its image is the plain one.
	if !bytes.Equal(icons.Large(icons.NeedsYouCount(3)), icons.Large(icons.NeedsYou)) {
		t.Error("Large(needs-you-3) is not the plain needs-you image")
	}
}

// TestCountsReadable: at 16 px each count's icon shows the digit of
// icons.Digits, an inked cell white and an empty one the badge's orange,
// and every two counts differ in whole pixels: the count can be read off
// the icon.
func TestCountsReadable(t *testing.T) {
	const size = 16
	white := func(c color.NRGBA) bool { return c.A == 255 && c.R > 240 && c.G > 240 && c.B > 240 }
	orange := func(c color.NRGBA) bool { return c.A == 255 && c.R > 200 && c.G < 130 && c.B < 60 }
	imgs := map[icons.Name]*image.NRGBA{}
	for d := 1; d <= icons.MaxCount; d++ {
		n := icons.NeedsYouCount(d)
		img := draw.Image(n, size)
		imgs[n] = img
		for r, line := range icons.Digits[d] {
			for c, b := range line {
				// The cell's pixels, all of them.
				for dy := range icons.CountCell {
					for dx := range icons.CountCell {
						x := icons.CountOriginX + c*icons.CountCell + dx
						y := icons.CountOriginY + r*icons.CountCell + dy
						px := img.NRGBAAt(x, y)
						if b == '#' && !white(px) || b == '.' && !orange(px) {
							t.Errorf("%s at %d px: pixel (%d,%d) of cell %c = %v, want %s", n, size, x, y, b, px,
								map[bool]string{true: "white ink", false: "the orange fill"}[b == '#'])
						}
					}
				}
			}
		}
	}
	imgs[icons.NeedsYouCount(10)] = draw.Image(icons.NeedsYouCount(10), size)
	imgs[icons.NeedsYou] = draw.Image(icons.NeedsYou, size)
	names := append(icons.Counts(), icons.NeedsYou)
	for i, a := range names {
		for _, b := range names[i+1:] {
			differ := 0
			for p := 0; p < len(imgs[a].Pix); p += 4 {
				if chanDiff(nrgbaAt(imgs[a], p), nrgbaAt(imgs[b], p)) >= 128 {
					differ++
				}
			}
			// One 2×2 cell is the least two digits differ by (8 and 9).
			if differ < icons.CountCell*icons.CountCell {
				t.Errorf("%s and %s differ in %d pixels at %d px, want >= %d", a, b, differ, size, icons.CountCell*icons.CountCell)
			}
		}
	}
}

func nrgbaAt(img *image.NRGBA, p int) color.NRGBA {
	return color.NRGBA{img.Pix[p], img.Pix[p+1], img.Pix[p+2], img.Pix[p+3]}
}

// TestTemplates: a macOS template is black, its alpha the badge with the
// glyph cut out, and at 16 px every two states' templates differ by shape
// in a good share of their pixels, colour being gone.
func TestTemplates(t *testing.T) {
	const size = 16
	alpha := map[icons.Name][]uint8{}
	for _, n := range slices.Concat(icons.All(), icons.Counts()) {
		img, err := png.Decode(bytes.NewReader(icons.Template(n)))
		if err != nil {
			t.Fatal(err)
		}
		n32 := nrgbaOf(img)
		opaque, clear := 0, 0
		for p := 0; p < len(n32.Pix); p += 4 {
			if n32.Pix[p+3] > 0 && (n32.Pix[p] != 0 || n32.Pix[p+1] != 0 || n32.Pix[p+2] != 0) {
				t.Fatalf("Template(%s) pixel %d = %v, want black", n, p/4, n32.Pix[p:p+4])
			}
			switch n32.Pix[p+3] {
			case 255:
				opaque++
			case 0:
				clear++
			}
		}
		if opaque < 200 || clear < 50 {
			t.Errorf("Template(%s): %d opaque and %d clear pixels of 1024, want a silhouette and its surround", n, opaque, clear)
		}
		// The glyph is cut out: a pixel deep inside it is clear.
		ic, _ := draw.For(n, 32)
		cut := 0
		for y := range 32 {
			for x := range 32 {
				if ic.Glyph.Dist(draw.Vec{X: float64(x) + 0.5, Y: float64(y) + 0.5}) < -0.8 && n32.Pix[4*(32*y+x)+3] == 0 {
					cut++
				}
			}
		}
		if cut < 8 {
			t.Errorf("Template(%s): %d pixels of the glyph cut out, want the glyph cut out of the badge", n, cut)
		}
		small := draw.Template(n, size)
		a := make([]uint8, 0, size*size)
		for p := 3; p < len(small.Pix); p += 4 {
			a = append(a, small.Pix[p])
		}
		alpha[n] = a
	}
	for i, a := range icons.All() {
		for _, b := range icons.All()[i+1:] {
			differ := 0
			for p := range alpha[a] {
				if abs(int(alpha[a][p])-int(alpha[b][p])) >= 128 {
					differ++
				}
			}
			if share := float64(differ) / (size * size); share < 0.08 {
				t.Errorf("templates of %s and %s differ in %.0f%% of pixels at %d px, want >= 8%%", a, b, share*100, size)
			}
		}
	}
}

func nrgbaOf(img image.Image) *image.NRGBA {
	out := image.NewNRGBA(img.Bounds())
	for y := img.Bounds().Min.Y; y < img.Bounds().Max.Y; y++ {
		for x := img.Bounds().Min.X; x < img.Bounds().Max.X; x++ {
			out.Set(x, y, img.At(x, y))
		}
	}
	return out
}

// TestBusyByShape: thinking and working differ by their outline, not
// only by glyph or colour: their badges alone differ in a good share of
// the pixels at 16 px.
func TestBusyByShape(t *testing.T) {
	const size = 16
	th, _ := draw.For(icons.Thinking, size)
	wo, _ := draw.For(icons.Working, size)
	a, b := coverage(size, th.Badge), coverage(size, wo.Badge)
	differ := 0
	for i := range a {
		if math.Abs(a[i]-b[i]) >= 0.5 {
			differ++
		}
	}
	if share := float64(differ) / (size * size); share < 0.12 {
		t.Errorf("the badges of thinking and working differ in %.0f%% of pixels at %d px, want >= 12%%", share*100, size)
	}
}
