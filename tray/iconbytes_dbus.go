//go:build !windows && !darwin

package tray

import (
	"bytes"
	"encoding/binary"
	"errors"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"io"
	"sync"

	"github.com/clawdhq/clawd/internal/icons"
)

// fyne.io/systray (v1.12.2) turns the icon into the StatusNotifierItem's
// ARGB32 pixmap with byte(v) of each 16-bit, alpha-premultiplied channel
// that image.Image's RGBA returns: right for opaque pixels, garbage for
// every anti-aliased edge pixel (a red fringe on a grey disc). The pixmap
// the spec wants is straight (non-premultiplied) ARGB. So on D-Bus the
// tray hands systray bytes in a small format of our own, registered with
// package image under a magic prefix no real image starts with, whose
// decoder yields pixels that read back as the straight 8-bit values
// whichever byte systray takes.
const straightMagic = "\x00clawd-straight-argb\x00"

func init() {
	image.RegisterFormat("clawd-straight-argb", straightMagic, decodeStraight, decodeStraightConfig)
}

var (
	straightMu    sync.Mutex
	straightCache = map[icons.Name][]byte{}
)

// iconBytes is the tray icon for systray on D-Bus: the 32 px PNG in the
// straight-alpha container described above.
func iconBytes(n icons.Name) []byte {
	straightMu.Lock()
	defer straightMu.Unlock()
	if b, ok := straightCache[n]; ok {
		return b
	}
	b, err := encodeStraight(icons.PNG(n))
	if err != nil {
		// The embedded PNGs are tested to decode; keep systray's own
		// conversion rather than no icon.
		return icons.PNG(n)
	}
	straightCache[n] = b
	return b
}

// encodeStraight converts a PNG to the container: magic, width and height
// (big-endian uint32), then the straight RGBA bytes row by row.
func encodeStraight(pngBytes []byte) ([]byte, error) {
	img, err := png.Decode(bytes.NewReader(pngBytes))
	if err != nil {
		return nil, err
	}
	r := img.Bounds()
	nrgba := image.NewNRGBA(image.Rect(0, 0, r.Dx(), r.Dy()))
	draw.Draw(nrgba, nrgba.Rect, img, r.Min, draw.Src)
	var b bytes.Buffer
	b.WriteString(straightMagic)
	binary.Write(&b, binary.BigEndian, [2]uint32{uint32(r.Dx()), uint32(r.Dy())})
	b.Write(nrgba.Pix)
	return b.Bytes(), nil
}

// maxStraightSide bounds what decodeStraight accepts.
const maxStraightSide = 1024

func readStraightHeader(r io.Reader) (w, h int, err error) {
	head := make([]byte, len(straightMagic)+8)
	if _, err := io.ReadFull(r, head); err != nil {
		return 0, 0, err
	}
	if string(head[:len(straightMagic)]) != straightMagic {
		return 0, 0, errors.New("not a clawd straight-alpha icon")
	}
	w = int(binary.BigEndian.Uint32(head[len(straightMagic):]))
	h = int(binary.BigEndian.Uint32(head[len(straightMagic)+4:]))
	if w <= 0 || h <= 0 || w > maxStraightSide || h > maxStraightSide {
		return 0, 0, errors.New("clawd straight-alpha icon: bad size")
	}
	return w, h, nil
}

func decodeStraightConfig(r io.Reader) (image.Config, error) {
	w, h, err := readStraightHeader(r)
	return image.Config{ColorModel: straightModel, Width: w, Height: h}, err
}

func decodeStraight(r io.Reader) (image.Image, error) {
	w, h, err := readStraightHeader(r)
	if err != nil {
		return nil, err
	}
	img := &straightImage{w: w, h: h, pix: make([]byte, 4*w*h)}
	if _, err := io.ReadFull(r, img.pix); err != nil {
		return nil, err
	}
	return img, nil
}

// straightImage is an image whose colors are straight RGBA.
type straightImage struct {
	w, h int
	pix  []byte
}

func (m *straightImage) ColorModel() color.Model { return straightModel }
func (m *straightImage) Bounds() image.Rectangle { return image.Rect(0, 0, m.w, m.h) }
func (m *straightImage) At(x, y int) color.Color {
	if x < 0 || y < 0 || x >= m.w || y >= m.h {
		return straightColor{}
	}
	i := 4 * (y*m.w + x)
	return straightColor{m.pix[i], m.pix[i+1], m.pix[i+2], m.pix[i+3]}
}

// straightColor returns its straight channels from RGBA, each 8-bit value
// v as v*0x101, so that v is both the high and the low byte. That breaks
// color.Color's premultiplied contract on purpose: its only reader is
// systray's pixmap conversion.
type straightColor struct{ r, g, b, a uint8 }

func (c straightColor) RGBA() (r, g, b, a uint32) {
	return uint32(c.r) * 0x101, uint32(c.g) * 0x101, uint32(c.b) * 0x101, uint32(c.a) * 0x101
}

var straightModel = color.ModelFunc(func(c color.Color) color.Color {
	if s, ok := c.(straightColor); ok {
		return s
	}
	n := color.NRGBAModel.Convert(c).(color.NRGBA)
	return straightColor{n.R, n.G, n.B, n.A}
})
