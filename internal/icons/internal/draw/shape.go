// Package draw rasterizes the tray icons from resolution-independent shapes.
// Only the asset generator and the tests import it: the clawd binary embeds
// the bytes it produced and never links the drawing code.
//
// A shape is a signed distance function in pixel units (negative inside), so
// one description renders sharply at 16 px and at 64 px, and outlines are
// just bands around a distance of zero.
package draw

import "math"

// Vec is a point or a direction in pixel coordinates; y grows downwards.
type Vec struct{ X, Y float64 }

// Add returns v+w.
func (v Vec) Add(w Vec) Vec { return Vec{v.X + w.X, v.Y + w.Y} }

// Sub returns v-w.
func (v Vec) Sub(w Vec) Vec { return Vec{v.X - w.X, v.Y - w.Y} }

// Scale returns v*k.
func (v Vec) Scale(k float64) Vec { return Vec{v.X * k, v.Y * k} }

// Dot returns the dot product of v and w.
func (v Vec) Dot(w Vec) float64 { return v.X*w.X + v.Y*w.Y }

// Len returns the length of v.
func (v Vec) Len() float64 { return math.Hypot(v.X, v.Y) }

// Shape is a region of the plane given by its signed distance: Dist is
// negative inside, positive outside and zero on the edge. It must never
// overstate the distance to the edge, because the rasterizer trusts it to
// skip anti-aliasing far from any edge.
type Shape interface {
	Dist(p Vec) float64
}

// Circle is a filled disc.
type Circle struct {
	C Vec
	R float64
}

// Dist implements Shape.
func (c Circle) Dist(p Vec) float64 { return p.Sub(c.C).Len() - c.R }

// Capsule is a line segment from A to B stroked with round caps to width W.
type Capsule struct {
	A, B Vec
	W    float64
}

// Dist implements Shape.
func (c Capsule) Dist(p Vec) float64 {
	pa, ba := p.Sub(c.A), c.B.Sub(c.A)
	h := 0.0
	if l := ba.Dot(ba); l > 0 {
		h = math.Max(0, math.Min(1, pa.Dot(ba)/l))
	}
	return pa.Sub(ba.Scale(h)).Len() - c.W/2
}

// Polyline strokes the segments through Pts with round caps and joins.
func Polyline(w float64, pts ...Vec) Shape {
	var u Union
	for i := 1; i < len(pts); i++ {
		u = append(u, Capsule{pts[i-1], pts[i], w})
	}
	return u
}

// Arc is a circular arc of radius R around C, stroked with round caps to
// width W. Angles are in degrees clockwise from 12 o'clock, the way one reads
// a clock face: the arc starts at From and runs clockwise for Sweep degrees.
type Arc struct {
	C           Vec
	R, W        float64
	From, Sweep float64
}

// Dist implements Shape.
func (a Arc) Dist(p Vec) float64 {
	d := p.Sub(a.C)
	ang := math.Mod(deg(math.Atan2(d.X, -d.Y))-a.From+720, 360)
	if ang <= a.Sweep {
		return math.Abs(d.Len()-a.R) - a.W/2
	}
	e0, e1 := a.end(a.From), a.end(a.From+a.Sweep)
	return math.Min(p.Sub(e0).Len(), p.Sub(e1).Len()) - a.W/2
}

// End returns the point where the arc stops, for joining a stroke to it.
func (a Arc) End() Vec { return a.end(a.From + a.Sweep) }

func (a Arc) end(angle float64) Vec {
	r := angle * math.Pi / 180
	return a.C.Add(Vec{math.Sin(r), -math.Cos(r)}.Scale(a.R))
}

func deg(rad float64) float64 { return rad * 180 / math.Pi }

// RoundRect is an axis-aligned rectangle centred on C with half-sizes H and
// corners rounded to radius R.
type RoundRect struct {
	C, H Vec
	R    float64
}

// Dist implements Shape.
func (r RoundRect) Dist(p Vec) float64 {
	q := p.Sub(r.C)
	qx := math.Abs(q.X) - r.H.X + r.R
	qy := math.Abs(q.Y) - r.H.Y + r.R
	out := Vec{math.Max(qx, 0), math.Max(qy, 0)}.Len()
	return out + math.Min(math.Max(qx, qy), 0) - r.R
}

// Polygon is a filled simple polygon with straight edges.
type Polygon []Vec

// Dist implements Shape.
func (pg Polygon) Dist(p Vec) float64 {
	if len(pg) < 3 {
		return math.Inf(1)
	}
	d := math.Inf(1)
	inside := false
	for i, j := 0, len(pg)-1; i < len(pg); j, i = i, i+1 {
		a, b := pg[j], pg[i]
		d = math.Min(d, Capsule{a, b, 0}.Dist(p))
		if (a.Y > p.Y) != (b.Y > p.Y) && p.X < a.X+(p.Y-a.Y)*(b.X-a.X)/(b.Y-a.Y) {
			inside = !inside
		}
	}
	if inside {
		return -d
	}
	return d
}

// Union is every point in any of its shapes.
type Union []Shape

// Dist implements Shape.
func (u Union) Dist(p Vec) float64 {
	d := math.Inf(1)
	for _, s := range u {
		d = math.Min(d, s.Dist(p))
	}
	return d
}

// Intersect is every point in all of its shapes.
type Intersect []Shape

// Dist implements Shape.
func (in Intersect) Dist(p Vec) float64 {
	d := math.Inf(-1)
	for _, s := range in {
		d = math.Max(d, s.Dist(p))
	}
	return d
}

// Minus is the part of A outside B.
type Minus struct{ A, B Shape }

// Dist implements Shape.
func (m Minus) Dist(p Vec) float64 { return math.Max(m.A.Dist(p), -m.B.Dist(p)) }

// Grow moves the edge of S outwards by D pixels (inwards when D < 0).
type Grow struct {
	S Shape
	D float64
}

// Dist implements Shape.
func (g Grow) Dist(p Vec) float64 { return g.S.Dist(p) - g.D }
