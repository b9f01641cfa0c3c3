package automations

import (
	"strings"
	"testing"
)

const twoDefs = `# My automations
# (the ding is for the night)

[[automation]]
id = "ding"
event = "permission.requested"
action = { type = "sound" } # short

# Posts every finished turn.
[[automation]]
id = "post"
event = "turn.completed"
action = { type = "webhook", url = "http://127.0.0.1:9/in" }
`

func TestFileEdits(t *testing.T) {
	added, ids, err := Add([]byte(twoDefs), []byte("[[automation]]\nid = \"fail\"\nevent = \"turn.failed\"\naction = { type = \"command\", argv = [\"/bin/true\"] }\n"))
	if err != nil || len(ids) != 1 || ids[0] != "fail" {
		t.Fatalf("Add = %v, %v", ids, err)
	}
	if !strings.HasPrefix(string(added), twoDefs+"\n[[automation]]\nid = \"fail\"") {
		t.Errorf("Add changed the file's own bytes:\n%s", added)
	}
	if _, _, err := Add(added, []byte("[[automation]]\nid = \"ding\"\nevent = \"turn.failed\"\naction = { type = \"sound\" }\n")); err == nil || !strings.Contains(err.Error(), "used twice") {
		t.Errorf("Add of an existing id = %v", err)
	}
	if _, _, err := Add(added, []byte("[[automation]]\nid = \"bad\"\nevent = \"nope\"\n")); err == nil {
		t.Error("Add of an invalid definition succeeded")
	}

	b, err := Block([]byte(twoDefs), "ding")
	if err != nil || string(b) != "[[automation]]\nid = \"ding\"\nevent = \"permission.requested\"\naction = { type = \"sound\" } # short\n\n" {
		t.Errorf("Block(ding) = %q, %v", b, err)
	}

	removed, err := Replace([]byte(twoDefs), "ding", nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := "# My automations\n# (the ding is for the night)\n\n# Posts every finished turn.\n[[automation]]\nid = \"post\""; !strings.HasPrefix(string(removed), want) {
		t.Errorf("Replace(ding, nil) =\n%s\nwant it to keep the other table's comment", removed)
	}
	edited, err := Replace([]byte(twoDefs), "ding", []byte("[[automation]]\nid = \"ding\"\nevent = \"question.requested\"\naction = { type = \"sound\" }\n"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(edited), "event = \"question.requested\"\naction = { type = \"sound\" }\n\n# Posts every finished turn.") ||
		!strings.HasPrefix(string(edited), "# My automations\n# (the ding is for the night)\n\n[[automation]]") {
		t.Errorf("Replace(ding) =\n%s", edited)
	}
	if _, err := Replace([]byte(twoDefs), "ding", []byte("[[automation]]\nid = \"ding\"\n")); err == nil {
		t.Error("Replace with an invalid definition succeeded")
	}
	if _, err := Replace([]byte(twoDefs), "nope", nil); err == nil {
		t.Error("Replace of an unknown id succeeded")
	}
}
