package importer

// UncheckedFirstLines turns Check off until the returned func is called
// (checkFirstLines).
func UncheckedFirstLines() (restore func()) {
	checkFirstLines = false
	return func() { checkFirstLines = true }
}
