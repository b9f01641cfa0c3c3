package fakedesktop

import (
	"fmt"
	"image"
	"image/color"
	"strings"
)

// Pixmap is one icon of a StatusNotifierItem pixmap list (iiay): its size
// and its pixels as ARGB32 in network byte order, row by row.
type Pixmap struct {
	Width, Height int
	ARGB          []byte
}

// Image converts the pixmap to an image. Pixels missing from a short ARGB
// slice stay transparent.
func (p Pixmap) Image() *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, p.Width, p.Height))
	for y := 0; y < p.Height; y++ {
		for x := 0; x < p.Width; x++ {
			i := (y*p.Width + x) * 4
			if i+4 > len(p.ARGB) {
				return img
			}
			a := p.ARGB[i : i+4]
			img.SetNRGBA(x, y, color.NRGBA{R: a[1], G: a[2], B: a[3], A: a[0]})
		}
	}
	return img
}

// ToolTip is the StatusNotifierItem ToolTip property (sa(iiay)ss).
type ToolTip struct {
	IconName string
	Icons    []Pixmap
	Title    string
	Text     string
}

// String returns the title and the text, each when not empty, on separate
// lines: what a host shows.
func (t ToolTip) String() string {
	var parts []string
	for _, s := range []string{t.Title, t.Text} {
		if s != "" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, "\n")
}

func decodeToolTip(v any) (ToolTip, error) {
	f, ok := asSlice(v)
	if !ok || len(f) != 4 {
		return ToolTip{}, fmt.Errorf("got %T, want (sa(iiay)ss)", unwrap(v))
	}
	var tt ToolTip
	var okName, okTitle, okText bool
	tt.IconName, okName = unwrap(f[0]).(string)
	tt.Title, okTitle = unwrap(f[2]).(string)
	tt.Text, okText = unwrap(f[3]).(string)
	if !okName || !okTitle || !okText {
		return ToolTip{}, fmt.Errorf("got (%T, _, %T, %T), want strings", unwrap(f[0]), unwrap(f[2]), unwrap(f[3]))
	}
	icons, err := decodePixmaps(f[1])
	if err != nil {
		return ToolTip{}, fmt.Errorf("icons: %w", err)
	}
	tt.Icons = icons
	return tt, nil
}

// decodePixmaps decodes a(iiay), rejecting pixmaps whose data does not
// match their size.
func decodePixmaps(v any) ([]Pixmap, error) {
	list, ok := asSlice(v)
	if !ok {
		return nil, fmt.Errorf("got %T, want a(iiay)", unwrap(v))
	}
	var out []Pixmap
	for i, e := range list {
		f, ok := asSlice(e)
		if !ok || len(f) != 3 {
			return nil, fmt.Errorf("pixmap %d: got %T, want (iiay)", i, unwrap(e))
		}
		w, okW := asInt(f[0])
		h, okH := asInt(f[1])
		data, okD := unwrap(f[2]).([]byte)
		if !okW || !okH || !okD {
			return nil, fmt.Errorf("pixmap %d: got (%T, %T, %T), want (iiay)", i, unwrap(f[0]), unwrap(f[1]), unwrap(f[2]))
		}
		if w < 0 || h < 0 || int64(len(data)) != w*h*4 {
			return nil, fmt.Errorf("pixmap %d: %dx%d needs %d bytes, got %d", i, w, h, w*h*4, len(data))
		}
		out = append(out, Pixmap{Width: int(w), Height: int(h), ARGB: data})
	}
	return out, nil
}
