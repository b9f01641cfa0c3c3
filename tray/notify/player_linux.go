package notify

import "os/exec"

// playerHint says how to get a player when none is found.
const playerHint = "install pulseaudio-utils (paplay), pipewire-bin (pw-play) or alsa-utils (aplay)"

// playerCommand returns the command line that plays file: paplay and
// pw-play reach the desktop's sound server (PulseAudio or PipeWire),
// aplay the bare ALSA device as a last resort.
func playerCommand(lookPath func(string) (string, error), file string) (argv []string, ok bool) {
	return firstPlayer(lookPath, file, []string{"paplay"}, []string{"pw-play"}, []string{"aplay", "-q"})
}

func hideWindow(*exec.Cmd) {}
