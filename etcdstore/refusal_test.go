package etcdstore

import (
	"context"
	"fmt"
	"testing"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// What the cluster refuses (the same request would be refused again) and
// what is only no answer, or an answer to try again.
func TestRefusal(t *testing.T) {
	for _, c := range []struct {
		err  error
		want bool
	}{
		{rpctypes.ErrRequestTooLarge, true},
		{rpctypes.ErrDuplicateKey, true},
		{rpctypes.ErrTooManyOps, true},
		{rpctypes.ErrNoSpace, true},
		{rpctypes.ErrPermissionDenied, true},
		{status.Error(codes.ResourceExhausted, "trying to send message larger than max (2097194 vs. 2097152)"), true},
		{fmt.Errorf("writing: %w", rpctypes.ErrRequestTooLarge), true},
		{rpctypes.ErrTooManyRequests, false},
		{rpctypes.ErrNoLeader, false},
		{rpctypes.ErrCompacted, false},
		{rpctypes.ErrTimeout, false},
		{context.DeadlineExceeded, false},
		{status.Error(codes.Unavailable, "connection refused"), false},
	} {
		if got := refusal(c.err); got != c.want {
			t.Errorf("refusal(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}
