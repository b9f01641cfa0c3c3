// Command traydemo is a small fyne.io/systray program for the fakedesktop
// tests. It reports on stdout what happens, so the tests can see it react to
// clicks. It is built without -race: fyne.io/systray v1.12.2 itself races
// on its menu version between GetLayout and refresh.
//
//	traydemo tray     the tray below, until Quit is clicked
//	traydemo notify   one notification with beeep, exit 1 if it fails
package main

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"

	"fyne.io/systray"
	"github.com/gen2brain/beeep"
)

// The tests look for these values.
const (
	appName      = "fakedesktop-demo"
	title        = "demo"
	tooltip      = "demo tooltip"
	iconW, iconH = 22, 16 // not square, so a swapped width and height shows
)

var (
	red  = color.NRGBA{R: 0xff, A: 0xff}
	blue = color.NRGBA{B: 0xff, A: 0xff}
)

func main() {
	beeep.AppName = appName
	mode := ""
	if len(os.Args) == 2 {
		mode = os.Args[1]
	}
	switch mode {
	case "tray":
		tray()
	case "notify":
		os.Exit(notify())
	default:
		fmt.Fprintln(os.Stderr, "usage: traydemo tray|notify")
		os.Exit(2)
	}
}

// icon is a blue PNG with one red pixel at the top left.
func icon() []byte {
	img := image.NewNRGBA(image.Rect(0, 0, iconW, iconH))
	for y := range iconH {
		for x := range iconW {
			img.SetNRGBA(x, y, blue)
		}
	}
	img.SetNRGBA(0, 0, red)
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		panic(err)
	}
	return b.Bytes()
}

// tray runs this menu:
//
//	Hello
//	Disabled        (disabled)
//	----
//	More > Click me (sets the tooltip and sends a notification)
//	Check           (checkbox)
//	Quit
func tray() {
	systray.Run(func() {
		systray.SetIcon(icon())
		systray.SetTitle(title)
		systray.SetTooltip(tooltip)
		hello := systray.AddMenuItem("Hello", "")
		systray.AddMenuItem("Disabled", "").Disable()
		systray.AddSeparator()
		more := systray.AddMenuItem("More", "")
		clickMe := more.AddSubMenuItem("Click me", "")
		check := systray.AddMenuItemCheckbox("Check", "", false)
		quit := systray.AddMenuItem("Quit", "")
		go func() {
			clicks := 0
			for {
				select {
				case <-hello.ClickedCh:
					fmt.Println("hello")
				case <-clickMe.ClickedCh:
					clicks++
					text := fmt.Sprintf("clicked %d", clicks)
					systray.SetTooltip(text)
					err := beeep.Notify("Clicked", text, "")
					fmt.Println(text, err)
				case <-check.ClickedCh:
					if check.Checked() {
						check.Uncheck()
					} else {
						check.Check()
					}
					fmt.Println("checked", check.Checked())
				case <-quit.ClickedCh:
					fmt.Println("quitting")
					systray.Quit()
					return
				}
			}
		}()
		fmt.Println("ready")
	}, func() {
		fmt.Println("exited")
	})
}

// notify sends one notification with beeep, as clawd does.
func notify() int {
	if err := beeep.Notify("Summary text", "Body text", icon()); err != nil {
		fmt.Println("notify:", err)
		return 1
	}
	fmt.Println("notified")
	return 0
}
