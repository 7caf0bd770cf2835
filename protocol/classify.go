package protocol

import (
	"context"
	"errors"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/perfgate/perfgate/harness"
)

// classify maps a transport error to an error class (harness.ClassifyError
// knows net/http's, http1's and the context's errors).
func classify(ctx context.Context, err error) string { return harness.ClassifyError(ctx, err) }

// GRPCClass maps a gRPC error to an error class: DeadlineExceeded is a
// timeout, Unavailable a connection error, Canceled while the run is
// stopping canceled; any other code is "grpc_<Code>" (grpc_ResourceExhausted).
func GRPCClass(ctx context.Context, err error) (class string, code codes.Code) {
	st, ok := status.FromError(err)
	if !ok {
		return classify(ctx, err), codes.Unknown
	}
	code = st.Code()
	switch code {
	case codes.DeadlineExceeded:
		return harness.ErrTimeout, code
	case codes.Unavailable:
		return harness.ErrConnection, code
	case codes.Canceled:
		if ctx.Err() != nil {
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return harness.ErrTimeout, code
			}
			return harness.ErrCanceled, code
		}
	}
	return "grpc_" + code.String(), code
}
