package draw

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"image"
	"image/png"
	"slices"

	"github.com/clawdhq/clawd/internal/icons"
)

// Asset sizes, in pixels.
const (
	TraySize  = 32 // the PNG the Linux and macOS trays get; they scale it
	LargeSize = 64 // the notification image
)

// ICOSizes are the images in each Windows icon: the tray's 16 px at 100%,
// 125% and 150% scaling, and the larger ones Explorer and the shell ask for.
var ICOSizes = []int{16, 20, 24, 32, 48}

// Assets returns every file gen.go writes under internal/icons/assets, by file
// name: <name>-32.png, <name>.ico and <name>-template.png for each icon of
// icons.All and icons.Counts, and <name>-64.png for those of icons.All
// (a notification shows no count).
func Assets() (map[string][]byte, error) {
	out := make(map[string][]byte)
	put := func(file string, img image.Image) error {
		b, err := EncodePNG(img)
		if err != nil {
			return fmt.Errorf("%s: %w", file, err)
		}
		out[file] = b
		return nil
	}
	for _, n := range slices.Concat(icons.All(), icons.Counts()) {
		if err := put(string(n)+"-32.png", Image(n, TraySize)); err != nil {
			return nil, err
		}
		if err := put(string(n)+"-template.png", Template(n, TraySize)); err != nil {
			return nil, err
		}
		if slices.Contains(icons.All(), n) {
			if err := put(string(n)+"-64.png", Image(n, LargeSize)); err != nil {
				return nil, err
			}
		}
		var imgs []image.Image
		for _, size := range ICOSizes {
			imgs = append(imgs, Image(n, size))
		}
		b, err := EncodeICO(imgs...)
		if err != nil {
			return nil, fmt.Errorf("%s.ico: %w", n, err)
		}
		out[string(n)+".ico"] = b
	}
	return out, nil
}

// EncodePNG encodes img as a PNG. (Best compression would save 2% of the
// assets' 80 kB and cost the up-to-date test a second and a half under -race.)
func EncodePNG(img image.Image) ([]byte, error) {
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// EncodeICO writes a Windows icon file holding imgs, each stored as a PNG.
// Images must be square and at most 256 px.
func EncodeICO(imgs ...image.Image) ([]byte, error) {
	const dirSize, entrySize = 6, 16
	var head, body bytes.Buffer
	le := binary.LittleEndian
	head.Write(le.AppendUint16(nil, 0))                 // reserved
	head.Write(le.AppendUint16(nil, 1))                 // type: icon
	head.Write(le.AppendUint16(nil, uint16(len(imgs)))) // count
	offset := dirSize + entrySize*len(imgs)
	for _, img := range imgs {
		b := img.Bounds()
		if b.Dx() != b.Dy() || b.Dx() < 1 || b.Dx() > 256 {
			return nil, fmt.Errorf("ico: image of %dx%d, want a square of 1 to 256 px", b.Dx(), b.Dy())
		}
		data, err := EncodePNG(img)
		if err != nil {
			return nil, err
		}
		head.WriteByte(uint8(b.Dx())) // 256 wraps to 0, which is what the format wants
		head.WriteByte(uint8(b.Dy()))
		head.WriteByte(0)                    // palette size: none
		head.WriteByte(0)                    // reserved
		head.Write(le.AppendUint16(nil, 1))  // colour planes
		head.Write(le.AppendUint16(nil, 32)) // bits per pixel
		head.Write(le.AppendUint32(nil, uint32(len(data))))
		head.Write(le.AppendUint32(nil, uint32(offset+body.Len())))
		body.Write(data)
	}
	return append(head.Bytes(), body.Bytes()...), nil
}
