//go:build !linux

package catalog

// renameNoReplace renames from to to, failing with fs.ErrExist when to is
// taken (checked just before: no atomic no-replace rename here).
func renameNoReplace(from, to string) error { return renameIfFree(from, to) }
