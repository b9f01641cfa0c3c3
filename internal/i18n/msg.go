package i18n

// Msg is a message to print later, in whichever language the reader
// wants: a key of the catalogs and its arguments (M, MN), or a literal
// shown as it is in every language, such as a command (Literal). The
// zero Msg is no message: it prints "".
type Msg struct {
	key    string
	args   []any
	plural bool // Printer.N: args[0] is the count
}

// M is the message of key with args (Printer.T's).
func M(key string, args ...any) Msg { return Msg{key: key, args: args} }

// MN is the message of key for the count n, then args (Printer.N's).
func MN(key string, n int, args ...any) Msg {
	return Msg{key: key, args: append([]any{n}, args...), plural: true}
}

// Literal is s as it is in every language: a command, a path.
func Literal(s string) Msg {
	if s == "" {
		return Msg{}
	}
	return Msg{args: []any{s}}
}

// Key returns m's catalog key; "" for a literal or no message.
func (m Msg) Key() string { return m.key }

// IsZero reports whether m is no message.
func (m Msg) IsZero() bool { return m.key == "" && len(m.args) == 0 }

// Msg returns m in p's language.
func (p Printer) Msg(m Msg) string {
	switch {
	case m.key == "" && len(m.args) == 1:
		return m.args[0].(string)
	case m.key == "":
		return ""
	case m.plural:
		return p.N(m.key, m.args[0].(int), m.args[1:]...)
	}
	return p.T(m.key, m.args...)
}
