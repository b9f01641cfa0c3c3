//go:build !windows && !darwin

package tray

import (
	"bytes"
	"image"
	"image/draw"
	"image/png"
	"testing"

	"github.com/clawdhq/clawd/internal/icons"
)

// systrayPixmap is fyne.io/systray v1.12.2's conversion of icon bytes to
// the StatusNotifierItem pixmap (argbForImage): image.Decode, then byte()
// of each channel RGBA returns.
func systrayPixmap(t *testing.T, data []byte) []byte {
	t.Helper()
	img, _, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	b := img.Bounds()
	var out []byte
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, a := img.At(x, y).RGBA()
			out = append(out, byte(a), byte(r), byte(g), byte(bl))
		}
	}
	return out
}

// straightARGB is what the pixmap should hold: the PNG's straight ARGB.
func straightARGB(t *testing.T, pngBytes []byte) []byte {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(pngBytes))
	if err != nil {
		t.Fatal(err)
	}
	n := image.NewNRGBA(img.Bounds())
	draw.Draw(n, n.Rect, img, img.Bounds().Min, draw.Src)
	out := make([]byte, 0, len(n.Pix))
	for i := 0; i < len(n.Pix); i += 4 {
		out = append(out, n.Pix[i+3], n.Pix[i], n.Pix[i+1], n.Pix[i+2])
	}
	return out
}

func TestIconBytesGiveStraightPixmaps(t *testing.T) {
	for _, n := range icons.All() {
		want := straightARGB(t, icons.PNG(n))
		if got := systrayPixmap(t, iconBytes(n)); !bytes.Equal(got, want) {
			t.Errorf("pixmap of %s through systray's conversion differs from the PNG's straight ARGB", n)
		}
		// The plain PNG is what systray gets wrong: its anti-aliased
		// edges come out garbled. If this stops failing, systray was
		// fixed and iconBytes can hand it the PNG.
		if got := systrayPixmap(t, icons.PNG(n)); bytes.Equal(got, want) {
			t.Errorf("systray's conversion of the %s PNG is right: the straight-alpha container is no longer needed", n)
		}
	}
}

func TestDecodeStraightRejectsBadInput(t *testing.T) {
	good := iconBytes(icons.Idle)
	for name, data := range map[string][]byte{
		"truncated pixels": good[:len(good)-1],
		"truncated header": good[:len(straightMagic)+3],
		"zero size":        append([]byte(straightMagic), 0, 0, 0, 0, 0, 0, 0, 1),
		"huge size":        append([]byte(straightMagic), 0, 1, 0, 0, 0, 1, 0, 0),
	} {
		if _, _, err := image.Decode(bytes.NewReader(data)); err == nil {
			t.Errorf("image.Decode(%s) = nil error, want one", name)
		}
	}
}
