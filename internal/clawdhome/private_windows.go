package clawdhome

// On Windows the clawd home lives in the person's profile folder, whose
// ACL already keeps other users out; mode bits mean nothing there.

func tighten(dir string) (bool, error) { return false, nil }

func checkPrivate(dir string) error { return nil }
