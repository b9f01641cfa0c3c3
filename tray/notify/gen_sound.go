//go:build ignore

// gen_sound writes chime.wav, the sound clawd plays with a notification:
// two soft bell-like tones a fifth apart (A5, then E6), 0.3 s, 16-bit PCM
// mono at 22050 Hz. Run it with `go generate` in this directory; the
// .wav is committed so builds need no generator.
package main

import (
	"bytes"
	"encoding/binary"
	"log"
	"math"
	"os"
)

const (
	rate     = 22050
	duration = 0.3   // seconds
	peak     = 0.45  // of full scale: a chime, not an alarm
	fadeOut  = 0.015 // seconds of fade at the end, so it stops without a click
)

// tone is one struck note: it starts at start seconds, rises over attack
// and dies away exponentially with time constant decay.
type tone struct {
	freq, start, attack, decay, gain float64
}

var tones = []tone{
	{freq: 880.00, start: 0, attack: 0.004, decay: 0.07, gain: 0.8},
	{freq: 1318.51, start: 0.09, attack: 0.004, decay: 0.08, gain: 1.0},
}

// fmtChunk is the body of a WAV "fmt " chunk, after its id.
type fmtChunk struct {
	Size          uint32
	Format        uint16
	Channels      uint16
	Rate          uint32
	ByteRate      uint32
	BlockAlign    uint16
	BitsPerSample uint16
}

func main() {
	n := int(rate * duration)
	samples := make([]float64, n)
	for i := range samples {
		t := float64(i) / rate
		var v float64
		for _, tn := range tones {
			dt := t - tn.start
			if dt < 0 {
				continue
			}
			env := math.Exp(-dt / tn.decay)
			if dt < tn.attack {
				env *= dt / tn.attack
			}
			// A quiet octave overtone makes a sine sound like a bell.
			w := 2 * math.Pi * tn.freq * dt
			v += tn.gain * env * (math.Sin(w) + 0.15*math.Sin(2*w))
		}
		if rest := duration - t; rest < fadeOut {
			v *= 0.5 - 0.5*math.Cos(math.Pi*rest/fadeOut)
		}
		samples[i] = v
	}
	var max float64
	for _, v := range samples {
		max = math.Max(max, math.Abs(v))
	}

	pcm := make([]int16, n)
	for i, v := range samples {
		pcm[i] = int16(math.Round(v / max * peak * math.MaxInt16))
	}
	var b bytes.Buffer
	dataSize := uint32(2 * n)
	b.WriteString("RIFF")
	binary.Write(&b, binary.LittleEndian, 36+dataSize)
	b.WriteString("WAVE")
	b.WriteString("fmt ")
	binary.Write(&b, binary.LittleEndian, fmtChunk{
		Size:          16,
		Format:        1, // PCM
		Channels:      1,
		Rate:          rate,
		ByteRate:      rate * 2,
		BlockAlign:    2,
		BitsPerSample: 16,
	})
	b.WriteString("data")
	binary.Write(&b, binary.LittleEndian, dataSize)
	binary.Write(&b, binary.LittleEndian, pcm)
	if err := os.WriteFile("chime.wav", b.Bytes(), 0o644); err != nil {
		log.Fatal(err)
	}
}
