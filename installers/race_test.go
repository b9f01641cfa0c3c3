package installers

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// TestConcurrentWriterNeverLosesAWrite runs install and uninstall over and
// over while another program rewrites the settings file every few
// milliseconds the way editors and agents do (read, change, write a
// temporary file, rename it over). Each of its writes adds a key. clawd
// may refuse to write (ErrConcurrentChange) but must never replace a
// write it did not read: at the end every key is there.
func TestConcurrentWriterNeverLosesAWrite(t *testing.T) {
	c := newTestClaude(t)
	writeSettings(t, c, "{\"keys\": {}}\n", 0o644)
	const installs = 200

	done := make(chan struct{})
	var wg sync.WaitGroup
	var written int
	var writerErr error
	wg.Add(1)
	go func() {
		defer wg.Done()
		tmp := filepath.Join(filepath.Dir(c.Path), "writer.tmp")
		for written = 0; ; written++ {
			select {
			case <-done:
				return
			default:
			}
			data, err := os.ReadFile(c.Path)
			if err != nil {
				writerErr = err
				return
			}
			var doc map[string]any
			if err := json.Unmarshal(data, &doc); err != nil {
				writerErr = fmt.Errorf("the writer read a broken file: %v\n%s", err, data)
				return
			}
			keys, _ := doc["keys"].(map[string]any)
			keys[fmt.Sprintf("k%d", written)] = true
			doc["keys"] = keys
			out, _ := json.MarshalIndent(doc, "", "  ")
			if err := os.WriteFile(tmp, out, 0o644); err != nil {
				writerErr = err
				return
			}
			if err := os.Rename(tmp, c.Path); err != nil {
				writerErr = err
				return
			}
		}
	}()

	refused := 0
	for i := 0; i < installs; i++ {
		var err error
		if i%2 == 0 {
			_, err = c.install(goldenBinary, Options{})
		} else {
			_, err = c.uninstall(Options{})
		}
		switch {
		case errors.Is(err, ErrConcurrentChange):
			refused++
		case err != nil:
			t.Fatalf("run %d: %v", i, err)
		}
	}
	close(done)
	wg.Wait()
	if writerErr != nil {
		t.Fatal(writerErr)
	}
	var doc struct {
		Keys map[string]bool `json:"keys"`
	}
	if err := json.Unmarshal([]byte(readFile(t, c.Path)), &doc); err != nil {
		t.Fatal(err)
	}
	var lost []string
	for k := 0; k < written; k++ {
		if !doc.Keys[fmt.Sprintf("k%d", k)] {
			lost = append(lost, fmt.Sprintf("k%d", k))
		}
	}
	t.Logf("%d installs and uninstalls (%d refused) against %d writes", installs, refused, written)
	if len(lost) > 0 {
		t.Errorf("%d of the other program's %d writes were lost: %v", len(lost), written, lost)
	}
}
