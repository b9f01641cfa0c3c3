package draw

import (
	"bytes"
	"encoding/binary"
	"image"
	"image/color"
	"math"
	"testing"

	"github.com/clawdhq/clawd/internal/icons"
)

func TestDist(t *testing.T) {
	sq := Polygon{{0, 0}, {4, 0}, {4, 4}, {0, 4}}
	ring := Arc{C: Vec{0, 0}, R: 5, W: 2, Sweep: 360}
	// A quarter arc from 12 to 3 o'clock.
	quarter := Arc{C: Vec{0, 0}, R: 5, W: 2, From: 0, Sweep: 90}
	tests := []struct {
		name string
		s    Shape
		p    Vec
		want float64
	}{
		{"circle centre", Circle{Vec{1, 1}, 2}, Vec{1, 1}, -2},
		{"circle edge", Circle{Vec{1, 1}, 2}, Vec{3, 1}, 0},
		{"circle outside", Circle{Vec{0, 0}, 2}, Vec{3, 4}, 3},
		{"capsule side", Capsule{Vec{0, 0}, Vec{10, 0}, 2}, Vec{5, 3}, 2},
		{"capsule axis", Capsule{Vec{0, 0}, Vec{10, 0}, 2}, Vec{5, 0}, -1},
		{"capsule past the end", Capsule{Vec{0, 0}, Vec{10, 0}, 2}, Vec{13, 4}, 4},
		{"capsule of one point", Capsule{Vec{1, 1}, Vec{1, 1}, 2}, Vec{1, 4}, 2},
		{"ring on the circle", ring, Vec{0, -5}, -1},
		{"ring centre", ring, Vec{0, 0}, 4},
		{"quarter inside its sweep", quarter, Vec{5, 0}, -1},
		{"quarter across its gap", quarter, Vec{-5, 0}, math.Hypot(5, 5) - 1},
		{"quarter from below", quarter, Vec{0, 5}, math.Hypot(5, 5) - 1},
		{"rect inside", RoundRect{Vec{0, 0}, Vec{3, 2}, 0}, Vec{0, 0}, -2},
		{"rect side", RoundRect{Vec{0, 0}, Vec{3, 2}, 0}, Vec{5, 0}, 2},
		{"rounded corner", RoundRect{Vec{0, 0}, Vec{3, 3}, 1}, Vec{5, 5}, math.Hypot(3, 3) - 1},
		{"square inside", sq, Vec{1, 2}, -1},
		{"square outside", sq, Vec{7, 8}, 5},
		{"degenerate polygon", Polygon{{0, 0}, {1, 1}}, Vec{0, 0}, math.Inf(1)},
		{"union", Union{Circle{Vec{0, 0}, 1}, Circle{Vec{10, 0}, 1}}, Vec{8, 0}, 1},
		{"intersect", Intersect{Circle{Vec{0, 0}, 3}, Circle{Vec{4, 0}, 3}}, Vec{2, 0}, -1},
		{"minus", Minus{Circle{Vec{0, 0}, 3}, Circle{Vec{0, 0}, 1}}, Vec{0, 0}, 1},
		{"grow", Grow{Circle{Vec{0, 0}, 3}, -1}, Vec{3, 0}, 1},
	}
	for _, tc := range tests {
		if got := tc.s.Dist(tc.p); math.Abs(got-tc.want) > 1e-9 && !(math.IsInf(got, 1) && math.IsInf(tc.want, 1)) {
			t.Errorf("%s: Dist(%v) = %v, want %v", tc.name, tc.p, got, tc.want)
		}
	}
}

func TestArcEnd(t *testing.T) {
	a := Arc{C: Vec{10, 10}, R: 5, From: 0, Sweep: 90}
	if got, want := a.End(), (Vec{15, 10}); math.Abs(got.X-want.X) > 1e-9 || math.Abs(got.Y-want.Y) > 1e-9 {
		t.Errorf("End() = %v, want %v", got, want)
	}
}

