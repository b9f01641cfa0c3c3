package draw

import (
	"image"
	"image/color"
	"math"
)

// Layer paints Color over everything below it wherever Shape is.
type Layer struct {
	Shape Shape
	Color color.NRGBA
}

// samples is the side of the supersampling grid used on edge pixels:
// 16×16 = 256 samples give every one of the 8-bit alpha levels a chance.
const samples = 16

// Render rasterizes layers, bottom first, onto a transparent size×size image.
//
// Each pixel is the average of a grid of point samples, and each sample takes
// the colour of the layers that contain it. Averaging whole samples, instead
// of blending one anti-aliased layer over another, keeps two shapes that
// share an edge (a badge and its outline) from leaking the panel between
// them. Pixels farther than a pixel from every edge take one sample.
func Render(size int, layers ...Layer) *image.NRGBA {
	return render(size, true, layers)
}

// render is Render with the single-sample shortcut optional, so a test can
// check that the shortcut changes nothing.
func render(size int, shortcut bool, layers []Layer) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, size, size))
	for y := 0; y < size; y++ {
		for x := 0; x < size; x++ {
			img.SetNRGBA(x, y, pixel(float64(x), float64(y), shortcut, layers))
		}
	}
	return img
}

// pixel returns the colour of the pixel whose top-left corner is (x, y).
func pixel(x, y float64, shortcut bool, layers []Layer) color.NRGBA {
	centre := Vec{x + 0.5, y + 0.5}
	// A layer whose edge is more than a pixel from the centre covers all of
	// the pixel or none of it (the corners are 0.71 px away; the rest is room
	// for rounding), so it is tested once instead of at every sample.
	var (
		nearBuf [8]int
		inBuf   [8]bool
		near    = nearBuf[:0]
		in      = inBuf[:0]
	)
	if len(layers) > len(inBuf) {
		in = make([]bool, 0, len(layers))
	}
	in = in[:len(layers)]
	for i, l := range layers {
		d := l.Shape.Dist(centre)
		in[i] = d <= 0
		if !shortcut || math.Abs(d) < 1 {
			near = append(near, i)
		}
	}
	if len(near) == 0 {
		r, g, b, a := composite(layers, in)
		return unpremultiply(r, g, b, a)
	}
	var r, g, b, a float64
	for j := 0; j < samples; j++ {
		for i := 0; i < samples; i++ {
			p := Vec{x + (float64(i)+0.5)/samples, y + (float64(j)+0.5)/samples}
			for _, k := range near {
				in[k] = layers[k].Shape.Dist(p) <= 0
			}
			sr, sg, sb, sa := composite(layers, in)
			r, g, b, a = r+sr, g+sg, b+sb, a+sa
		}
	}
	const n = samples * samples
	return unpremultiply(r/n, g/n, b/n, a/n)
}

// composite paints the layers marked in over each other, returning
// premultiplied colour components in [0, 1].
func composite(layers []Layer, in []bool) (r, g, b, a float64) {
	for i, l := range layers {
		if !in[i] {
			continue
		}
		ca := float64(l.Color.A) / 255
		r = float64(l.Color.R)/255*ca + r*(1-ca)
		g = float64(l.Color.G)/255*ca + g*(1-ca)
		b = float64(l.Color.B)/255*ca + b*(1-ca)
		a = ca + a*(1-ca)
	}
	return r, g, b, a
}

func unpremultiply(r, g, b, a float64) color.NRGBA {
	if a <= 0 {
		return color.NRGBA{}
	}
	return color.NRGBA{byte8(r / a), byte8(g / a), byte8(b / a), byte8(a)}
}

func byte8(v float64) uint8 {
	return uint8(math.Round(math.Max(0, math.Min(1, v)) * 255))
}
