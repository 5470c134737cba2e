package crashfs

import (
	"crypto/sha256"
	"math/rand/v2"
	"testing"
)

// Resuming from checkpoints gives the same sums as hashing from scratch,
// whatever order the prefixes of one array are asked in.
func TestContentHasherMatchesSHA256(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	data := make([]byte, 1<<16)
	for i := range data {
		data[i] = byte(rng.IntN(256))
	}
	other := append([]byte(nil), data...) // same bytes, another array
	c := &contentHasher{checkpoints: map[*byte][]hashCheckpoint{}}
	for k := 0; k < 300; k++ {
		buf := data
		if k%3 == 0 {
			buf = other
		}
		n := rng.IntN(len(data) + 1)
		got, err := c.sum(buf[:n])
		if err != nil {
			t.Fatalf("sum of %d bytes: %v", n, err)
		}
		if want := sha256.Sum256(data[:n]); got != want {
			t.Fatalf("sum of the first %d bytes = %x, want %x", n, got, want)
		}
	}
}
