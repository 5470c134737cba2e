package tape

import "strings"

// A shell that prints something each time it starts (nvm's "Now using
// node v22.20.0 (npm v10.9.3)", a profile a sandbox denies "/bin/ps:
// Operation not permitted", a script saved with CRLF) opens every
// command's output with it: the shell's words, not the command's. They
// took the key lines' room, and a failure's first line was theirs. A line
// that opens at least minNoisyOutputs of the outputs the tape quotes, and
// at least half of them, is no key line of any (TestALineTheShellPrintsBeforeEveryOutputIsNoKeyLine).

// minNoisyOutputs: fewer outputs opening with the same line are a
// coincidence (the same command run twice).
const minNoisyOutputs = 3

// shellNoise are the lines that open most of outs.
func shellNoise(outs map[int64]string) map[string]bool {
	opens := map[string]int{}
	for _, out := range outs {
		for l := range strings.SplitSeq(stripANSI(outputBody(headTail(out))), "\n") {
			t := strings.TrimSpace(l)
			if t == "" || noiseLine(t) || exitLine(t) || wrapperLine(t) {
				continue // the host's words around the output
			}
			if !isKeyLine(t) { // a verdict said again is still one
				opens[t]++
			}
			break
		}
	}
	var noise map[string]bool
	for l, n := range opens {
		if n >= minNoisyOutputs && 2*n >= len(outs) {
			if noise == nil {
				noise = map[string]bool{}
			}
			noise[l] = true
		}
	}
	return noise
}
