package fakedesktop

import (
	"context"
	"errors"
	"image/color"
	"strings"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
)

func TestPixmapImage(t *testing.T) {
	// 2x1: opaque red, then half-transparent blue; ARGB, network order.
	p := Pixmap{Width: 2, Height: 1, ARGB: []byte{0xff, 0xff, 0, 0, 0x80, 0, 0, 0xff}}
	img := p.Image()
	if b := img.Bounds(); b.Dx() != 2 || b.Dy() != 1 {
		t.Fatalf("Image() bounds = %v, want 2x1", b)
	}
	for x, want := range []color.NRGBA{{R: 0xff, A: 0xff}, {B: 0xff, A: 0x80}} {
		if got := img.NRGBAAt(x, 0); got != want {
			t.Errorf("Image().NRGBAAt(%d, 0) = %v, want %v", x, got, want)
		}
	}
	short := Pixmap{Width: 2, Height: 1, ARGB: []byte{0xff, 1, 2, 3}}.Image()
	if got := short.NRGBAAt(1, 0); got != (color.NRGBA{}) {
		t.Errorf("short pixmap's missing pixel = %v, want transparent", got)
	}
}

func TestDecodePixmaps(t *testing.T) {
	four := make([]byte, 2*2*4)
	tests := []struct {
		name    string
		in      any
		want    []Pixmap
		wantErr string
	}{
		{"as godbus decodes a(iiay)", [][]any{{int32(2), int32(2), four}}, []Pixmap{{2, 2, four}}, ""},
		{"in a variant", dbus.MakeVariant([][]any{{int32(2), int32(2), four}}), []Pixmap{{2, 2, four}}, ""},
		{"empty icon of fyne before SetIcon", [][]any{{int32(0), int32(0), []byte{}}}, []Pixmap{{0, 0, []byte{}}}, ""},
		{"none", [][]any{}, nil, ""},
		{"size mismatch", [][]any{{int32(3), int32(2), four}}, nil, "3x2 needs 24 bytes, got 16"},
		{"not an array", "icon", nil, "want a(iiay)"},
		{"bad element", [][]any{{int32(2), int32(2)}}, nil, "pixmap 0"},
		{"string width", [][]any{{"2", int32(2), four}}, nil, "pixmap 0: got (string"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := decodePixmaps(tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("decodePixmaps(%v) = %v, %v; want an error containing %q", tt.in, got, err, tt.wantErr)
				}
				return
			}
			if err != nil || len(got) != len(tt.want) {
				t.Fatalf("decodePixmaps(%v) = %v, %v; want %v", tt.in, got, err, tt.want)
			}
			for i := range got {
				if got[i].Width != tt.want[i].Width || got[i].Height != tt.want[i].Height || len(got[i].ARGB) != len(tt.want[i].ARGB) {
					t.Errorf("decodePixmaps(%v)[%d] = %v, want %v", tt.in, i, got[i], tt.want[i])
				}
			}
		})
	}
}

func TestDecodeToolTip(t *testing.T) {
	tests := []struct {
		in      any
		want    string
		wantErr bool
	}{
		{[]any{"", [][]any{}, "clawd", ""}, "clawd", false}, // what fyne.io/systray sends
		{[]any{"icon", [][]any{}, "", "2 sessions"}, "2 sessions", false},
		{[]any{"", [][]any{}, "clawd", "2 sessions"}, "clawd\n2 sessions", false},
		{dbus.MakeVariant([]any{"", [][]any{}, "", ""}), "", false},
		{[]any{"", [][]any{}, "clawd"}, "", true},
		{[]any{"", [][]any{}, int32(1), ""}, "", true},
		{[]any{"", "icons", "", ""}, "", true},
	}
	for _, tt := range tests {
		tip, err := decodeToolTip(tt.in)
		if (err != nil) != tt.wantErr || tip.String() != tt.want {
			t.Errorf("decodeToolTip(%v) = %q, %v; want %q, error %v", tt.in, tip.String(), err, tt.want, tt.wantErr)
		}
	}
}

func TestEventually(t *testing.T) {
	calls := 0
	err := Eventually(t.Context(), time.Millisecond, func() (bool, error) {
		calls++
		return calls == 3, nil
	})
	if err != nil || calls != 3 {
		t.Errorf("Eventually(true on call 3) = %v after %d calls, want nil after 3", err, calls)
	}

	boom := errors.New("boom")
	if err := Eventually(t.Context(), time.Millisecond, func() (bool, error) { return false, boom }); err != boom {
		t.Errorf("Eventually(error) = %v, want %v", err, boom)
	}

	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := Eventually(ctx, time.Hour, func() (bool, error) { return false, nil }); !errors.Is(err, ErrTimeout) || !errors.Is(err, context.Canceled) {
		t.Errorf("Eventually(never, canceled) = %v, want ErrTimeout and context.Canceled", err)
	}
}
