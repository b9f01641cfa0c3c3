package fakeapi

import (
	"io"
	"net/http"
	"slices"
	"testing"
)

// TestBase: the server answers with the fake's handler on loopback, the
// log keeps what was recorded in order and hands out copies (Where
// filtered), and Next
// counts from 1.
func TestBase(t *testing.T) {
	var b *Base[string]
	b = New[string](http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b.Record(r.URL.Path)
		io.WriteString(w, "ok")
	}))
	b.Start()
	defer b.Close()
	for _, p := range []string{"/one", "/two"} {
		resp, err := http.Get(b.URL() + p)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if string(body) != "ok" {
			t.Fatalf("GET %s = %q", p, body)
		}
	}
	got := b.Requests()
	if !slices.Equal(got, []string{"/one", "/two"}) {
		t.Fatalf("Requests() = %v", got)
	}
	got[0] = "changed"
	if b.Requests()[0] != "/one" {
		t.Error("Requests() shares its slice with the log")
	}
	if two := b.Where(func(p string) bool { return p == "/two" }); !slices.Equal(two, []string{"/two"}) {
		t.Errorf("Where(/two) = %v", two)
	}
	if n1, n2 := b.Next(), b.Next(); n1 != 1 || n2 != 2 {
		t.Errorf("Next() = %d, %d; want 1, 2", n1, n2)
	}
}