func TestRenderCoverage(t *testing.T) {
	opaque := color.NRGBA{10, 20, 30, 255}
	tests := []struct {
		name  string
		shape Shape
		want  []uint8 // alpha of the four pixels of a 2×2 image
	}{
		{"left column", RoundRect{Vec{0.5, 1}, Vec{0.5, 1}, 0}, []uint8{255, 0, 255, 0}},
		{"half of the top-left pixel", RoundRect{Vec{0.25, 0.5}, Vec{0.25, 0.5}, 0}, []uint8{128, 0, 0, 0}},
		{"everything", Circle{Vec{1, 1}, 5}, []uint8{255, 255, 255, 255}},
		{"nothing", Circle{Vec{9, 9}, 1}, []uint8{0, 0, 0, 0}},
	}
	for _, tc := range tests {
		img := Render(2, Layer{tc.shape, opaque})
		var got []uint8
		for i := 3; i < len(img.Pix); i += 4 {
			got = append(got, img.Pix[i])
		}
		if !bytes.Equal(got, tc.want) {
			t.Errorf("%s: alphas = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestSharedEdge: a band drawn over a badge right to its edge shows none of
// the badge's colour at the edge, which blending anti-aliased layers one by
// one would.
func TestSharedEdge(t *testing.T) {
	badge := Circle{Vec{8, 8}, 7.3}
	red, blue := color.NRGBA{255, 0, 0, 255}, color.NRGBA{0, 0, 255, 255}
	img := Render(16, Layer{badge, red}, Layer{Minus{badge, Grow{badge, -2}}, blue})
	for x := 0; x < 2; x++ { // the band covers x from 0.7 to 2.7
		if c := img.NRGBAAt(x, 8); c.A > 0 && c.R != 0 {
			t.Errorf("pixel (%d,8) = %v, want no red in the edge band", x, c)
		}
	}
}

// TestShortcut: skipping supersampling far from edges changes no pixel of any
// icon, which holds only if no distance function overstates its distance.
func TestShortcut(t *testing.T) {
	for _, n := range icons.All() {
		for _, size := range []int{16, 23} { // even and odd: centres on pixel corners and on pixel centres
			ic, _ := For(n, size)
			fast, full := render(size, true, ic.Layers()), render(size, false, ic.Layers())
			if !bytes.Equal(fast.Pix, full.Pix) {
				t.Errorf("%s at %d px: the single-sample shortcut changed pixels", n, size)
			}
		}
	}
}

func TestFor(t *testing.T) {
	if _, ok := For("nope", 16); ok {
		t.Errorf("For(%q, 16) found a drawing", "nope")
	}
	if got, want := Image("nope", 16).Pix, Image(icons.Idle, 16).Pix; !bytes.Equal(got, want) {
		t.Errorf("Image(%q, 16) is not Idle's", "nope")
	}
}

func TestEncodeICO(t *testing.T) {
	b, err := EncodeICO(image.NewNRGBA(image.Rect(0, 0, 16, 16)), image.NewNRGBA(image.Rect(0, 0, 256, 256)))
	if err != nil {
		t.Fatal(err)
	}
	le := binary.LittleEndian
	if got := le.Uint16(b[4:]); got != 2 {
		t.Errorf("count = %d, want 2", got)
	}
	if w0, w1 := b[6], b[6+16]; w0 != 16 || w1 != 0 {
		t.Errorf("widths = %d, %d, want 16, 0 (0 means 256)", w0, w1)
	}
	if off := le.Uint32(b[6+12:]); off != 6+2*16 {
		t.Errorf("first image at %d, want %d", off, 6+2*16)
	}
	for _, bad := range []image.Rectangle{image.Rect(0, 0, 16, 8), image.Rect(0, 0, 300, 300)} {
		if _, err := EncodeICO(image.NewNRGBA(bad)); err == nil {
			t.Errorf("EncodeICO(%v) = nil error, want one", bad)
		}
	}
}

func TestOver(t *testing.T) {
	bg := color.NRGBA{0, 0, 0, 255}
	tests := []struct {
		fg, want color.NRGBA
	}{
		{color.NRGBA{200, 100, 50, 255}, color.NRGBA{200, 100, 50, 255}},
		{color.NRGBA{200, 100, 50, 0}, bg},
		{color.NRGBA{255, 255, 255, 128}, color.NRGBA{128, 128, 128, 255}},
	}
	for _, tc := range tests {
		if got := Over(tc.fg, bg); got != tc.want {
			t.Errorf("Over(%v, %v) = %v, want %v", tc.fg, bg, got, tc.want)
		}
	}
}

func TestSheet(t *testing.T) {
	img := Sheet([]icons.Name{icons.Error}, []int{16}, 4)
	// Somewhere the sheet holds the error red, blown up to at least a 4×4
	// block of it.
	red := Image(icons.Error, 16).NRGBAAt(8, 3)
	found := false
	b := img.Bounds()
	for y := b.Min.Y; y+4 <= b.Max.Y && !found; y++ {
		for x := b.Min.X; x+4 <= b.Max.X && !found; x++ {
			found = true
			for dy := 0; dy < 4 && found; dy++ {
				for dx := 0; dx < 4; dx++ {
					if img.NRGBAAt(x+dx, y+dy) != Over(red, LightPanel) {
						found = false
						break
					}
				}
			}
		}
	}
	if !found {
		t.Errorf("Sheet has no 4×4 block of the error red %v", red)
	}
}
