package gen

import "math/bits"

// source is SplitMix64. It lives here, not in math/rand, so that the
// byte-for-byte promise of Generate does not depend on a Go release.
type source struct{ state uint64 }

// newSource derives an independent stream from the seed: stream keeps the
// corpus, the plan and the events from drawing on each other's numbers.
func newSource(seed int64, stream uint64) *source {
	s := &source{state: uint64(seed) ^ (stream * 0x9e3779b97f4a7c15)}
	s.next() // mixes seeds that differ only in low bits
	return s
}

func (s *source) next() uint64 {
	s.state += 0x9e3779b97f4a7c15
	z := s.state
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// intn returns a number in [0, n); n must be > 0. Multiply-high keeps it
// branch-free; the bias for the small n used here is below 2^-40.
func (s *source) intn(n int) int {
	if n <= 0 {
		panic("gen: intn with n <= 0")
	}
	hi, _ := bits.Mul64(s.next(), uint64(n))
	return int(hi)
}

// between returns a number in [lo, hi].
func (s *source) between(lo, hi int) int { return lo + s.intn(hi-lo+1) }

// chance is true with probability p.
func (s *source) chance(p float64) bool {
	return float64(s.next()>>11)/(1<<53) < p
}

func pick[T any](s *source, xs []T) T { return xs[s.intn(len(xs))] }

const idAlphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// token returns n characters of [0-9A-Za-z], for call ids.
func (s *source) token(n int) string {
	b := make([]byte, n)
	for k := range b {
		b[k] = idAlphabet[s.intn(len(idAlphabet))]
	}
	return string(b)
}
