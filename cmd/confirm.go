package cmd

import (
	"bufio"
	"fmt"
	"os"
	"strings"
)

// confirm asks question on stdout and reads the answer from stdin: true
// for y, yes or 是. An answer from a pipe or a file, which the terminal did
// not echo, is followed by a newline so the next output starts a line.
func (e *env) confirm(question string) bool {
	fmt.Fprint(e.stdout, question)
	line, _ := bufio.NewReader(e.stdin).ReadString('\n')
	if f, ok := e.stdin.(*os.File); !ok || !isTerminal(f) {
		fmt.Fprintln(e.stdout)
	}
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes", "是":
		return true
	}
	return false
}
