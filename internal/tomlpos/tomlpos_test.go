package tomlpos

import "testing"

func TestLines(t *testing.T) {
	doc := `# top
name = "x"
[server]
port = 1
"quoted.key" = 2
a.b = 3

[[automation]]
id = "one"
condition = { all = [
  { path = "agent.id" } ] }

[[automation]]
id = "two"
`
	got := Lines([]byte(doc))
	for k, want := range map[string]int{
		Key("name"):                         2,
		Key("server"):                       3,
		Key("server", "port"):               4,
		Key("server", "quoted.key"):         5,
		Key("server", "a", "b"):             6,
		Key("automation", "0"):              8,
		Key("automation", "0", "id"):        9,
		Key("automation", "0", "condition"): 10,
		Key("automation", "1"):              13,
		Key("automation", "1", "id"):        14,
	} {
		if got[k] != want {
			t.Errorf("line of %q = %d, want %d", k, got[k], want)
		}
	}
}

func TestLinesSpacedHeaders(t *testing.T) {
	doc := "# comment\n[permissions]\ntimeout = \"1m\"   # a = b\n[ agents . \"claude\" ]\npermissions = true\n[[list]]\nx.y = 2\n"
	got := Lines([]byte(doc))
	for k, want := range map[string]int{
		Key("permissions"):                     2,
		Key("permissions", "timeout"):          3,
		Key("agents"):                          4,
		Key("agents", "claude"):                4,
		Key("agents", "claude", "permissions"): 5,
		Key("list", "0"):                       6,
		Key("list", "0", "x", "y"):             7,
	} {
		if got[k] != want {
			t.Errorf("line of %q = %d, want %d", k, got[k], want)
		}
	}
}
