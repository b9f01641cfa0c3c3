package notify

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/clawdhq/clawd/internal/atomicfile"
)

//go:generate go run gen_sound.go

// chime is the sound of a notification: 0.3 s, 16-bit PCM mono 22050 Hz
// WAV, made by gen_sound.go.
//
//go:embed chime.wav
var chime []byte

// soundName is the chime's file in the cache folder: players take a file.
const soundName = "chime.wav"

// ErrNoPlayer means no sound player was found on PATH.
var ErrNoPlayer = errors.New("no sound player found on PATH")

// soundFile returns the path of the chime in the cache folder, writing it
// there first unless an identical file is there already.
func (d *Desktop) soundFile() (string, error) {
	if d.cacheDir == "" {
		return "", errors.New("no cache folder for the sound file")
	}
	d.soundMu.Lock()
	defer d.soundMu.Unlock()
	path := filepath.Join(d.cacheDir, soundName)
	if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, chime) {
		return path, nil
	}
	if err := os.MkdirAll(d.cacheDir, 0o700); err != nil {
		return "", fmt.Errorf("create the sound's folder: %w", err)
	}
	if err := atomicfile.Write(path, chime, 0o600, false, nil); err != nil {
		return "", err
	}
	return path, nil
}

// firstPlayer returns the command line of the first of players (each a
// program and its options) that lookPath finds, with file appended.
func firstPlayer(lookPath func(string) (string, error), file string, players ...[]string) ([]string, bool) {
	for _, p := range players {
		if path, err := lookPath(p[0]); err == nil {
			argv := append([]string{path}, p[1:]...)
			return append(argv, file), true
		}
	}
	return nil, false
}
