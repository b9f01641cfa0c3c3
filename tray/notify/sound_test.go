package notify

import (
	"encoding/binary"
	"fmt"
	"testing"
	"time"
)

// wavInfo is what checkWAV reads from a WAV file.
type wavInfo struct {
	format, channels, bits uint16
	rate                   uint32
	samples                []int16
}

// checkWAV parses a canonical RIFF/WAVE file with a PCM "fmt " chunk and a
// "data" chunk, and reports what is wrong with it.
func checkWAV(b []byte) (wavInfo, error) {
	var w wavInfo
	le := binary.LittleEndian
	if len(b) < 44 || string(b[0:4]) != "RIFF" || string(b[8:12]) != "WAVE" {
		return w, fmt.Errorf("no RIFF/WAVE header")
	}
	if got := le.Uint32(b[4:8]); int(got) != len(b)-8 {
		return w, fmt.Errorf("RIFF size %d, want %d", got, len(b)-8)
	}
	if string(b[12:16]) != "fmt " || le.Uint32(b[16:20]) != 16 {
		return w, fmt.Errorf("no 16-byte fmt chunk")
	}
	w.format, w.channels = le.Uint16(b[20:22]), le.Uint16(b[22:24])
	w.rate, w.bits = le.Uint32(b[24:28]), le.Uint16(b[34:36])
	if byteRate, align := le.Uint32(b[28:32]), le.Uint16(b[32:34]); byteRate != w.rate*uint32(w.channels*w.bits/8) || align != w.channels*w.bits/8 {
		return w, fmt.Errorf("byte rate %d and block align %d do not fit %d Hz, %d channels, %d bits", byteRate, align, w.rate, w.channels, w.bits)
	}
	if string(b[36:40]) != "data" {
		return w, fmt.Errorf("no data chunk after fmt")
	}
	if size := le.Uint32(b[40:44]); int(size) != len(b)-44 || size%2 != 0 {
		return w, fmt.Errorf("data size %d, want %d (even)", size, len(b)-44)
	}
	w.samples = make([]int16, (len(b)-44)/2)
	for i := range w.samples {
		w.samples[i] = int16(le.Uint16(b[44+2*i:]))
	}
	return w, nil
}

func TestChime(t *testing.T) {
	w, err := checkWAV(chime)
	if err != nil {
		t.Fatalf("checkWAV(chime.wav): %v", err)
	}
	if w.format != 1 || w.channels != 1 || w.bits != 16 || w.rate != 22050 {
		t.Errorf("chime.wav: format %d, %d channels, %d bits, %d Hz, want PCM (1), 1, 16, 22050", w.format, w.channels, w.bits, w.rate)
	}
	if d := time.Duration(len(w.samples)) * time.Second / time.Duration(w.rate); d < 200*time.Millisecond || d > 500*time.Millisecond {
		t.Errorf("chime.wav lasts %v, want a short chime, 0.2 s to 0.5 s", d)
	}
	if len(chime) > 20<<10 {
		t.Errorf("chime.wav is %d bytes, want at most 20 KiB", len(chime))
	}
	// It starts and ends at silence (no click) and stays clear of full
	// scale (no clipping, not startling).
	var peak int
	for _, s := range w.samples {
		peak = max(peak, abs(int(s)))
	}
	first, last := abs(int(w.samples[0])), abs(int(w.samples[len(w.samples)-1]))
	if first > 100 || last > 100 {
		t.Errorf("chime.wav starts at %d and ends at %d, want near 0", first, last)
	}
	if peak < 8000 || peak > 24000 {
		t.Errorf("chime.wav peaks at %d, want 8000 to 24000 (audible, well under 32767)", peak)
	}
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
