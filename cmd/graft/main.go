// Command graft slices a long agent session into a fresh one as a crash-safe,
// journaled transaction. Run "graft --help".
package main

import "os"

func main() {
	os.Exit(main1())
}
