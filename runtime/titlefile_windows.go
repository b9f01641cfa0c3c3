package runtime

// openNonBlock: opening a file does not block on Windows.
const openNonBlock = 0
